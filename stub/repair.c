/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: repair, MODE_REPAIR's last step.  The chunks that
   populate.c found not PMD-mapped and dropped, whose pages are all clean
   file pages, are repaired on the object's file, found by device and inode
   (open_object_file): the range is written back (sync_file_range: dirty
   pages cannot be evicted), the file's lock taken (lock.c: one process at
   a time, a bounded wait), and each chunk evicted from the page cache
   (POSIX_FADV_DONTNEED).  Once this start has seen the kernel give the
   file a PMD folio (a chunk PMD-mapped: pmd_folios_seen), an evicted chunk
   is left to the program, whose first fault there reads it as one PMD
   folio: a start reads again only the chunks the program runs, not every
   chunk ld.so's read-ahead cached in small folios before the stub ran
   (leave_to_program); so is a chunk that was cached only in part.  Not
   near the range's ends (edge_chunks): the loader of a program starting
   meanwhile reads ahead into those before its stub guards anything, and
   would cache them in small folios again before this program gets there;
   they are read back at once, as before.  Until
   then, a chunk cached whole is touched again at once, so that it is read
   back as one PMD folio, which shows whether the file system can
   (repair_chunk): one that cannot costs at most one chunk read again per
   start.  Pages another process maps stay cached: that
   chunk is tried again after the others, 1 ms apart, for at most
   MAX_SLEEP_MS in all (and WAIT_MAX_MS with the wait for the lock).  Where this process's own page table still covers the chunk after
   MADV_DONTNEED (kernels without CONFIG_PT_RECLAIM), the chunk is mapped
   afresh from the file (mmap MAP_FIXED, refault), which frees it.  */
#include "runtime.h"

/* Map CHUNK (file offset OFFSET) afresh from the object's file, so that the
   kernel frees the page table that covered it and a fault can map it with
   one PMD entry.  The chunk's pages are all clean file pages, so nothing is
   lost.  Return 0, or -1.  */
int
remap_chunk (struct stub *st, uintptr_t chunk, uint64_t offset)
{
  long prot = text_prot (st, chunk);
  if (prot < 0)
    return -1;
  long got = syscall6 (SYS_mmap, (long) chunk, (long) st->pmd, prot,
		       MAP_PRIVATE | MAP_FIXED, st->file, (long) offset);
  if (got != (long) chunk)
    return -1;
  sys_madvise (chunk, st->pmd, MADV_HUGEPAGE);
  sys_madvise (chunk, st->pmd, MADV_RANDOM);
  return 0;
}

/* Leave CHUNK (file offset OFFSET), just evicted whole, to the program:
   its first fault there reads one PMD folio (the range is MADV_HUGEPAGE
   and MADV_RANDOM) and maps it with a PMD, if the program ever gets
   there, so that a start reads back no more than the program runs.  Where
   MADV_DONTNEED left the page table that covered the chunk in place, the
   chunk is mapped afresh first, which frees it.  Return 1.  */
static int
leave_to_program (struct stub *st, uintptr_t chunk, uint64_t offset)
{
  if (st->table_stays)
    remap_chunk (st, chunk, offset);
  return 1;
}

/* Fault CHUNK (file offset OFFSET) in again and return whether it is
   PMD-mapped now.  Where MADV_DONTNEED leaves the page table that covered
   the chunk in place (ST->table_stays: Linux before 6.14, without
   CONFIG_PT_RECLAIM), a fault cannot map a PMD folio over it, so the chunk
   is mapped afresh first.  FALLBACK is for a chunk just evicted: then a
   chunk the touch alone does not PMD-map is mapped afresh and touched
   again, for a kernel whose version says the table goes but whose
   configuration keeps it.  */
static int
refault (struct stub *st, uintptr_t chunk, uint64_t offset, int fallback)
{
  /* Without FALLBACK, only a chunk the cache holds whole, which the fault
     maps without reading: one held in part is being evicted by another
     process, or read back by it, and a fault now would read the missing
     pages as small folios, spoiling both processes' work.  */
  if (!fallback && cached_pages (st, chunk) != (long) (st->pmd / st->page))
    return 0;
  int remapped = st->table_stays && remap_chunk (st, chunk, offset) == 0;
  if (touch_pmd (st, chunk))
    return 1;
  if (!fallback || remapped || remap_chunk (st, chunk, offset) != 0)
    return 0;
  return touch_pmd (st, chunk);
}

/* CHUNK (file offset OFFSET) was just evicted, as far as the page cache,
   which cannot be seen (a seccomp filter, or mincore failing), let it go:
   another process may map some of its pages.  Once this start has seen a
   PMD folio of the file, a chunk away from the range's ends (LEAVE) is
   left to the program, as one seen evicted whole is; any other is read
   back at once.  Not PMD-mapped then, the stub cannot tell why (pages
   another process kept, or a file system that cannot): it repairs nothing
   more (ST->stop), and does not count the file as one without PMD folios
   (the copy fallback is not made on a guess).  So a start reads back one
   chunk at most in vain, as a file system that cannot costs elsewhere.
   Return 1: done with the chunk.  */
static int
evicted_unseen (struct stub *st, uintptr_t chunk, uint64_t offset, int leave)
{
  if (leave && st->pmd_folios_seen)
    return leave_to_program (st, chunk, offset);
  if (!refault (st, chunk, offset, 1))
    st->stop = 1;
  return 1;
}

/* Evict chunk I of the range at START (file offset FILE_OFFSET),
   which this process does not map any more, and leave it to the program
   (leave_to_program) or, while this start has not seen a PMD folio of the
   file, read it back as one; the caller holds the file's lock, unless it
   could not be had.
   Set ST->stop when the kernel shows it cannot, or may not.  Another
   process may map some of the chunk's pages, so that they cannot be
   evicted: ld.so of a program starting meanwhile (a shared object's first
   chunk often holds its symbols and relocations), a stub for a moment, a
   program that runs, or a program starting meanwhile that the scheduler
   stopped between touching the chunk and letting it go.  Without WAIT,
   return 0 then, for a second round; with WAIT, try again 1 ms later,
   while the stub has waited less than MAX_SLEEP_MS for such pages (and
   WAIT_MAX_MS in all).  A chunk read back in part or in small folios
   (another process faulted it in meanwhile) is tried REPAIR_READS times
   at most.  Return 1 when done with the chunk.  */
static int
repair_chunk (struct stub *st, uintptr_t start, uint64_t i, uint64_t n, uint64_t file_offset,
	      int wait)
{
  uint64_t pmd = st->pmd;
  uintptr_t chunk = start + i * pmd;
  uint64_t offset = file_offset + i * pmd;
  /* Not near the range's ends, where the loader of a program starting
     meanwhile, before its stub guards anything, reads ahead into the text
     in small folios: there a chunk evicted and left unmapped would be
     spoilt again before this program gets to it (seen with three starts
     at once on Linux 6.1, THP always).  */
  int leave = !at_ends (i, n, edge_chunks (st));
  /* Cached in part (the read-ahead of a fault beside the text reached
     into it): the program's fault reads it whole, as whatever folios the
     file system gives, so that the next start tells (cached whole in
     small folios, it is read back there).  Counted only where it can be
     left.  */
  long held = leave ? cached_pages (st, chunk) : -1;
  int part = held >= 0 && held < (long) (pmd / st->page);
  for (int attempt = 0, reads = 0, small = 0; reads < REPAIR_READS; attempt++)
    {
      if (attempt > 0 && !wait_1ms (st, &st->page_waits, MAX_SLEEP_MS))
	return 1;
      /* Another stub may have repaired the chunk while this one waited for
	 the lock: then it is cached as one PMD folio, and mapping it is all
	 there is to do.  (Where the page table stays, that would cost a
	 fresh mapping to see what is most likely still small.)  */
      if ((attempt > 0 || wait || !st->table_stays) && refault (st, chunk, offset, 0))
	return 1;
      if (sys_madvise (chunk, pmd, MADV_DONTNEED) != 0)
	{
	  st->stop = 1;
	  return 1;
	}
      sys_fadvise (st->file, (long) offset, (long) pmd, POSIX_FADV_DONTNEED);
      long cached = cached_pages (st, chunk);
      if (cached < 0)
	return evicted_unseen (st, chunk, offset, leave);
      if (cached != 0)
	{
	  if (!wait)
	    return 0;
	  continue;
	}
      if (leave && (st->pmd_folios_seen || part))
	return leave_to_program (st, chunk, offset);
      if (refault (st, chunk, offset, 1))
	return 1;
      reads++;
      /* Read back from an empty cache and still not PMD-mapped.  In part:
	 another process faulted it in meanwhile.  Read back whole, in small
	 folios: the file system cannot give this file PMD folios, or another
	 process's fault read the chunk while it was being evicted (a start
	 populating its text, which lets it go at once: seen one round in
	 about twenty-five of three starts at once).  Every read so: the
	 former.  (The touch of the last page waits for the read of the rest:
	 mincore counts only pages read.)  */
      touch (chunk + pmd - st->page);
      if (cached_pages (st, chunk) == (long) (pmd / st->page) && ++small == REPAIR_READS)
	{
	  st->stop = 1;
	  st->no_file_folios = 1;
	  return 1;
	}
    }
  return 1;
}

/* The chunks of a range a start repairs: N chunks at START, file offset
   FILE_OFFSET, those in DROPPED still to do.  */
struct range_work
{
  uintptr_t start;
  uint64_t n, file_offset;
  uint64_t *dropped;
};

/* While another process holds the file's lock (lock.c), look at each
   chunk of W still to repair: one of which the page cache holds no page
   has been evicted whole, and is left to the program (leave_to_program),
   as the holder does once it has seen a PMD folio of the file; one of
   which the page cache no longer holds the first or the last page is
   being evicted, by the holder most likely; one seen so and now held
   whole again has been read back, and is mapped (refault without
   FALLBACK), which is all there is to do when it was read back as one PMD
   folio.
   Read back in small folios (the holder is no stub, or was spoilt), it is
   let go again at once, so as not to keep them cached, and waits to be
   seen evicted again.  Only a chunk mapped with one PMD entry counts as
   finished, which extends the start's wait (lock_wait): no process can
   fake that for the start without doing its work.  One evicted whole is
   done with, but earns nothing: the start's own eviction costs it
   nothing to speak of, and a pretender that evicts and reads back in
   small folios, again and again, would otherwise make it wait.  Return the number finished, or -1 when none is left (or the
   cache cannot be seen).  */
static long
follow_holder (struct stub *st, struct range_work *w)
{
  uint64_t *evicted = scratch (st)->evicted;
  long done = 0;
  for (uint64_t i = 0; i < w->n; i++)
    {
      if (!chunk_in (w->dropped, i))
	continue;
      uintptr_t chunk = w->start + i * st->pmd;
      /* Its first and its last page: the holder evicts a chunk from the
	 first page up and reads it back as one folio, and a look at two
	 pages costs the same whatever the chunk size (under an emulator a
	 mincore of a 32 MiB chunk's 2,048 pages takes milliseconds).
	 refault counts every page before it touches the chunk.  */
      int first = page_cached (st, chunk);
      int last = page_cached (st, chunk + st->pmd - st->page);
      if (first < 0 || last < 0)
	return -1;
      if (!first && !last && !at_ends (i, w->n, edge_chunks (st)) && cached_pages (st, chunk) == 0)
	{
	  chunk_del (w->dropped, i);
	  leave_to_program (st, chunk, w->file_offset + i * st->pmd);
	}
      else if (!first || !last)
	chunk_add (evicted, i);
      else if (chunk_in (evicted, i))
	{
	  chunk_del (evicted, i);
	  if (refault (st, chunk, w->file_offset + i * st->pmd, 0))
	    {
	      chunk_del (w->dropped, i);
	      done++;
	    }
	  else
	    sys_madvise (chunk, st->pmd, MADV_DONTNEED);
	}
    }
  return chunks_count (w->dropped, w->n) == 0 ? -1 : done;
}

/* Take the file's lock (lock.c); while another process holds it, follow
   its work on W's chunks (follow_holder, given W; without W, only wait),
   until LOCK_WAIT_MS pass without it finishing one of them.  Return 1
   when locked, 0 when not (flock cannot be used, the wait ran out, or
   nothing is left to repair): repair what is left without it.  */
static int
lock_following (struct stub *st, struct range_work *w)
{
  if (w == 0)
    return lock_file (st);
  uint64_t idle = 0, since = 0;
  for (;;)
    {
      int got = try_lock_file (st);
      if (got != 0)
	return got > 0;
      long done = follow_holder (st, w);
      if (done < 0 || !lock_wait (st, &idle, &since, done))
	return 0;
    }
}

/* Repair the chunks of the range at START (N chunks, file offset
   FILE_OFFSET) that populate_chunks found not PMD-mapped and dropped
   (DROPPED); the others stay as they are.  */
void
repair_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset,
	      uint64_t *dropped)
{
  if (st->stop || st->no_repair || secure (st) || chunks_count (dropped, n) == 0
      || open_object_file (st) < 0)
    return;
  if (ext4_journals_data (st))
    {
      st->stop = 1;
      st->no_file_folios = 1;
      return;
    }
  /* Dirty pages (a file just written) cannot be evicted: write the range
     back first, without the lock (other starters do the same and wait for
     the same write), and without the device flush of an fsync.  */
  syscall6 (SYS_sync_file_range, st->file, (long) file_offset, (long) (n * st->pmd),
	    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER,
	    0, 0);
  struct range_work w = { start, n, file_offset, dropped };
  struct scratch *s = scratch (st);
  if (s != NULL)
    memset (s->evicted, 0, sizeof s->evicted);
  /* The holder's work is followed through the page cache (mincore),
     which a seccomp filter keeps the stub from looking at: then the lock
     is only waited for.  */
  int locked = lock_following (st, s != NULL && !filtered (st) ? &w : 0);
  /* Chunks with pages another process maps are left for a second round,
     by when the programs starting meanwhile have let them go.  */
  for (int wait = 0; wait <= 1; wait++)
    for (uint64_t i = 0; i < n && !st->stop; i++)
      if (chunk_in (dropped, i) && repair_chunk (st, start, i, n, file_offset, wait))
	chunk_del (dropped, i);
  if (locked)
    unlock_file (st);
}
