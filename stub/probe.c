/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: what the page cache holds of a chunk (mincore,
   cachestat) and how this process maps it (/proc/self/pagemap,
   PAGEMAP_SCAN).  Under a seccomp filter (filtered ()) the page cache is
   not looked at: mincore and cachestat are not on the allow-lists services
   run under (systemd's @system-service), which kill the process on them,
   so cached_pages, chunk_uncached and page_cached answer "cannot be told"
   without a call, as they do where the calls fail.  */
#include "runtime.h"

#define PAGEMAP_SCAN 0xc0606610UL	/* _IOWR('f', 16, struct pm_scan_arg) */
#define PAGE_IS_HUGE (1 << 6)

/* Bits of a /proc/self/pagemap entry.  */
#define PM_PRESENT (1ULL << 63)
#define PM_SWAP (1ULL << 62)
#define PM_FILE (1ULL << 61)	/* a page of the file, not an anonymous copy */
#define PM_GUARD_REGION (1ULL << 58)
#define PM_UFFD_WP (1ULL << 57)

struct pm_scan_arg
{
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

/* Open /proc/self/pagemap into ST->pagemap the first time (-1 if it
   cannot be).  */
static void
pagemap_open (struct stub *st)
{
  if (st->pagemap == -2)
    st->pagemap = sys_openat ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

/* Whether every page of CHUNK that this process maps is a page of the file:
   none anonymous (written: a breakpoint, a uprobe, a patch, a relocation),
   swapped out, or marked (guard region, userfaultfd).  No when it cannot be
   told.  */
int
chunk_clean (struct stub *st, uintptr_t chunk)
{
  pagemap_open (st);
  struct scratch *s = scratch (st);
  if (st->pagemap < 0 || s == NULL)
    return 0;
  uint64_t *entries = s->entries;
  uint64_t pages = st->pmd / st->page;
  for (uint64_t done = 0; done < pages; done += 128)
    {
      long want = (long) sizeof s->entries;
      long got = syscall6 (SYS_pread64, st->pagemap, (long) entries, want,
			   (long) ((chunk / st->page + done) * 8), 0, 0);
      if (got != want)
	return 0;
      for (int k = 0; k < 128; k++)
	{
	  uint64_t e = entries[k];
	  if ((e & (PM_SWAP | PM_GUARD_REGION | PM_UFFD_WP)) || ((e & PM_PRESENT) && !(e & PM_FILE)))
	    return 0;
	}
    }
  return 1;
}

/* How many pages of CHUNK the page cache holds (for a chunk this process
   does not map: the file's cached pages); -1 if it cannot be told.  */
long
cached_pages (struct stub *st, uintptr_t chunk)
{
  struct scratch *s = scratch (st);
  if (s == NULL || filtered (st))
    return -1;
  unsigned char *vec = s->vec;
  long count = 0;
  uint64_t pages = st->pmd / st->page;
  for (uint64_t done = 0; done < pages; done += sizeof s->vec)
    {
      uint64_t n = pages - done < sizeof s->vec ? pages - done : sizeof s->vec;
      if (syscall6 (SYS_mincore, (long) (chunk + done * st->page),
		    (long) (n * st->page), (long) vec, 0, 0, 0) != 0)
	return -1;
      for (uint64_t k = 0; k < n; k++)
	count += vec[k] & 1;
    }
  return count;
}

/* The object's file for cachestat: ST->file when it is open; else, for a
   program the kernel started itself (AT_ENTRY in /proc/self/auxv is this
   stub's entry: not a program that ld.so, run by hand, loaded), its
   /proc/self/exe, opened once into ST->exe; else the object's own file
   (open_object_file, matched by device and inode), which a shared object
   needs for the same question: mincore counts only pages read, and ld.so's
   own faults start a read-ahead into the text (the asynchronous window of
   its first read) whose pages are still being read when the stub looks
   (libjvm.so from a cold cache), which cachestat counts and mincore does
   not.  -1 when none can be opened.  */
static int
cache_file (struct stub *st)
{
  if (st->file >= 0)
    return st->file;
  if (st->exe == -2)
    {
      st->exe = -1;
      if ((st->p->flags & STUB_FLAG_EXE) && (read_auxv (st), st->at_entry == st->self))
	st->exe = sys_openat ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    }
  if (st->exe >= 0)
    return st->exe;
  return open_object_file (st);
}

/* Whether the page cache holds nothing of CHUNK (file offset OFFSET), not
   even pages still being read.  With cachestat (Linux 6.5+) one look at
   the file's cache, which costs the same whatever the chunk size and
   counts pages under read; else mincore page by page (about 25 us for a
   2 MiB chunk nothing of which is cached, at every start of a program that
   never reaches it), which counts only pages read: a chunk a read-ahead is
   filling then looks uncached, is left to the program, and stays in the
   read-ahead's small folios until a later start repairs it.  No when it cannot be told (a seccomp
   filter: then the chunk is touched, and a fault reads it as one PMD
   folio, as the program's would).  */
int
chunk_uncached (struct stub *st, uintptr_t chunk, uint64_t offset)
{
  if (filtered (st))
    return 0;
  if (st->cachestat != 0)
    {
      int fd = cache_file (st);
      if (fd >= 0)
	{
	  uint64_t range[2] = { offset, st->pmd };
	  uint64_t stat[5];
	  memset (stat, 0, sizeof stat);
	  if (syscall6 (SYS_cachestat, fd, (long) range, (long) stat, 0, 0, 0) == 0)
	    {
	      st->cachestat = 1;
	      return stat[0] == 0;
	    }
	  st->cachestat = 0;
	}
    }
  return cached_pages (st, chunk) == 0;
}

/* Whether the page at ADDR is in the page cache (or mapped); -1 if it
   cannot be told.  */
int
page_cached (struct stub *st, uintptr_t addr)
{
  unsigned char v = 0;
  if (filtered (st))
    return -1;
  if (syscall6 (SYS_mincore, (long) addr, (long) st->page, (long) &v, 0, 0, 0) != 0)
    return -1;
  return v & 1;
}

/* Whether a touch of CHUNK can fault it in without harm, FIRST being
   page_cached () of its first page: that page is cached (the fault maps
   what is there and reads nothing), or its last page is not either
   (nothing of it is cached: the fault reads one PMD folio).  Not when only
   the last is: another process is evicting the chunk (POSIX_FADV_DONTNEED
   drops pages in ascending order), and a fault now would read the missing
   pages as small folios under it.  */
int
touch_harmless (struct stub *st, uintptr_t chunk, int first)
{
  return first != 0 || page_cached (st, chunk + st->pmd - st->page) == 0;
}

/* Mark in BAD (one bit per chunk) the chunks of the N at START that are not
   PMD-mapped, using PAGEMAP_SCAN.  Return their number, or -1 when the
   kernel cannot tell (before 6.7).  */
long
scan_small_chunks (struct stub *st, uintptr_t start, uint64_t n, uint64_t *bad)
{
  uint64_t pmd = st->pmd;
  uint64_t len = n * pmd;
  pagemap_open (st);
  struct scratch *s = scratch (st);
  if (st->pagemap < 0 || st->scan == 0 || s == NULL)
    return -1;
  chunks_all (bad, n);
  struct page_region *regions = s->regions;
  uintptr_t at = start;
  while (at < start + len)
    {
      /* Zeroed so that tools which do not know this ioctl (valgrind) see
	 defined memory where the kernel writes the results.  */
      memset (regions, 0, sizeof s->regions);
      struct pm_scan_arg arg = {
	.size = sizeof arg, .start = at, .end = start + len,
	.vec = (uintptr_t) regions, .vec_len = 32,
	.category_mask = PAGE_IS_HUGE, .return_mask = PAGE_IS_HUGE,
      };
      long got = syscall6 (SYS_ioctl, st->pagemap, (long) PAGEMAP_SCAN, (long) &arg, 0, 0, 0);
      if (got < 0)
	{
	  st->scan = 0;
	  return -1;
	}
      st->scan = 1;
      for (long r = 0; r < got; r++)
	for (uintptr_t c = regions[r].start; c + pmd <= regions[r].end; c += pmd)
	  if (((c - start) & (pmd - 1)) == 0)
	    chunk_del (bad, (c - start) / pmd);
      if (arg.walk_end <= at)
	break;
      at = arg.walk_end;
    }
  return (long) chunks_count (bad, n);
}

/* Whether CHUNK, just touched, is PMD-mapped in this process.  With
   PAGEMAP_SCAN (6.7+), exactly.  Before that, from /proc/self/pagemap: a
   touch maps a PMD folio whole, but small folios only within the fault's
   read-around window (64 KiB), so the chunk's middle and last pages are
   mapped only when it is PMD-mapped (or the page table covers it all
   anyway, which a fault does not do).  A chunk PMD-mapped shows that the
   kernel gives this file PMD folios (ST->pmd_folios_seen).  */
int
chunk_pmd_mapped (struct stub *st, uintptr_t chunk)
{
  if (st->scan == 1)
    {
      uint64_t bad[1];
      if (scan_small_chunks (st, chunk, 1, bad) != 0)
	return 0;
    }
  else
    {
      pagemap_open (st);
      uint64_t pages = st->pmd / st->page;
      for (uint64_t k = pages / 2; k < pages; k += pages / 2 - 1)
	{
	  uint64_t e = 0;
	  if (syscall6 (SYS_pread64, st->pagemap, (long) &e, 8,
			(long) ((chunk / st->page + k) * 8), 0, 0) != 8 || !(e & PM_PRESENT))
	    return 0;
	}
    }
  st->pmd_folios_seen = 1;
  return 1;
}

/* Touch CHUNK and return whether it is PMD-mapped now.  If it is, stop
   mapping it again (MADV_DONTNEED, which leaves the page cache as it is):
   the program's own first fault there maps the cached PMD folio with a PMD
   by itself, so that a chunk the program never runs is not counted in its
   resident set (ps, cgroup limits and the OOM killer count mapped file
   pages).  A chunk seen PMD-mapped through PAGEMAP_SCAN holds no
   anonymous page (a write to it would have split the mapping); through
   the pagemap's two pages it is looked at first (chunk_clean).  */
int
touch_pmd (struct stub *st, uintptr_t chunk)
{
  touch (chunk);
  if (!chunk_pmd_mapped (st, chunk))
    return 0;
  if (st->scan == 1 || chunk_clean (st, chunk))
    sys_madvise (chunk, st->pmd, MADV_DONTNEED);
  return 1;
}
