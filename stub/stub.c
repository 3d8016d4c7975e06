/* elfpmd startup stub: get the object's aligned text onto PMD-sized pages
   where the kernel can give it them, and otherwise change nothing.

   Freestanding and position-independent: no libc, raw system calls, no
   writable data, no relocations.  Every error is ignored: whatever fails,
   the program goes on exactly as it would without the stub.

   Two promises come before any huge page:
   - The stub never discards a page the file does not hold.  A private file
     mapping's anonymous pages (a debugger's breakpoint, a uprobe, a patch
     made by a preloaded library, a relocation) are lost to MADV_DONTNEED;
     a chunk holding any of them is left as it is (chunk_clean).
   - Where the kernel cannot give this file PMD-sized page cache folios, the
     stub costs nothing: no eviction, no re-read, no write-back, no wait.
     It decides that first, from what is cheap to know (choose_mode):
       0. the chunk size elfpmd planned with is not the running kernel's
          PMD size (its base page size, from SYSCALL_H's stub_page_size,
          is not the one planned for: an arm64 kernel with 16 KiB pages,
          or --pmd-size): nothing at all;
       1. kernel (uname) before 5.18: no file system has large folios, only
          khugepaged can collapse text (CONFIG_READ_ONLY_THP_FOR_FS):
          madvise(MADV_HUGEPAGE) and nothing more (MODE_HINT), which has no
          effect where THP is off; so too on tmpfs, whose folios were
          chosen when the file was written;
       2. the file system (statfs of /proc/self/exe, or of the path
          /proc/self/maps gives a shared object): ext4 before 6.16, xfs
          before 5.18 and btrfs before 6.17 give no large folios.  There,
          from 6.1 on, one MADV_COLLAPSE tells whether the kernel can
          collapse file text (CONFIG_READ_ONLY_THP_FOR_FS, which Debian's
          and Ubuntu's kernels lack: EINVAL, and nothing more is done); if
          it can, every chunk is collapsed (MODE_COLLAPSE).  Before 6.1,
          MODE_HINT leaves the text to khugepaged.  Three system calls in
          all, where the kernel cannot help;
       3. PR_GET_THP_DISABLE, or THP "never" in sysfs: nothing at all;
       4. anything else (ext4 and xfs on current kernels, file systems this
          list does not know) is populated and repaired (MODE_REPAIR),
          with a bound: the first repair that evicts a chunk and reads it
          back whole in small folios ends the repairs (the file system
          cannot), so that an unknowable case (an ext4 file with the
          journal-data attribute) costs at most one chunk read again per
          start; ext4 mounted data=journal is found in mountinfo and not
          repaired at all.

   MODE_REPAIR, for each PMD-aligned range of text (populate_range):
   1. madvise(MADV_HUGEPAGE), so that a fault in an uncached chunk reads one
      PMD-sized folio, and MADV_RANDOM, so that it reads just that chunk
      and never spills small folios into the next one (MADV_RANDOM stays:
      the program's own faults in the range read whole chunks too);
   2. touch each chunk, last first; or, for a range of more than
      populate_max chunks, only a sample of eight (choose_touched), and the
      rest only when the sample finds a chunk not PMD-mapped.  A chunk of
      which nothing is cached is left to the program, unless it lies within
      the read-ahead window of the range's ends (edge_chunks), where the
      program's faults in its other mappings would read it in small folios:
      the program's first fault in it reads one PMD folio and maps it with
      a PMD, if the program ever gets there, so that a cold start reads no
      more text than the program runs (elfpmd prime reads it all ahead,
      without running the program).  A chunk that another process is
      evicting is not touched (touch_harmless);
   3. check each chunk right after its touch (chunk_pmd_mapped: exactly
      with PAGEMAP_SCAN, 6.7+; before that from /proc/self/pagemap, where
      a chunk mapped with small pages shows only the pages around the
      touch), and stop mapping one that is not PMD-mapped at once
      (drop_chunk), so that programs starting together do not keep each
      other's small folios cached;
   4. repair those whose pages are all clean file pages (repair_range), on
      the object's file, found by device and inode (open_object_file):
      write the range back (sync_file_range: dirty pages cannot be
      evicted), take the file's lock (lock_file: one process at a time,
      others wait while it shows progress), and for each chunk evict it
      from the page cache (POSIX_FADV_DONTNEED) and touch it again, so that
      it is read back as one PMD folio (repair_chunk).  Pages another
      process maps stay cached: that chunk is tried again after the others,
      1 ms apart, for at most MAX_SLEEP_MS in all.
      Where this process's own page table still covers the chunk after
      MADV_DONTNEED (kernels without CONFIG_PT_RECLAIM), the chunk is
      mapped afresh from the file (mmap MAP_FIXED, refault), which frees
      it.

   With STUB_FLAG_COPY (--madvise=copy), and only where the kernel cannot
   give the file PMD-sized folios (no_file_folios: a kernel before 5.18, a
   file system without large folios on this kernel where MADV_COLLAPSE of
   file text fails, ext4 mounted data=journal, or a repair that read a
   chunk back whole in small folios), the text is copied into anonymous
   huge pages instead (copy_all): never under PR_SET_THP_DISABLE or THP
   "never", never on tmpfs, and only chunks whose pages are all clean file
   pages, so that the copy, read from the file, holds exactly the bytes the
   process had.  Each run of such chunks, up to copy_max bytes in all, is
   read with pread into a fresh PMD-aligned anonymous mapping populated as
   huge pages, checked to be huge pages, made read-only and executable
   like the text, named after the file (PR_SET_VMA_ANON_NAME, 5.17+, where
   the kernel has it), and moved over the text with one mremap, which
   replaces the file mapping atomically; on any error the file mapping stays
   (or is put back, when mremap failed after unmapping it).  With the
   environment variable ELFPMD_PERF_MAP set (to anything but empty or 0),
   the stub also writes /tmp/perf-PID.map, the function symbols of the
   copied text at their run-time addresses, so that perf report can name
   what it sampled there, and leaves the copies unnamed (perf reads the map
   only for unnamed anonymous memory).  */

#include <stdint.h>

#include "../src/stub_params.h"
#include SYSCALL_H

#define MADV_RANDOM 1
#define MADV_DONTNEED 4
#define MADV_HUGEPAGE 14
#define MADV_POPULATE_WRITE 23
#define MADV_COLLAPSE 25
#define POSIX_FADV_DONTNEED 4
#define PR_GET_THP_DISABLE 42
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#define O_RDONLY 0
#define O_NOCTTY 0400
#define O_NONBLOCK 04000
#ifndef O_NOFOLLOW		/* aarch64 has its own (SYSCALL_H) */
#define O_NOFOLLOW 0400000
#endif
#define O_WRONLY 1
#define O_CREAT 0100
#define O_EXCL 0200
#define O_CLOEXEC 02000000
#define O_PATH 010000000
#define AT_FDCWD (-100)
#define S_IFMT 0170000
#define S_IFREG 0100000
#define CLOCK_MONOTONIC 1
#define AT_NULL 0
#define AT_ENTRY 9
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE 2
#define SYNC_FILE_RANGE_WAIT_AFTER 4
#define EINVAL 22
#define EWOULDBLOCK 11
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
#define EAGAIN 11
#define ENOMEM 12
#define EBUSY 16

#define EXT4_SUPER_MAGIC 0xef53
#define XFS_SUPER_MAGIC 0x58465342
#define BTRFS_SUPER_MAGIC 0x9123683e
#define TMPFS_MAGIC 0x01021994

#define PAGEMAP_SCAN 0xc0606610UL	/* _IOWR('f', 16, struct pm_scan_arg) */
#define PAGE_IS_HUGE (1 << 6)

/* Bits of a /proc/self/pagemap entry.  */
#define PM_PRESENT (1ULL << 63)
#define PM_SWAP (1ULL << 62)
#define PM_FILE (1ULL << 61)	/* a page of the file, not an anonymous copy */
#define PM_GUARD_REGION (1ULL << 58)
#define PM_UFFD_WP (1ULL << 57)

/* A kernel version as a number that compares.  */
#define KV(major, minor) ((major) << 16 | (minor))

struct page_region
{
  uint64_t start, end, categories;
};

struct pm_scan_arg
{
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

/* Chunks a range may have for the stub to track them: 8 GiB of 2 MiB
   chunks, 128 GiB of 32 MiB ones.  */
#define MAX_CHUNKS 4096
#define SET_WORDS (MAX_CHUNKS / 64)

/* How long the stub waits for the lock of a file another process is
   repairing: at most LOCK_IDLE_MS without progress, LOCK_MAX_MS in all.
   Once the holder has shown progress (it is a stub at work), both are per
   LOCK_UNIT of chunk size: the holder shows progress once per chunk, and
   reading a chunk back takes time in proportion to its size (a 32 MiB
   chunk, 16 KiB pages on arm64, sixteen times as long as a 2 MiB one); a
   waiter that gave up while the holder reads would fault the chunk in
   small folios under it.  A process that merely holds the lock delays a
   start by LOCK_IDLE_MS whatever the chunk size.  */
#define LOCK_IDLE_MS 15
#define LOCK_MAX_MS 250
#define LOCK_UNIT (2u << 20)

/* How many times the stub reads one chunk back at most, and how long it
   waits, in all, for pages other processes map.  */
#define REPAIR_READS 2
#define MAX_SLEEP_MS 8

/* A /proc/self/maps line long enough for any path that can be opened.  */
#define MAPS_LINE 4352

#define HIDDEN __attribute__ ((visibility ("hidden")))

enum mode
{
  MODE_NOTHING,			/* THP is off: touch nothing */
  MODE_HINT,			/* madvise(MADV_HUGEPAGE) only */
  MODE_COLLAPSE,		/* MADV_COLLAPSE each chunk */
  MODE_REPAIR,			/* populate, find small chunks, repair them */
};

/* A run of text the stub copied into anonymous huge pages.  */
struct copy
{
  uintptr_t start;
  uint64_t length, file_offset;
};

/* Runs of copies the stub remembers, for the perf map.  */
#define MAX_COPIES 16

/* The mapping the stub belongs to, as /proc/self/maps shows it.  */
struct mapping
{
  int found;
  uint64_t dev_major, dev_minor, ino;
};

/* What the stub knows while it works on one object.  */
struct stub
{
  const struct stub_params *p;
  uintptr_t self;
  uint64_t pmd;			/* the chunk size: the running kernel's PMD size */
  uint64_t page;		/* the running kernel's base page size */
  unsigned kernel;		/* KV of the running kernel; 0 if unknown */
  uint64_t fs;			/* f_type of the object's file system; 0 if unknown */
  int pagemap;			/* /proc/self/pagemap; -1 none, -2 not opened yet */
  int scan;			/* PAGEMAP_SCAN works: 1, does not: 0, not known yet: -1 */
  int file;			/* the object's file; -1 none, -2 not looked for yet */
  int exe;			/* /proc/self/exe for cachestat (cache_file); -2 not opened yet */
  int cachestat;		/* cachestat works: 1, does not: 0, not known yet: -1 */
  int stop;			/* no more repairs: the kernel cannot, or may not */
  int table_stays;		/* MADV_DONTNEED keeps page tables (before 6.14) */
  int slept;			/* milliseconds waited for pages to go */
  struct mapping map;		/* filled by find_mapping */
  uint64_t edge;		/* edge_chunks (), once EDGE_KNOWN */
  int edge_known;
  int no_file_folios;		/* the kernel cannot give this file PMD folios */
  uint64_t copied;		/* bytes of text copied into anonymous huge pages */
  int ncopies;
  struct copy copies[MAX_COPIES];
  int perf_map;			/* ELFPMD_PERF_MAP asks for a perf map */
#ifdef STUB_PROT_BTI
  long guard;			/* guarded (): -2 not looked at yet */
#endif
};

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

#ifdef STUB_NEED_MEMCPY
/* And memcpy, where the compiler copies structures with it (SYSCALL_H
   says so).  */
HIDDEN void *memcpy (void *dest, const void *src, unsigned long n);

void *
memcpy (void *dest, const void *src, unsigned long n)
{
  unsigned char *d = dest;
  const unsigned char *s = src;
  while (n-- > 0)
    *d++ = *s++;
  return dest;
}
#endif

static long
sys_madvise (uintptr_t addr, uint64_t len, int advice)
{
  return syscall6 (SYS_madvise, (long) addr, (long) len, advice, 0, 0, 0);
}

static int
sys_openat (const char *path, int flags)
{
  return (int) syscall6 (SYS_openat, AT_FDCWD, (long) path, flags, 0, 0, 0);
}

static void
sys_close (int fd)
{
  syscall6 (SYS_close, fd, 0, 0, 0, 0, 0);
}

static long
sys_read (int fd, void *buf, long len)
{
  return syscall6 (SYS_read, fd, (long) buf, len, 0, 0, 0);
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

static void
chunk_del (uint64_t *set, uint64_t i)
{
  set[i / 64] &= ~((uint64_t) 1 << (i % 64));
}

/* Make SET (one bit per chunk) hold exactly the chunks 0 to N - 1, with no
   bit set past them, so that a word-wide test of a set never sees them.  */
static void
chunks_all (uint64_t *set, uint64_t n)
{
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    set[i] = n - i * 64 >= 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << (n - i * 64)) - 1;
}

static void
chunks_none (uint64_t *set, uint64_t n)
{
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    set[i] = 0;
}

static uint64_t
chunks_count (const uint64_t *set, uint64_t n)
{
  uint64_t count = 0;
  for (uint64_t i = 0; i < n; i++)
    count += (uint64_t) chunk_in (set, i);
  return count;
}

static void
sleep_1ms (void)
{
  struct { long sec, nsec; } t = { 0, 1000000 };
  syscall6 (SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long) &t, 0, 0, 0);
}

/* Wait one millisecond, unless the stub has waited MAX_SLEEP_MS already;
   return whether it waited.  */
static int
wait_1ms (struct stub *st)
{
  if (st->slept >= MAX_SLEEP_MS)
    return 0;
  st->slept++;
  sleep_1ms ();
  return 1;
}

/* Read the first byte of CHUNK: enough to fault the whole chunk in.  */
static void
touch (uintptr_t chunk)
{
  __asm__ volatile ("" : : "r" (*(volatile const char *) chunk) : "memory");
}

/* Text reading: lines of a /proc file.  */
struct lines
{
  int fd;
  long have, at;
  char buf[1024];
};

/* The next line of L into LINE (CAP bytes, NUL-terminated, cut to fit);
   its full length, or -1 at the end.  */
static long
next_line (struct lines *l, char *line, long cap)
{
  long len = 0;
  for (;;)
    {
      if (l->at == l->have)
	{
	  l->have = sys_read (l->fd, l->buf, sizeof l->buf);
	  l->at = 0;
	  if (l->have <= 0)
	    {
	      l->have = 0;
	      line[len < cap ? len : cap - 1] = '\0';
	      return len > 0 ? len : -1;
	    }
	}
      char c = l->buf[l->at++];
      if (c == '\n')
	break;
      if (len < cap - 1)
	line[len] = c;
      len++;
    }
  line[len < cap ? len : cap - 1] = '\0';
  return len;
}

/* The number at *S in BASE (10 or 16), read up to a character that is not a
   digit; *S is left after it.  */
static uint64_t
parse_number (const char **s, unsigned base)
{
  uint64_t v = 0;
  for (;; (*s)++)
    {
      char c = **s;
      unsigned d;
      if (c >= '0' && c <= '9')
	d = (unsigned) (c - '0');
      else if (base == 16 && c >= 'a' && c <= 'f')
	d = (unsigned) (c - 'a' + 10);
      else
	return v;
      v = v * base + d;
    }
}

static void
skip_spaces (const char **s)
{
  while (**s == ' ')
    (*s)++;
}

/* Skip the field at *S and the spaces after it.  */
static void
skip_field (const char **s)
{
  while (**s != ' ' && **s != '\0')
    (*s)++;
  skip_spaces (s);
}

/* Fill ST->map from the line of /proc/self/maps whose mapping holds ADDR
   (the device and the inode), and PATH (MAPS_LINE bytes) with its path
   (empty when the line is too long to hold a path that can be opened).
   Return 0, or -1 when not found.  */
static int
find_mapping (struct stub *st, uintptr_t addr, char *path)
{
  struct mapping *m = &st->map;
  struct lines l = { .fd = sys_openat ("/proc/self/maps", O_RDONLY | O_CLOEXEC) };
  path[0] = '\0';
  if (l.fd < 0)
    return -1;
  long len;
  m->found = 0;
  while ((len = next_line (&l, path, MAPS_LINE)) >= 0)
    {
      const char *s = path;
      uint64_t lo = parse_number (&s, 16);
      if (*s++ != '-')
	continue;
      uint64_t hi = parse_number (&s, 16);
      if (addr < lo || addr >= hi)
	continue;
      skip_spaces (&s);
      skip_field (&s);		/* permissions */
      skip_field (&s);		/* offset */
      m->dev_major = parse_number (&s, 16);
      if (*s++ != ':')
	break;
      m->dev_minor = parse_number (&s, 16);
      skip_spaces (&s);
      m->ino = parse_number (&s, 10);
      skip_spaces (&s);
      /* The path, moved to the start of the buffer; none when the line was
	 cut or the mapping has no file.  */
      char *d = path;
      if (len < MAPS_LINE && *s == '/')
	while ((*d++ = *s++) != '\0')
	  ;
      else
	*d = '\0';
      m->found = m->ino != 0;
      break;
    }
  sys_close (l.fd);
  return m->found ? 0 : -1;
}

/* Append the decimal digits of V to *D.  */
static void
put_number (char **d, uint64_t v)
{
  char digits[24];
  int n = 0;
  do
    digits[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0)
    *(*d)++ = digits[--n];
}

/* The number at the start of the file PATH (decimal), or -1.  */
static long
read_number (const char *path)
{
  int fd = sys_openat (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[32];
  long got = sys_read (fd, buf, sizeof buf - 1);
  sys_close (fd);
  if (got <= 0 || buf[0] < '0' || buf[0] > '9')
    return -1;
  buf[got] = '\0';
  const char *s = buf;
  uint64_t v = parse_number (&s, 10);
  return v > (1u << 30) ? -1 : (long) v;
}

/* How many chunks at each end of a range the page cache may get in small
   folios from faults outside it: faults in the rest of the object's file
   mappings (the text's head and tail, read-only data, data) read around
   them into the neighbouring chunks, a window of at most the device's
   read_ahead_kb (an asynchronous window started from a page marked in a
   mapping outside the range, too: one marked inside it starts none, since
   the range is MADV_RANDOM), which large folios, aligned to their size,
   can stretch to twice that.  Those chunks are populated at once; the
   others the program's own faults read as PMD folios.  From the read_ahead_kb of the
   object's block device (/sys/dev/block/MAJOR:MINOR, its queue or that of
   the disk a partition belongs to); UINT64_MAX (every chunk) when that
   cannot be told (no block device: btrfs, overlayfs, NFS).  */
static uint64_t
edge_chunks (struct stub *st)
{
  if (st->edge_known)
    return st->edge;
  st->edge_known = 1;
  st->edge = UINT64_MAX;
  char path[MAPS_LINE];
  uint64_t major, minor;
  if (!st->map.found && (st->p->flags & STUB_FLAG_EXE))
    {
      /* A program's device without reading /proc/self/maps (a warm start
	 pays for this when the program leaves chunks uncached).  */
      uint64_t sb[STAT_WORDS];
      memset (sb, 0, sizeof sb);
      int fd = sys_openat ("/proc/self/exe", O_PATH | O_CLOEXEC);
      if (fd < 0)
	return st->edge;
      long err = syscall6 (SYS_fstat, fd, (long) sb, 0, 0, 0, 0);
      sys_close (fd);
      if (err != 0)
	return st->edge;
      uint64_t dev = STAT_DEV (sb);
      major = (dev >> 8) & 0xfff;
      minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    }
  else
    {
      if (!st->map.found && find_mapping (st, st->self, path) != 0)
	return st->edge;
      major = st->map.dev_major;
      minor = st->map.dev_minor;
    }
  static const char dir[] = "/sys/dev/block/";
  char *d = path;
  for (const char *c = dir; *c != '\0'; c++)
    *d++ = *c;
  put_number (&d, major);
  *d++ = ':';
  put_number (&d, minor);
  char *tail = d;
  long kb = -1;
  for (int up = 0; up <= 1 && kb < 0; up++)
    {
      static const char queue[] = "/queue/read_ahead_kb";
      static const char parent[] = "/../queue/read_ahead_kb";
      d = tail;
      for (const char *c = up ? parent : queue; *c != '\0'; c++)
	*d++ = *c;
      *d = '\0';
      kb = read_number (path);
    }
  if (kb >= 0)
    st->edge = ((uint64_t) kb * 2048 + st->pmd - 1) / st->pmd;
  return st->edge;
}

/* Whether FD is the regular file the mapping ST->map comes from.  */
static int
is_mapped_file (struct stub *st, int fd)
{
  uint64_t s[STAT_WORDS];
  memset (s, 0, sizeof s);
  if (syscall6 (SYS_fstat, fd, (long) s, 0, 0, 0, 0) != 0)
    return 0;
  /* The kernel's encoding of a device number (new_encode_dev).  */
  uint64_t dev = STAT_DEV (s);
  uint64_t major = (dev >> 8) & 0xfff;
  uint64_t minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  return (STAT_MODE (s) & S_IFMT) == S_IFREG && STAT_INO (s) == st->map.ino
	 && major == st->map.dev_major && minor == st->map.dev_minor;
}

/* Open the object's file read-only into ST->file, or set it to -1: the file
   that is mapped, matched by device and inode.  A program's is
   /proc/self/exe, unless ld.so was run explicitly (then that is ld.so); a
   path from /proc/self/maps is opened with O_PATH first, which never blocks
   on a FIFO nor opens a device, and reopened only when it is the file.  */
static int
open_object_file (struct stub *st)
{
  if (st->file != -2)
    return st->file;
  st->file = -1;
  char path[MAPS_LINE];
  if (find_mapping (st, st->self, path) != 0)
    return -1;
  int fd = -1;
  if (st->p->flags & STUB_FLAG_EXE)
    {
      fd = sys_openat ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && !is_mapped_file (st, fd))
	{
	  sys_close (fd);
	  fd = -1;
	}
    }
  if (fd < 0 && path[0] == '/')
    {
      int o = sys_openat (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (o >= 0 && is_mapped_file (st, o))
	{
	  char proc[32] = "/proc/self/fd/";
	  char digits[12];
	  int nd = 0, at = 14;
	  for (unsigned v = (unsigned) o; nd == 0 || v != 0; v /= 10)
	    digits[nd++] = (char) ('0' + v % 10);
	  while (nd > 0)
	    proc[at++] = digits[--nd];
	  proc[at] = '\0';
	  fd = sys_openat (proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	  if (fd >= 0 && !is_mapped_file (st, fd))
	    {
	      sys_close (fd);
	      fd = -1;
	    }
	}
      if (o >= 0)
	sys_close (o);
    }
  st->file = fd;
  return fd;
}

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
static int
chunk_clean (struct stub *st, uintptr_t chunk)
{
  pagemap_open (st);
  if (st->pagemap < 0)
    return 0;
  uint64_t entries[128];
  uint64_t pages = st->pmd / st->page;
  for (uint64_t done = 0; done < pages; done += 128)
    {
      long want = (long) sizeof entries;
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
static long
cached_pages (struct stub *st, uintptr_t chunk)
{
  unsigned char vec[512];
  long count = 0;
  uint64_t pages = st->pmd / st->page;
  for (uint64_t done = 0; done < pages; done += sizeof vec)
    {
      uint64_t n = pages - done < sizeof vec ? pages - done : sizeof vec;
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
   /proc/self/exe, opened once into ST->exe; -1 when neither.  */
static int
cache_file (struct stub *st)
{
  if (st->file >= 0)
    return st->file;
  if (st->exe != -2)
    return st->exe;
  st->exe = -1;
  if (!(st->p->flags & STUB_FLAG_EXE))
    return -1;
  int fd = sys_openat ("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  uint64_t auxv[64];
  long got = sys_read (fd, auxv, sizeof auxv);
  sys_close (fd);
  for (long k = 0; k + 1 < got / 8 && auxv[k] != AT_NULL; k += 2)
    if (auxv[k] == AT_ENTRY)
      {
	if (auxv[k + 1] == st->self)
	  st->exe = sys_openat ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	break;
      }
  return st->exe;
}

/* Whether the page cache holds nothing of CHUNK (file offset OFFSET).
   With cachestat (Linux 6.5+) one look at the file's cache, which costs
   the same whatever the chunk size; else mincore page by page (about
   25 us for a 2 MiB chunk nothing of which is cached, at every start of
   a program that never reaches it).  */
static int
chunk_uncached (struct stub *st, uintptr_t chunk, uint64_t offset)
{
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
static int
page_cached (struct stub *st, uintptr_t addr)
{
  unsigned char v = 0;
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
static int
touch_harmless (struct stub *st, uintptr_t chunk, int first)
{
  return first != 0 || page_cached (st, chunk + st->pmd - st->page) == 0;
}

/* Mark in BAD (one bit per chunk) the chunks of the N at START that are not
   PMD-mapped, using PAGEMAP_SCAN.  Return their number, or -1 when the
   kernel cannot tell (before 6.7).  */
static long
scan_small_chunks (struct stub *st, uintptr_t start, uint64_t n, uint64_t *bad)
{
  uint64_t pmd = st->pmd;
  uint64_t len = n * pmd;
  pagemap_open (st);
  if (st->pagemap < 0 || st->scan == 0)
    return -1;
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
   anyway, which a fault does not do).  */
static int
chunk_pmd_mapped (struct stub *st, uintptr_t chunk)
{
  if (st->scan == 1)
    {
      uint64_t bad[1];
      return scan_small_chunks (st, chunk, 1, bad) == 0;
    }
  pagemap_open (st);
  uint64_t pages = st->pmd / st->page;
  for (uint64_t k = pages / 2; k < pages; k += pages / 2 - 1)
    {
      uint64_t e = 0;
      if (syscall6 (SYS_pread64, st->pagemap, (long) &e, 8,
		    (long) ((chunk / st->page + k) * 8), 0, 0) != 8 || !(e & PM_PRESENT))
	return 0;
    }
  return 1;
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
  if (st->stop || chunk_in (dropped, i) || !chunk_clean (st, chunk))
    return;
  if (sys_madvise (chunk, st->pmd, MADV_DONTNEED) != 0)
    st->stop = 1;
  else
    chunk_add (dropped, i);
}

/* Touch the chunks of SET (of the N at START, file offset FILE_OFFSET),
   last first, check each right after its touch, and mark in BAD those that
   are not PMD-mapped; drop those at once (drop_chunk).  A chunk of which
   nothing is cached (chunk_uncached), away from the range's ends
   (edge_chunks), is left for the program's own fault to read as one PMD
   folio.  A chunk that another process is
   evicting is not touched and counts as not PMD-mapped (touch_harmless).
   Return the number marked.  */
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
	if (first == 0)
	  {
	    uint64_t edge = edge_chunks (st);
	    if (i >= edge && n - i > edge && chunk_uncached (st, chunk, file_offset + i * pmd))
	      continue;
	  }
	if (touch_harmless (st, chunk, first))
	  {
	    touch (chunk);
	    if (chunk_pmd_mapped (st, chunk))
	      continue;
	  }
	chunk_add (bad, i);
	drop_chunk (st, start, i, dropped);
      }
  return (long) chunks_count (bad, n);
}

/* Find the line KEY ("VmFlags:") of the mapping that holds ADDR in
   /proc/self/smaps, and leave in LINE (CAP bytes) what follows KEY.
   Return 0, or -1 when not found.  */
static int
smaps_value (uintptr_t addr, const char *key, char *line, long cap)
{
  struct lines l = { .fd = sys_openat ("/proc/self/smaps", O_RDONLY | O_CLOEXEC) };
  if (l.fd < 0)
    return -1;
  int in = 0, found = -1;
  while (found != 0 && next_line (&l, line, cap) >= 0)
    {
      const char *s = line;
      if (in)
	{
	  int k = 0;
	  while (key[k] != '\0' && s[k] == key[k])
	    k++;
	  if (key[k] == '\0')
	    {
	      char *d = line;
	      for (s += k; (*d++ = *s++) != '\0';)
		;
	      found = 0;
	      continue;
	    }
	}
      /* A mapping's first line: "LO-HI perms ..."; the others are "Name: value".  */
      uint64_t lo = parse_number (&s, 16);
      if (*s != '-' || s == line)
	continue;
      s++;
      uint64_t hi = parse_number (&s, 16);
      in = *s == ' ' && addr >= lo && addr < hi;
    }
  sys_close (l.fd);
  return found;
}

#ifdef STUB_PROT_BTI
/* STUB_PROT_BTI if the mapping at ADDR is guarded (arm64 BTI: "bt" among
   its VmFlags in /proc/self/smaps), else 0; -1 when that cannot be told.
   The kernel guards a BTI-marked static program, ld.so a BTI-marked
   program or library (where the CPU has BTI and the C library does it), by
   mprotect(PROT_BTI); a fresh mapping of a chunk must keep exactly that,
   neither dropping the guard nor adding one the loader chose not to set.
   Read once (ST->guard), and only where a chunk is mapped afresh.  */
static long
guarded (struct stub *st, uintptr_t addr)
{
  if (st->guard != -2)
    return st->guard;
  st->guard = -1;
  char flags[256];
  if (smaps_value (addr, "VmFlags:", flags, sizeof flags) != 0)
    return -1;
  st->guard = 0;
  for (const char *s = flags; *s != '\0'; s++)
    if (s[0] == ' ' && s[1] == 'b' && s[2] == 't' && (s[3] == ' ' || s[3] == '\0'))
      st->guard = STUB_PROT_BTI;
  return st->guard;
}

#endif
/* The protection of the text at ADDR for a new mapping of it: read and
   execute, and on arm64 the BTI guard exactly where the text has it; -1
   when that cannot be told.  */
static long
text_prot (struct stub *st, uintptr_t addr)
{
  long prot = PROT_READ | PROT_EXEC;
#ifdef STUB_PROT_BTI
  long guard = guarded (st, addr);
  if (guard < 0)
    return -1;
  prot |= guard;
#else
  (void) st;
  (void) addr;
#endif
  return prot;
}

/* Map CHUNK (file offset OFFSET) afresh from the object's file, so that the
   kernel frees the page table that covered it and a fault can map it with
   one PMD entry.  The chunk's pages are all clean file pages, so nothing is
   lost.  Return 0, or -1.  */
static int
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
  touch (chunk);
  if (chunk_pmd_mapped (st, chunk))
    return 1;
  if (!fallback || remapped || remap_chunk (st, chunk, offset) != 0)
    return 0;
  touch (chunk);
  return chunk_pmd_mapped (st, chunk);
}

/* Evict chunk I of the range at START (file offset FILE_OFFSET),
   which this process does not map any more, and read it back as one PMD
   folio; the caller holds the file's lock, so no other stub repairs it.
   Set ST->stop when the kernel shows it cannot, or may not.  Another
   process may map some of the chunk's pages, so that they cannot be
   evicted: ld.so of a program starting meanwhile (a shared object's first
   chunk often holds its symbols and relocations), a stub for a moment, a
   program that runs, or a program starting meanwhile that the scheduler
   stopped between touching the chunk and letting it go.  Without WAIT,
   return 0 then, for a second round; with WAIT, try again 1 ms later,
   while the stub has waited less than MAX_SLEEP_MS in all.  A chunk read
   back in part (another process faulted it in meanwhile) is tried
   REPAIR_READS times at most.  Return 1 when done with the chunk.  */
static int
repair_chunk (struct stub *st, uintptr_t start, uint64_t i, uint64_t file_offset, int wait)
{
  uint64_t pmd = st->pmd;
  uintptr_t chunk = start + i * pmd;
  uint64_t offset = file_offset + i * pmd;
  for (int attempt = 0, reads = 0; reads < REPAIR_READS; attempt++)
    {
      if (attempt > 0 && !wait_1ms (st))
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
	{
	  st->stop = 1;
	  return 1;
	}
      if (cached != 0)
	{
	  if (!wait)
	    return 0;
	  continue;
	}
      if (refault (st, chunk, offset, 1))
	return 1;
      reads++;
      /* Read back from an empty cache and still not PMD-mapped.  Read back
	 whole, in small folios: the file system cannot give this file PMD
	 folios.  In part: another process faulted it in meanwhile.  (The
	 touch of the last page waits for the read of the rest: mincore
	 counts only pages read.)  */
      touch (chunk + pmd - st->page);
      if (cached_pages (st, chunk) == (long) (pmd / st->page))
	{
	  st->stop = 1;
	  st->no_file_folios = 1;
	  return 1;
	}
    }
  return 1;
}

/* struct flock as 64-bit Linux has it.  The lock's holder shows how far
   it has come with a read lock (an open file description lock, which any
   reader may take) on bytes [0, STEPS) of the file, one byte longer at
   every chunk; set it (F_RDLCK) or drop it (F_UNLCK).  Waiters read it
   (F_OFD_GETLK) to tell a holder that works from one that only holds the
   lock.  */
struct ofd_lock
{
  short type, whence;
  int64_t start, len;
  int pid, pad;
};

static void
show_progress (struct stub *st, short type, int64_t steps)
{
  struct ofd_lock l = { .type = type, .whence = 0, .start = 0, .len = steps };
  syscall6 (SYS_fcntl, st->file, F_OFD_SETLK, (long) &l, 0, 0, 0);
}

/* The progress another process shows (see show_progress), or -1.  */
static long
holder_progress (struct stub *st)
{
  struct ofd_lock l = { .type = F_WRLCK, .whence = 0, .start = 0, .len = 0 };
  if (syscall6 (SYS_fcntl, st->file, F_OFD_GETLK, (long) &l, 0, 0, 0) != 0 || l.type != F_RDLCK)
    return -1;
  return (long) l.len;
}

/* Take the exclusive lock on the object's file, so that only one process
   at a time evicts and reads back its chunks: two at once spoil each
   other's work (a fault in a chunk another is evicting reads the missing
   pages as small folios).  While another process holds it, poll it every
   millisecond, for as long as that process shows progress (see
   show_progress), but for at most LOCK_IDLE_MS without progress and
   LOCK_MAX_MS in all (per LOCK_UNIT of chunk size once the holder has
   shown progress).  Return 1 when locked, 0 when flock cannot be used
   (repair without it), -1 when the wait ran out (leave the repair to the
   holder).  */
static int
lock_file (struct stub *st)
{
  long seen = -1;
  uint64_t units = st->pmd > LOCK_UNIT ? st->pmd / LOCK_UNIT : 1;
  for (uint64_t idle = 0, waited = 0;; idle++, waited++)
    {
      long err = syscall6 (SYS_flock, st->file, LOCK_EX | LOCK_NB, 0, 0, 0, 0);
      if (err == 0)
	return 1;
      if (err != -EWOULDBLOCK)
	return 0;
      long now = holder_progress (st);
      if (now != seen)
	{
	  seen = now;
	  idle = 0;
	}
      uint64_t scale = seen >= 0 ? units : 1;
      if (idle >= LOCK_IDLE_MS * scale || waited >= LOCK_MAX_MS * scale)
	return -1;
      sleep_1ms ();
    }
}

/* Whether the object's file system is ext4 mounted data=journal, which
   gives no file large folios (so no PMD folios) on any kernel: from the
   line of /proc/self/mountinfo with the mapping's device (its third field,
   MAJOR:MINOR in decimal) and its super options (after " - TYPE SOURCE ").
   Only known after find_mapping.  */
static int
ext4_journals_data (struct stub *st)
{
  if (st->fs != EXT4_SUPER_MAGIC || !st->map.found)
    return 0;
  struct lines l = { .fd = sys_openat ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) };
  if (l.fd < 0)
    return 0;
  char line[512];
  int journal = 0;
  while (next_line (&l, line, sizeof line) >= 0)
    {
      const char *s = line;
      skip_field (&s);		/* mount ID */
      skip_field (&s);		/* parent ID */
      if (parse_number (&s, 10) != st->map.dev_major || *s++ != ':'
	  || parse_number (&s, 10) != st->map.dev_minor)
	continue;
      /* The options after the separator " - ".  */
      while (*s != '\0' && !(s[0] == ' ' && s[1] == '-' && s[2] == ' '))
	s++;
      static const char opt[] = "data=journal";
      for (; *s != '\0'; s++)
	{
	  int k = 0;
	  while (opt[k] != '\0' && s[k] == opt[k])
	    k++;
	  if (opt[k] == '\0' && (s[k] == ',' || s[k] == '\0'))
	    journal = 1;
	}
      break;
    }
  sys_close (l.fd);
  return journal;
}

/* Repair the chunks of the range at START (N chunks, file offset
   FILE_OFFSET) that populate_chunks found not PMD-mapped and dropped
   (DROPPED); the others stay as they are.  */
static void
repair_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset,
	      uint64_t *dropped)
{
  if (st->stop || chunks_count (dropped, n) == 0 || open_object_file (st) < 0)
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
  int locked = lock_file (st);
  if (locked < 0)
    return;
  /* Chunks with pages another process maps are left for a second round,
     by when the programs starting meanwhile have let them go.  */
  int64_t steps = 0;
  for (int wait = 0; wait <= 1; wait++)
    for (uint64_t i = 0; i < n && !st->stop; i++)
      if (chunk_in (dropped, i))
	{
	  if (locked)
	    show_progress (st, F_RDLCK, ++steps);
	  if (repair_chunk (st, start, i, file_offset, wait))
	    chunk_del (dropped, i);
	}
  /* Unlock before the descriptor is closed: a fork in another thread may
     have a copy of it, which would keep the locks.  */
  if (locked)
    {
      show_progress (st, F_UNLCK, 0);
      syscall6 (SYS_flock, st->file, LOCK_UN, 0, 0, 0, 0);
    }
}

/* MODE_REPAIR for one range of N chunks at START (file offset FILE_OFFSET).
   Return -1 when THP is not available at all.  */
static int
populate_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset)
{
  uint64_t len = n * st->pmd;
  if (sys_madvise (start, len, MADV_HUGEPAGE) != 0)
    return -1;
  sys_madvise (start, len, MADV_RANDOM);

  uint64_t touched[SET_WORDS], bad[SET_WORDS], dropped[SET_WORDS];
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
      /* The sample found small folios: populate the whole range.  */
      for (uint64_t i = 0; i < n; i++)
	if (chunk_in (touched, i))
	  chunk_del (touched, i);
	else
	  chunk_add (touched, i);
      count = populate_chunks (st, start, n, file_offset, touched, bad, dropped);
    }
  if (count > 0 && !st->stop)
    repair_range (st, start, n, file_offset, dropped);
  return 0;
}

/* The running kernel's version as KV (major, minor); 0 if unknown.  */
static unsigned
kernel_version (void)
{
  char uts[390];
  memset (uts, 0, sizeof uts);
  if (syscall6 (SYS_uname, (long) uts, 0, 0, 0, 0, 0) != 0)
    return 0;
  const char *s = uts + 130;	/* release */
  uint64_t major = parse_number (&s, 10);
  if (*s++ != '.')
    return 0;
  uint64_t minor = parse_number (&s, 10);
  if (major == 0 || major > 0xffff || minor > 0xffff)
    return 0;
  return KV ((unsigned) major, (unsigned) minor);
}

/* Whether transparent huge pages are off for the whole system ("never").  */
static int
thp_never (void)
{
  int fd = sys_openat ("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[96];
  long got = sys_read (fd, buf, sizeof buf - 1);
  sys_close (fd);
  static const char never[] = "[never]";
  for (long i = 0; i + 7 <= got; i++)
    {
      int k = 0;
      while (k < 7 && buf[i + k] == never[k])
	k++;
      if (k == 7)
	return 1;
    }
  return 0;
}

/* The type (f_type) of the file system that holds the object; 0 if
   unknown.  A program's is that of /proc/self/exe, which costs one system
   call; when ld.so was run explicitly (ld.so ./prog), that is ld.so's,
   which may be another file system: a wrong guess costs a miss, or at most
   one chunk read again per start (the file evicted is always the
   object's, matched by device and inode).  */
static uint64_t
file_system (struct stub *st)
{
  uint64_t buf[16];
  memset (buf, 0, sizeof buf);
  if ((st->p->flags & STUB_FLAG_EXE)
      && syscall6 (SYS_statfs, (long) "/proc/self/exe", (long) buf, 0, 0, 0, 0) == 0)
    return buf[0];
  char path[MAPS_LINE];
  if (find_mapping (st, st->self, path) == 0 && path[0] == '/'
      && syscall6 (SYS_statfs, (long) path, (long) buf, 0, 0, 0, 0) == 0)
    return buf[0];
  return 0;
}

/* What the stub does for this object, from what is cheap to know (see the
   top of the file).  */
static enum mode
choose_mode (struct stub *st)
{
  st->kernel = kernel_version ();
  st->table_stays = st->kernel == 0 || st->kernel < KV (6, 14);
  if (st->kernel != 0 && st->kernel < KV (5, 18))
    {
      st->no_file_folios = 1;
      return MODE_HINT;
    }
  uint64_t fs = st->fs = file_system (st);
  unsigned large_folios_since = 0;
  switch (fs)
    {
    case EXT4_SUPER_MAGIC:
      large_folios_since = KV (6, 16);
      break;
    case XFS_SUPER_MAGIC:
      large_folios_since = KV (5, 18);
      break;
    case BTRFS_SUPER_MAGIC:
      large_folios_since = KV (6, 17);
      break;
    case TMPFS_MAGIC:
      return MODE_HINT;
    }
  if (st->kernel != 0 && st->kernel < large_folios_since)
    {
      /* MODE_COLLAPSE finds out whether the kernel can collapse file
	 text; before 6.1 nothing can tell, and nothing can make PMD folios
	 of this file at start.  */
      st->no_file_folios = st->kernel < KV (6, 1);
      return st->kernel >= KV (6, 1) ? MODE_COLLAPSE : MODE_HINT;
    }
  if (syscall6 (SYS_prctl, PR_GET_THP_DISABLE, 0, 0, 0, 0, 0) > 0 || thp_never ())
    return MODE_NOTHING;
  return MODE_REPAIR;
}

/* MODE_COLLAPSE: the kernel can collapse file text into PMD folios
   (CONFIG_READ_ONLY_THP_FOR_FS) if MADV_COLLAPSE of the first chunk does
   not fail with EINVAL; then collapse every chunk (one that is already
   collapsed costs a look).  Return 0 when the kernel cannot collapse file
   text, else 1.  */
static int
collapse_all (struct stub *st)
{
  const struct stub_params *p = st->p;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uintptr_t start = st->self + (uintptr_t) p->range[r].start;
      uint64_t n = p->range[r].length / st->pmd;
      for (uint64_t i = 0; i < n && i < MAX_CHUNKS; i++)
	{
	  long err = sys_madvise (start + i * st->pmd, st->pmd, MADV_COLLAPSE);
	  if (err != 0 && err != -EAGAIN && err != -ENOMEM && err != -EBUSY)
	    return r != 0 || i != 0;
	  if (r == 0 && i == 0)
	    {
	      /* Supported (MADV_COLLAPSE itself refuses a process with
		 PR_SET_THP_DISABLE): unless THP is "never", which
		 MADV_COLLAPSE ignores, go on, and let khugepaged see the
		 text too.  */
	      if (thp_never ())
		return 1;
	      for (uint64_t k = 0; k < p->nranges && k < STUB_MAX_RANGES; k++)
		sys_madvise (st->self + (uintptr_t) p->range[k].start, p->range[k].length,
			     MADV_HUGEPAGE);
	    }
	}
    }
  return 1;
}

/* AnonHugePages of the mapping that holds ADDR, in kB, from
   /proc/self/smaps; -1 if it cannot be told.  */
static long
anon_huge_kb (uintptr_t addr)
{
  char value[256];
  if (smaps_value (addr, "AnonHugePages:", value, sizeof value) != 0)
    return -1;
  const char *s = value;
  skip_spaces (&s);
  return (long) parse_number (&s, 10);
}

/* Whether the N chunks of anonymous memory at START are all huge pages:
   with PAGEMAP_SCAN (6.7+) chunk by chunk, else from smaps.  */
static int
anon_huge (struct stub *st, uintptr_t start, uint64_t n)
{
  uint64_t bad[SET_WORDS];
  long small = scan_small_chunks (st, start, n, bad);
  if (small >= 0)
    return small == 0;
  long kb = anon_huge_kb (start);
  return kb >= 0 && (uint64_t) kb >= n * (st->pmd / 1024);
}

/* Name the anonymous mapping [START, START + LEN) after the object's file,
   "elfpmd copy of PATH" (the end of PATH where it is too long), so that
   /proc/PID/maps tells where it came from.  The kernel keeps the name when
   the mapping moves.  Kernels without CONFIG_ANON_VMA_NAME (and before
   5.17) refuse: the copy is then plain [anon].  */
static void
name_copy (struct stub *st, uintptr_t start, uint64_t len)
{
  char path[MAPS_LINE];
  if (find_mapping (st, st->self, path) != 0 || path[0] != '/')
    return;
  static const char prefix[] = "elfpmd copy of ";
  char name[80];		/* the kernel's limit, with the NUL */
  int at = 0;
  for (const char *c = prefix; *c != '\0'; c++)
    name[at++] = *c;
  long plen = 0;
  while (path[plen] != '\0')
    plen++;
  long room = (long) sizeof name - 1 - at;
  const char *from = path;
  if (plen > room)
    {
      from = path + plen - (room - 3);
      name[at++] = '.';
      name[at++] = '.';
      name[at++] = '.';
    }
  for (; *from != '\0'; from++)
    {
      /* Characters the kernel refuses in a name.  */
      char c = *from;
      int bad = c < 0x20 || c > 0x7e || c == '\\' || c == '`' || c == '$' || c == '[' || c == ']';
      name[at++] = bad ? '?' : c;
    }
  name[at] = '\0';
  syscall6 (SYS_prctl, PR_SET_VMA, PR_SET_VMA_ANON_NAME, (long) start, (long) len, (long) name, 0);
}

/* Put the file mapping of [TARGET, TARGET + LEN) (file offset OFFSET)
   back where a failed mremap left the range unmapped: mremap unmaps the
   target before it moves the source, and can fail after that.  */
static void
restore_text (struct stub *st, uintptr_t target, uint64_t len, uint64_t offset, long prot)
{
  unsigned char v;
  for (uint64_t at = 0; at < len; at += st->page)
    if (syscall6 (SYS_mincore, (long) (target + at), (long) st->page, (long) &v, 0, 0, 0)
	== -ENOMEM)
      {
	syscall6 (SYS_mmap, (long) target, (long) len, prot, MAP_PRIVATE | MAP_FIXED, st->file,
		  (long) offset);
	return;
      }
}

/* Copy the LEN bytes of text at TARGET (file offset OFFSET, whole chunks
   whose pages are all clean file pages) into anonymous huge pages and move
   them over TARGET.  Return 0, or -1 when the copy could not be made (no
   huge page, no memory): the text is as it was.  */
static int
copy_run (struct stub *st, uintptr_t target, uint64_t len, uint64_t offset)
{
  uint64_t pmd = st->pmd;
  long prot = text_prot (st, target);
  if (prot < 0)
    return -1;
  /* A PMD-aligned anonymous range: LEN + PMD bytes, the ends cut off.  */
  long raw = syscall6 (SYS_mmap, 0, (long) (len + pmd), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw < 0 && raw > -4096)
    return -1;
  uintptr_t copy = ((uintptr_t) raw + pmd - 1) & ~(uintptr_t) (pmd - 1);
  if (copy > (uintptr_t) raw)
    syscall6 (SYS_munmap, raw, (long) (copy - (uintptr_t) raw), 0, 0, 0, 0);
  if ((uintptr_t) raw + pmd > copy)
    syscall6 (SYS_munmap, (long) (copy + len), (long) ((uintptr_t) raw + pmd - copy), 0, 0, 0,
	      0);
  /* Huge pages first (a populate that fails leaves the pread's faults to
     make them), then the bytes, read from the file's page cache without
     mapping it.  */
  int ok = sys_madvise (copy, len, MADV_HUGEPAGE) == 0;
  if (ok)
    sys_madvise (copy, len, MADV_POPULATE_WRITE);
  for (uint64_t done = 0; ok && done < len;)
    {
      long got = syscall6 (SYS_pread64, st->file, (long) (copy + done), (long) (len - done),
			   (long) (offset + done), 0, 0);
      if (got <= 0)
	ok = 0;
      else
	done += (uint64_t) got;
    }
  if (ok && !anon_huge (st, copy, len / pmd))
    {
      /* Small pages where memory was short: collapse them (6.1+), or give
	 up; a copy in small pages would cost memory and gain nothing.  */
      sys_madvise (copy, len, MADV_COLLAPSE);
      ok = anon_huge (st, copy, len / pmd);
    }
  if (ok)
    ok = syscall6 (SYS_mprotect, (long) copy, (long) len, prot, 0, 0, 0) == 0;
  if (ok)
    {
      /* perf (6.1 at least) reads a perf map only for unnamed anonymous
	 memory.  */
      if (!st->perf_map)
	name_copy (st, copy, len);
      long got = syscall6 (SYS_mremap, (long) copy, (long) len, (long) len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, (long) target, 0);
      if (got != (long) target)
	{
	  restore_text (st, target, len, offset, prot);
	  ok = 0;
	}
    }
  if (!ok)
    {
      syscall6 (SYS_munmap, (long) copy, (long) len, 0, 0, 0, 0);
      return -1;
    }
  if (st->ncopies < MAX_COPIES)
    {
      st->copies[st->ncopies].start = target;
      st->copies[st->ncopies].length = len;
      st->copies[st->ncopies].file_offset = offset;
      st->ncopies++;
    }
  st->copied += len;
  return 0;
}

/* Copy the text into anonymous huge pages where the kernel cannot give the
   file PMD folios (see the top of the file): every run of chunks whose
   pages are all clean file pages, up to copy_max bytes in all, first to
   last; nothing under PR_SET_THP_DISABLE or THP "never", nothing on tmpfs.
   The first copy that cannot be made ends the copying.  */
static void
copy_all (struct stub *st)
{
  const struct stub_params *p = st->p;
  if (syscall6 (SYS_prctl, PR_GET_THP_DISABLE, 0, 0, 0, 0, 0) > 0 || thp_never ())
    return;
  if (st->fs == 0)
    st->fs = file_system (st);
  if (st->fs == TMPFS_MAGIC || open_object_file (st) < 0)
    return;
  uint64_t pmd = st->pmd;
  uint64_t budget = p->copy_max;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uintptr_t start = st->self + (uintptr_t) p->range[r].start;
      uint64_t n = p->range[r].length / pmd;
      if (n > MAX_CHUNKS)
	continue;
      for (uint64_t i = 0; i < n && budget >= pmd;)
	{
	  if (!chunk_clean (st, start + i * pmd))
	    {
	      i++;
	      continue;
	    }
	  uint64_t j = i + 1;
	  while (j < n && (j - i + 1) * pmd <= budget && chunk_clean (st, start + j * pmd))
	    j++;
	  if (copy_run (st, start + i * pmd, (j - i) * pmd, p->range[r].file_offset + i * pmd)
	      != 0)
	    return;
	  budget -= (j - i) * pmd;
	  i = j;
	}
    }
}

/* Whether the environment asks for a perf map: ELFPMD_PERF_MAP set to
   anything but "" or "0" in /proc/self/environ.  */
static int
perf_map_wanted (void)
{
  int fd = sys_openat ("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  static const char key[] = "ELFPMD_PERF_MAP=";
  const int keylen = (int) sizeof key - 1;
  char buf[512];
  int matched = 0;		/* characters of KEY matched; -1: another variable */
  long value = 0;
  char first = 0;
  int want = 0;
  long got;
  while (!want && (got = sys_read (fd, buf, sizeof buf)) > 0)
    for (long i = 0; i < got; i++)
      {
	char c = buf[i];
	if (c == '\0')
	  {
	    if (matched == keylen && value != 0 && !(value == 1 && first == '0'))
	      want = 1;
	    matched = 0;
	    value = 0;
	  }
	else if (matched == keylen)
	  {
	    if (value++ == 0)
	      first = c;
	  }
	else if (matched >= 0)
	  matched = c == key[matched] ? matched + 1 : -1;
      }
  sys_close (fd);
  return want;
}

/* The little-endian number of SIZE bytes at P.  */
static uint64_t
get_le (const unsigned char *p, int size)
{
  uint64_t v = 0;
  for (int k = size; k-- > 0;)
    v = v << 8 | p[k];
  return v;
}

/* Read exactly LEN bytes of the object's file at OFFSET into BUF.  */
static int
read_at (struct stub *st, void *buf, uint64_t len, uint64_t offset)
{
  return syscall6 (SYS_pread64, st->file, (long) buf, (long) len, (long) offset, 0, 0)
	 == (long) len;
}

/* A buffered writer of the perf map.  */
struct out
{
  int fd;
  int used;
  char buf[2048];
};

static void
out_flush (struct out *o)
{
  for (int done = 0; done < o->used;)
    {
      long got = syscall6 (SYS_write, o->fd, (long) (o->buf + done), o->used - done, 0, 0, 0);
      if (got <= 0)
	break;
      done += (int) got;
    }
  o->used = 0;
}

static void
out_hex (struct out *o, uint64_t v)
{
  char digits[16];
  int n = 0;
  do
    digits[n++] = "0123456789abcdef"[v & 15];
  while ((v >>= 4) != 0);
  while (n > 0)
    o->buf[o->used++] = digits[--n];
}

/* Write /tmp/perf-PID.map (never over an existing file): one line
   "ADDRESS SIZE NAME" (hexadecimal) per function symbol of the object's
   file (.symtab, else .dynsym) that overlaps the copied text, at its
   run-time address, which is what perf report reads for addresses in
   anonymous executable memory.  ELF64 little-endian only, as the stub's
   machines are.  */
static void
write_perf_map (struct stub *st)
{
  unsigned char eh[64];
  if (st->ncopies == 0 || !read_at (st, eh, sizeof eh, 0) || eh[4] != 2 || eh[5] != 1)
    return;
  uint64_t phoff = get_le (eh + 32, 8), shoff = get_le (eh + 40, 8);
  uint64_t phnum = get_le (eh + 56, 2), shnum = get_le (eh + 60, 2);
  /* The load bias, from the PT_LOAD that holds the first copy.  */
  uint64_t fo = st->copies[0].file_offset;
  int found = 0;
  uintptr_t bias = 0;
  for (uint64_t k = 0; k < phnum && !found; k++)
    {
      unsigned char ph[56];
      if (!read_at (st, ph, sizeof ph, phoff + k * 56))
	return;
      uint64_t off = get_le (ph + 8, 8), filesz = get_le (ph + 32, 8);
      if (get_le (ph, 4) == 1 && fo >= off && fo - off < filesz)
	{
	  bias = st->copies[0].start - (uintptr_t) (get_le (ph + 16, 8) + (fo - off));
	  found = 1;
	}
    }
  /* The symbol table: SHT_SYMTAB, else SHT_DYNSYM; and its strings.  */
  uint64_t sym_off = 0, sym_size = 0, str_off = 0, str_size = 0;
  for (int want = 2; found && want <= 11 && sym_size == 0; want += 9)
    for (uint64_t k = 0; k < shnum; k++)
      {
	unsigned char sh[64], link[64];
	if (!read_at (st, sh, sizeof sh, shoff + k * 64))
	  return;
	if (get_le (sh + 4, 4) != (uint64_t) want)
	  continue;
	uint64_t l = get_le (sh + 40, 4);
	if (l >= shnum || !read_at (st, link, sizeof link, shoff + l * 64))
	  return;
	sym_off = get_le (sh + 24, 8);
	sym_size = get_le (sh + 32, 8);
	str_off = get_le (link + 24, 8);
	str_size = get_le (link + 32, 8);
	break;
      }
  if (sym_size == 0)
    return;
  char path[32] = "/tmp/perf-";
  char *d = path + 10;
  put_number (&d, (uint64_t) syscall6 (SYS_getpid, 0, 0, 0, 0, 0, 0));
  for (const char *c = ".map"; *c != '\0'; c++)
    *d++ = *c;
  *d = '\0';
  struct out o = { .used = 0 };
  o.fd = (int) syscall6 (SYS_openat, AT_FDCWD, (long) path,
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644, 0, 0);
  if (o.fd < 0)
    return;
  unsigned char syms[24 * 85];
  for (uint64_t at = 0; at + 24 <= sym_size;)
    {
      uint64_t chunk = sym_size - at < sizeof syms ? (sym_size - at) / 24 * 24 : sizeof syms;
      if (!read_at (st, syms, chunk, sym_off + at))
	break;
      at += chunk;
      for (uint64_t k = 0; k < chunk; k += 24)
	{
	  const unsigned char *s = syms + k;
	  uint64_t name = get_le (s, 4), value = get_le (s + 8, 8), size = get_le (s + 16, 8);
	  uintptr_t addr = (uintptr_t) value + bias;
	  /* A function that overlaps a copy: perf looks a sample's address
	     up among the symbols that hold it.  */
	  int inside = 0;
	  for (int c = 0; c < st->ncopies; c++)
	    inside |= addr < st->copies[c].start + st->copies[c].length
		      && addr + size > st->copies[c].start;
	  /* STT_FUNC, with a size and a name.  */
	  if ((s[4] & 15) != 2 || size == 0 || !inside || name == 0 || name >= str_size)
	    continue;
	  char text[256];
	  long got = syscall6 (SYS_pread64, st->file, (long) text, (long) sizeof text,
			       (long) (str_off + name), 0, 0);
	  if (got <= 0)
	    continue;
	  if (o.used > (int) sizeof o.buf - 300)
	    out_flush (&o);
	  out_hex (&o, addr);
	  o.buf[o.used++] = ' ';
	  out_hex (&o, size);
	  o.buf[o.used++] = ' ';
	  for (long c = 0; c < got && c < (long) sizeof text - 1 && text[c] != '\0'; c++)
	    o.buf[o.used++] = text[c] == '\n' ? '?' : text[c];
	  o.buf[o.used++] = '\n';
	}
    }
  out_flush (&o);
  sys_close (o.fd);
}

HIDDEN void stub_main (uintptr_t self, const struct stub_params *p);

void
stub_main (uintptr_t self, const struct stub_params *p)
{
  struct stub st = {
    .p = p, .self = self, .pmd = p->pmd, .page = stub_page_size (), .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1,
#ifdef STUB_PROT_BTI
    .guard = -2,
#endif
  };
  /* A chunk is one PMD of the running kernel, or the stub does nothing: a
     file planned for another page size (an arm64 kernel with 16 KiB pages
     running a file planned for 4 KiB, whose PMD is 32 MiB, not 2 MiB), or
     for another chunk size (--pmd-size), would have the stub populate and
     evict chunks that can never be PMD-mapped.  */
  if (st.page == 0 || st.pmd != STUB_KERNEL_PMD (st.page))
    return;
  enum mode mode = choose_mode (&st);
  if (mode == MODE_COLLAPSE)
    st.no_file_folios = !collapse_all (&st);
  else if (mode == MODE_HINT || mode == MODE_REPAIR)
    for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
      {
	uintptr_t start = self + (uintptr_t) p->range[r].start;
	uint64_t len = p->range[r].length;
	uint64_t n = len / st.pmd;
	if (n == 0 || n > MAX_CHUNKS)
	  continue;
	if (mode == MODE_HINT)
	  {
	    if (sys_madvise (start, len, MADV_HUGEPAGE) != 0)
	      break;
	  }
	else if (populate_range (&st, start, n, p->range[r].file_offset) != 0)
	  break;		/* no THP here: leave everything as it is */
      }
  if (mode != MODE_NOTHING && st.no_file_folios && (p->flags & STUB_FLAG_COPY))
    {
      st.perf_map = perf_map_wanted ();
      copy_all (&st);
      if (st.copied != 0 && st.perf_map)
	write_perf_map (&st);
    }
  if (st.pagemap >= 0)
    sys_close (st.pagemap);
  if (st.file >= 0)
    sys_close (st.file);
  if (st.exe >= 0)
    sys_close (st.exe);
}
