/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: MODE_REPAIR's first steps, for each PMD-aligned
   range of text (populate_range):
   1. madvise(MADV_HUGEPAGE), so that a fault in an uncached chunk reads one
      PMD-sized folio, and MADV_RANDOM, so that it reads just that chunk
      and never spills small folios into the next one (MADV_RANDOM stays:
      the program's own faults in the range read whole chunks too);
   2. touch each chunk, last first; or, for a range of more than
      populate_max chunks, only a sample of eight (choose_touched), and the
      rest only when the sample finds a chunk not PMD-mapped (only the
      rest of the ends, when it finds them there alone).  A chunk of
      which nothing is cached is left to the program, unless it lies within
      the read-ahead window of the range's ends (edge_chunks), where the
      program's faults in its other mappings would read it in small folios:
      the program's first fault in it reads one PMD folio and maps it with
      a PMD, if the program ever gets there, so that a cold start reads no
      more text than the program runs (elfpmd prime reads it all ahead,
      without running the program).  Near the ends, the object's other
      mappings are advised first so that their faults read no small folios
      into the text (guard.c); only where that fails are the uncached
      chunks there populated.  A chunk that another process is evicting is
      not touched (touch_harmless).  Where the page cache cannot be seen
      (a seccomp filter: probe.c), neither can be told, and every chunk
      chosen is touched: an uncached one is read as one PMD folio ahead of
      the program (a cold start reads the text it samples, not only what
      the program runs), and one another process is evicting may be read
      in small folios, which the repair then finds;
   3. check each chunk right after its touch, and stop mapping it at
      once: one that is PMD-mapped, so that the program's resident set
      counts only the chunks it runs (touch_pmd: its own fault maps the
      cached PMD folio with a PMD by itself); one that is not (drop_chunk),
      so that programs starting together do not keep each other's small
      folios cached;
   4. repair those (repair.c): evict them, and leave them to the program's
      own faults as the uncached ones.
   Steps 3 and 4 are skipped in a process the user who started it may not
   influence (secure (): a set-user-ID program, say), where another user's
   lock or mapping could make the stub wait or the page cache it evicts is
   shared with that user, and on overlayfs (file_system).  */
#include "runtime.h"

/* Put into TOUCHED the chunks of a range of N that the stub populates
   first: all of them, unless SAMPLED; then the first two and the last two,
   which the loader's and the program's reads of neighbouring segments cache
   in small folios if anything does, and four spread between them, which
   show whether the whole file is cached in small folios (just written, or
   read by read()).  */
static void
choose_touched (uint64_t n, int sampled, uint64_t *touched)
{
  if (!sampled)
    {
      chunks_all (touched, n);
      return;
    }
  chunks_none (touched, n);
  chunk_add (touched, 0);
  chunk_add (touched, 1);
  chunk_add (touched, n - 2);
  chunk_add (touched, n - 1);
  for (uint64_t k = 1; k <= 4; k++)
    chunk_add (touched, n * k / 5);
}

/* Stop mapping chunk I of the range at START, which is not PMD-mapped,
   if every page of it this process maps is a clean file page, and add it
   to DROPPED.  Pages a process maps cannot be evicted: several copies of
   the program starting together would otherwise keep each other's small
   folios cached.  MADV_DONTNEED fails on locked memory (mlock): nothing
   can be repaired then.  */
static void
drop_chunk (struct stub *st, uintptr_t start, uint64_t i, uint64_t *dropped)
{
  uintptr_t chunk = start + i * st->pmd;
  if (st->stop || st->no_repair || chunk_in (dropped, i) || secure (st)
      || !chunk_clean (st, chunk))
    return;
  if (sys_madvise (chunk, st->pmd, MADV_DONTNEED) != 0)
    st->stop = 1;
  else
    chunk_add (dropped, i);
}

/* Touch the chunks of SET (of the N at START, file offset FILE_OFFSET),
   last first, check each right after its touch, and mark in BAD those that
   are not PMD-mapped; drop those at once (drop_chunk).  A chunk of which
   nothing is cached (chunk_uncached) is left for the program's own fault
   to read as one PMD folio: away from the range's ends (edge_chunks), or
   near them once the neighbouring mappings are guarded (guard_neighbours).  A chunk that another process is evicting is not touched and
   counts as not PMD-mapped (touch_harmless).  Return the number marked.  */
static long
populate_chunks (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset,
		 const uint64_t *set, uint64_t *bad, uint64_t *dropped)
{
  uint64_t pmd = st->pmd;
  for (uint64_t i = n; i-- > 0;)
    if (chunk_in (set, i))
      {
	uintptr_t chunk = start + i * pmd;
	/* Counting every page costs a cache lookup each: only when the
	   first page is not cached (a cached chunk is touched anyway).  */
	int first = page_cached (st, chunk);
	if (first == 0 && chunk_uncached (st, chunk, file_offset + i * pmd))
	  {
	    uint64_t edge = edge_chunks (st);
	    if (!at_ends (i, n, edge) || guard_neighbours (st))
	      continue;
	  }
	if (touch_harmless (st, chunk, first) && touch_pmd (st, chunk))
	  continue;
	chunk_add (bad, i);
	drop_chunk (st, start, i, dropped);
      }
  return (long) chunks_count (bad, n);
}

/* MODE_REPAIR for one range of N chunks at START (file offset FILE_OFFSET).
   Return -1 when THP is not available at all.  */
int
populate_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset)
{
  uint64_t len = n * st->pmd;
  if (sys_madvise (start, len, MADV_HUGEPAGE) != 0)
    return -1;
  sys_madvise (start, len, MADV_RANDOM);

  struct scratch *s = scratch (st);
  if (s == NULL)
    return 0;
  uint64_t *touched = s->touched, *bad = s->bad, *dropped = s->dropped;
  int sampled = stub_range_sampled (n, st->p->populate_max);
  choose_touched (n, sampled, touched);
  chunks_none (bad, n);
  chunks_none (dropped, n);
  if (st->scan == -1)
    {
      /* Whether PAGEMAP_SCAN works: it decides how a PMD mapping is
	 seen.  */
      uint64_t none[1];
      scan_small_chunks (st, start, 1, none);
    }
  long count = populate_chunks (st, start, n, file_offset, touched, bad, dropped);
  if (count > 0 && sampled)
    {
      /* The sample found small folios: populate the rest of the range, or
	 only of its ends when the sample found them there alone (what the
	 loader's faults in the file's other mappings read before the stub
	 ran: the middle is not cached in small folios).  */
      uint64_t edge = edge_chunks (st);
      int ends_only = edge < n / 2;
      for (uint64_t i = 0; i < n && ends_only; i++)
	if (chunk_in (bad, i) && !at_ends (i, n, edge))
	  ends_only = 0;
      for (uint64_t i = 0; i < n; i++)
	if (chunk_in (touched, i) || (ends_only && !at_ends (i, n, edge)))
	  chunk_del (touched, i);
	else
	  chunk_add (touched, i);
      count = populate_chunks (st, start, n, file_offset, touched, bad, dropped);
    }
  if (count > 0 && !st->stop)
    repair_range (st, start, n, file_offset, dropped);
  return 0;
}
