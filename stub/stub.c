/* elfpmd startup stub: get the object's aligned text onto PMD-sized pages.

   Freestanding and position-independent: no libc, raw system calls, no
   writable data, no relocations.  Every error is ignored: on a kernel or
   file system without file-backed huge pages the program runs exactly as it
   would without the stub.

   What it does, for each PMD-aligned range of text it was given:
   1. madvise(MADV_HUGEPAGE), so that a fault in an uncached 2 MiB chunk
      reads one PMD-sized folio, and MADV_RANDOM, so that the fault reads
      just that chunk and does not spill readahead into the next one;
   2. touch each chunk, last first; or, for a range of more than
      populate_max chunks, only a sample of eight (choose_sample), which
      bounds the cost of a start with a warm cache;
   3. ask PAGEMAP_SCAN (Linux 6.7+) which touched chunks are not PMD-mapped:
      pages of them were already cached in small folios (by the loader's
      reads, by readahead around the stub's own page, by an earlier run, by
      the write that installed the file).  When every sampled chunk is
      PMD-mapped, the rest are left to the program's own faults, which map
      PMD folios already cached, and read uncached chunks as PMD folios
      (MADV_HUGEPAGE stays); otherwise every chunk is touched, as for a
      small range;
   4. repair the chunks that are not PMD-mapped (repair): under an
      exclusive flock on the file, so that programs started together do
      not keep each other's small folios alive, and after fdatasync, since
      dirty pages cannot be dropped, drop this process's mapping and the
      file's cached pages of each chunk (POSIX_FADV_DONTNEED; pages other
      processes map stay) and touch it again, so that it is read back as
      one PMD folio; then, for what is left, try MADV_COLLAPSE;
   5. restore normal readahead (MADV_NORMAL).
   The stub honours PR_SET_THP_DISABLE.  */

#include <stdint.h>

#include "../src/stub_params.h"
#include SYSCALL_H

#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_DONTNEED 4
#define MADV_HUGEPAGE 14
#define MADV_COLLAPSE 25
#define POSIX_FADV_DONTNEED 4
#define PR_GET_THP_DISABLE 42
#define O_RDONLY 0
#define O_CLOEXEC 02000000
#define LOCK_EX 2
#define LOCK_NB 4
#define EWOULDBLOCK 11

#define PAGEMAP_SCAN 0xc0606610UL	/* _IOWR('f', 16, struct pm_scan_arg) */
#define PAGE_IS_HUGE (1 << 6)

struct page_region
{
  uint64_t start, end, categories;
};

struct pm_scan_arg
{
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

/* Chunks a range may have for the stub to track them: 8 GiB of 2 MiB.  */
#define MAX_CHUNKS 4096

/* How many times the stub evicts and refaults a chunk that stays small.  */
#define REPAIR_ATTEMPTS 4

#define HIDDEN __attribute__ ((visibility ("hidden")))

/* The compiler may turn a zeroed structure into a call to memset; there is
   no libc to provide it.  */
HIDDEN void *memset (void *dest, int c, unsigned long n);

void *
memset (void *dest, int c, unsigned long n)
{
  unsigned char *d = dest;
  while (n-- > 0)
    *d++ = (unsigned char) c;
  return dest;
}

static long
sys_madvise (uintptr_t addr, uint64_t len, int advice)
{
  return syscall6 (SYS_madvise, (long) addr, (long) len, advice, 0, 0, 0);
}

static int
sys_open (const char *path)
{
  return (int) syscall6 (SYS_open, (long) path, O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
}

static void
sys_close (int fd)
{
  syscall6 (SYS_close, fd, 0, 0, 0, 0, 0);
}

/* Whether bit I of the chunk set SET is on.  */
static int
chunk_in (const uint64_t *set, uint64_t i)
{
  return (set[i / 64] >> (i % 64)) & 1;
}

static void
chunk_add (uint64_t *set, uint64_t i)
{
  set[i / 64] |= (uint64_t) 1 << (i % 64);
}

/* Make SET (one bit per chunk) hold exactly the chunks 0 to N - 1, with no
   bit set past them, so that a word-wide test of a set never sees them.  */
static void
chunks_all (uint64_t *set, uint64_t n)
{
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    set[i] = n - i * 64 >= 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << (n - i * 64)) - 1;
}

/* Sleep for MS milliseconds.  */
static void
sleep_ms (long ms)
{
  struct { long sec, nsec; } t = { 0, ms * 1000000 };
  syscall6 (SYS_nanosleep, (long) &t, 0, 0, 0, 0, 0);
}

/* Read the first byte of CHUNK: enough to fault the whole chunk in.  */
static void
touch (uintptr_t chunk)
{
  __asm__ volatile ("" : : "r" (*(volatile const char *) chunk) : "memory");
}

/* Mark in BAD (one bit per chunk) the chunks of [START, START + LEN) that
   are not PMD-mapped.  Return -1 when the kernel cannot tell (no
   PAGEMAP_SCAN), else the number of such chunks.  */
static long
find_small_chunks (int pagemap, uintptr_t start, uint64_t len, uint64_t pmd, uint64_t *bad)
{
  uint64_t n = len / pmd;
  chunks_all (bad, n);
  struct page_region regions[32];
  uintptr_t at = start;
  while (at < start + len)
    {
      /* Zeroed so that tools which do not know this ioctl (valgrind) see
	 defined memory where the kernel writes the results.  */
      memset (regions, 0, sizeof regions);
      struct pm_scan_arg arg = {
	.size = sizeof arg, .start = at, .end = start + len,
	.vec = (uintptr_t) regions, .vec_len = 32,
	.category_mask = PAGE_IS_HUGE, .return_mask = PAGE_IS_HUGE,
      };
      long got = syscall6 (SYS_ioctl, pagemap, (long) PAGEMAP_SCAN, (long) &arg, 0, 0, 0);
      if (got < 0)
	return -1;
      for (long r = 0; r < got; r++)
	for (uintptr_t c = regions[r].start; c + pmd <= regions[r].end; c += pmd)
	  if (((c - start) & (pmd - 1)) == 0)
	    {
	      uint64_t i = (c - start) / pmd;
	      bad[i / 64] &= ~((uint64_t) 1 << (i % 64));
	    }
      if (arg.walk_end <= at)
	break;
      at = arg.walk_end;
    }
  long count = 0;
  for (uint64_t i = 0; i < n; i++)
    count += chunk_in (bad, i);
  return count;
}

/* The hexadecimal number at *S (as /proc/self/maps prints addresses), read
   up to END; *S is left after it.  */
static uintptr_t
parse_hex (const char **s, const char *end)
{
  uintptr_t v = 0;
  for (; *s < end; (*s)++)
    {
      char c = **s;
      if (c >= '0' && c <= '9')
	v = v * 16 + (uintptr_t) (c - '0');
      else if (c >= 'a' && c <= 'f')
	v = v * 16 + (uintptr_t) (c - 'a' + 10);
      else
	break;
    }
  return v;
}

/* Open the file mapped at ADDR, found in /proc/self/maps; -1 if not found.  */
static int
open_mapped_file (uintptr_t addr)
{
  int maps = sys_open ("/proc/self/maps");
  if (maps < 0)
    return -1;
  char buf[4096];
  char line[4096];
  long len = 0;			/* bytes of the current line in LINE */
  int fd = -1;
  for (;;)
    {
      long got = syscall6 (SYS_read, maps, (long) buf, sizeof buf, 0, 0, 0);
      if (got <= 0)
	break;
      for (long i = 0; i < got && fd < 0; i++)
	{
	  if (buf[i] != '\n')
	    {
	      if (len < (long) sizeof line - 1)
		line[len++] = buf[i];
	      continue;
	    }
	  line[len] = '\0';
	  const char *s = line, *end = line + len;
	  uintptr_t lo = parse_hex (&s, end);
	  s++;
	  uintptr_t hi = parse_hex (&s, end);
	  len = 0;
	  if (addr < lo || addr >= hi)
	    continue;
	  /* The path is the first field that starts with '/'.  */
	  while (s < end && *s != '/')
	    s++;
	  if (s < end)
	    fd = sys_open (s);
	  break;
	}
      if (fd >= 0)
	break;
    }
  sys_close (maps);
  return fd;
}

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
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    touched[i] = 0;
  chunk_add (touched, 0);
  chunk_add (touched, 1);
  chunk_add (touched, n - 2);
  chunk_add (touched, n - 1);
  for (uint64_t k = 1; k <= 4; k++)
    chunk_add (touched, n * k / 5);
}

/* Repair the chunks in BAD (not PMD-mapped after a touch) of the range at
   START, whose file offset is FILE_OFFSET: evict this process's mapping and
   the file's cached pages of each, and fault it again, so that it is read
   back as one PMD folio.  FILE is the object's file, opened here when it is
   -2.  */
static void
repair (const struct stub_params *p, uintptr_t self, int *file, int pagemap,
	uintptr_t start, uint64_t file_offset, uint64_t n, uint64_t *bad)
{
  uint64_t pmd = p->pmd;
  uint64_t len = n * pmd;
  /* Stop mapping the small folios at once: pages a process maps cannot be
     evicted, and several copies of the program starting together would
     otherwise keep each other's small folios alive.  */
  for (uint64_t i = 0; i < n; i++)
    if (chunk_in (bad, i))
      sys_madvise (start + i * pmd, pmd, MADV_DONTNEED);
  if (*file == -2)
    *file = (p->flags & STUB_FLAG_EXE) ? sys_open ("/proc/self/exe") : open_mapped_file (self);
  if (*file >= 0)
    {
      /* One starter repairs at a time; wait for another at most 200 ms.
	 Then touch again: it may have repaired the chunks already.  */
      for (int t = 0; t < 200; t++)
	{
	  /* Any answer but "held by another" ends the wait: without the
	     lock the repair still works, only less well against
	     concurrent starters.  */
	  if (syscall6 (SYS_flock, *file, LOCK_EX | LOCK_NB, 0, 0, 0, 0) != -EWOULDBLOCK)
	    break;
	  sleep_ms (1);
	}
      for (uint64_t i = 0; i < n; i++)
	if (chunk_in (bad, i))
	  touch (start + i * pmd);
      if (find_small_chunks (pagemap, start, len, pmd, bad) <= 0)
	return;
      /* Dirty pages (a file just written) cannot be dropped: write them
	 back first.  */
      syscall6 (SYS_fdatasync, *file, 0, 0, 0, 0, 0);
    }
  /* A program started at the same moment may map the small folios for a
     moment (its first touch, before it finds them small and lets them go):
     try again a few times, 2 ms apart.  */
  for (int attempt = 0; attempt < REPAIR_ATTEMPTS; attempt++)
    {
      if (attempt > 0)
	sleep_ms (2);
      for (uint64_t i = 0; i < n; i++)
	if (chunk_in (bad, i))
	  {
	    uintptr_t c = start + i * pmd;
	    sys_madvise (c, pmd, MADV_DONTNEED);
	    if (*file >= 0)
	      sys_fadvise (*file, (long) (file_offset + i * pmd), (long) pmd, POSIX_FADV_DONTNEED);
	    touch (c);
	  }
      if (find_small_chunks (pagemap, start, len, pmd, bad) <= 0)
	return;
      if (*file < 0)
	break;			/* without the file nothing can be evicted */
    }
  for (uint64_t i = 0; i < n; i++)
    if (chunk_in (bad, i))
      sys_madvise (start + i * pmd, pmd, MADV_COLLAPSE);
}

HIDDEN void stub_main (uintptr_t self, const struct stub_params *p);

void
stub_main (uintptr_t self, const struct stub_params *p)
{
  if (syscall6 (SYS_prctl, PR_GET_THP_DISABLE, 0, 0, 0, 0, 0) > 0)
    return;
  uint64_t pmd = p->pmd;
  int pagemap = -2, file = -2;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uintptr_t start = self + (uintptr_t) p->range[r].start;
      uint64_t len = p->range[r].length;
      uint64_t n = len / pmd;
      if (n == 0 || n > MAX_CHUNKS)
	continue;
      if (sys_madvise (start, len, MADV_HUGEPAGE) != 0)
	return;			/* no THP here: leave everything as it is */
      sys_madvise (start, len, MADV_RANDOM);

      /* A large range is sampled first: when the sampled chunks are
	 PMD-mapped, the file's cache is in good shape (an earlier run
	 populated it), and the program's own faults will map the other
	 chunks with PMD pages as it reaches them, at no cost now.  */
      uint64_t touched[MAX_CHUNKS / 64];
      int sampled = stub_range_sampled (n, p->populate_max);
      choose_touched (n, sampled, touched);
      for (uint64_t i = n; i-- > 0;)
	if (chunk_in (touched, i))
	  touch (start + i * pmd);

      if (pagemap == -2)
	pagemap = sys_open ("/proc/self/pagemap");
      uint64_t bad[MAX_CHUNKS / 64];
      if (pagemap < 0 || find_small_chunks (pagemap, start, len, pmd, bad) < 0)
	goto next;
      int any = 0;
      for (uint64_t i = 0; i < (n + 63) / 64; i++)
	any |= (bad[i] & touched[i]) != 0;
      if (!any)
	goto next;
      if (sampled)
	{
	  /* The sample found small folios: populate the whole range.  */
	  for (uint64_t i = n; i-- > 0;)
	    if (!chunk_in (touched, i))
	      touch (start + i * pmd);
	  if (find_small_chunks (pagemap, start, len, pmd, bad) <= 0)
	    goto next;
	}
      repair (p, self, &file, pagemap, start, p->range[r].file_offset, n, bad);
    next:
      sys_madvise (start, len, MADV_NORMAL);
    }
  if (pagemap >= 0)
    sys_close (pagemap);
  if (file >= 0)
    sys_close (file);		/* which also drops the lock */
}
