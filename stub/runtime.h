/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: what the parts of its runtime share.

   The runtime is freestanding and position-independent: no libc, raw
   system calls through SYSCALL_H (one header per architecture, and
   host-syscall.h for the unit tests, which puts a fake kernel behind
   every call), no writable data, no relocations.  Every error is
   ignored: whatever fails, the program goes on exactly as it would
   without the stub.  main.c says what the stub does and which file holds
   each part.  */
#ifndef ELFPMD_STUB_RUNTIME_H
#define ELFPMD_STUB_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "stub_params.h"
#include SYSCALL_H

#define MADV_RANDOM 1
#define MADV_DONTNEED 4
#define MADV_DONTFORK 10
#define MADV_HUGEPAGE 14
#define MADV_POPULATE_WRITE 23
#define MADV_COLLAPSE 25
#define POSIX_FADV_DONTNEED 4
#define PR_GET_DUMPABLE 3
#define PR_GET_SECCOMP 21
#define PR_GET_THP_DISABLE 42
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 1
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
#define AT_SECURE 23
#define AT_EXECFN 31
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE 2
#define SYNC_FILE_RANGE_WAIT_AFTER 4
#define MS_ASYNC 1
#define EINVAL 22
#define EWOULDBLOCK 11
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
#define EAGAIN 11
#define ENOMEM 12
#define EBUSY 16

#define EXT4_SUPER_MAGIC 0xef53
#define XFS_SUPER_MAGIC 0x58465342
#define BTRFS_SUPER_MAGIC 0x9123683e
#define TMPFS_MAGIC 0x01021994
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
/* A file system mountinfo names that this list does not know.  */
#define OTHER_FS_MAGIC 1

/* A kernel version as a number that compares.  */
#define KV(major, minor) ((major) << 16 | (minor))

/* Chunks a range may have for the stub to track them: 8 GiB of 2 MiB
   chunks, 128 GiB of 32 MiB ones.  */
#define MAX_CHUNKS 4096
#define SET_WORDS (MAX_CHUNKS / 64)

/* A /proc/self/maps line long enough for any path that can be opened.  */
#define MAPS_LINE 4352

/* How many times the stub reads one chunk back at most, and how long it
   waits, in all, for pages other processes keep mapped.  */
#define REPAIR_READS 2
#define MAX_SLEEP_MS 8

/* The longest a start waits for other processes, whatever they do: for
   the file's lock and for pages they keep mapped together (lock.c), in
   time that passes (CLOCK_MONOTONIC), however long a sleep of 1 ms
   takes; plus FOLLOW_MS for each 2 MiB of the start's chunks that the
   lock's holder reads back as PMD folios meanwhile (lock.c): time a
   holder earns only by doing the start's work, which the start would
   have spent doing it.  */
#define WAIT_MAX_MS 20
#define FOLLOW_MS 4

/* The waits of the whole process, whatever number of objects with a stub
   it loads (lock.c): one page of shared anonymous memory, made by the
   first stub that waits and found by the others in /proc/self/maps.  */
struct ledger
{
  uint64_t magic;		/* LEDGER_MAGIC */
  uint64_t self;		/* its own address */
  uint64_t waited;		/* nanoseconds waited by every stub of the process */
};
#define LEDGER_MAGIC 0x6c70666c65647772ULL

/* Runs of copies the stub remembers, for the perf map.  */
#define MAX_COPIES 16

/* Parts of the object's other mappings the stub advises at most
   (guard.c): two per text range for each mapping of the file.  */
#define MAX_GUARDS 16

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

/* A part of a mapping of the object's file near the text (guard.c).  */
struct guard
{
  uint64_t start, end;
  int writable;
};

/* A range of pages PAGEMAP_SCAN reports.  */
struct page_region
{
  uint64_t start, end, categories;
};

/* What the stub needs more of than a small stack holds.  A library's
   initialiser may run on a thread's 16 KiB stack (PTHREAD_STACK_MIN) after
   ld.so has used part of it, and a program may start under a small
   ulimit -s, so every buffer of more than a few hundred bytes lives in
   one anonymous mapping, made the first time one is needed (scratch.c)
   and unmapped before the stub returns.  tests/run-stub.sh checks the
   deepest path through the stub's calls against STUB_STACK_MAX.  */
struct scratch
{
  char line[MAPS_LINE];		/* a line of /proc/self/maps, then its path */
  char read_buf[1024];		/* what next_line reads */
  uint64_t touched[SET_WORDS], bad[SET_WORDS], dropped[SET_WORDS];
  uint64_t evicted[SET_WORDS];	/* chunks seen evicted by the lock's holder */
  uint64_t entries[128];	/* of /proc/self/pagemap */
  unsigned char vec[512];	/* of mincore */
  struct page_region regions[32];	/* of PAGEMAP_SCAN */
  uint64_t auxv[64];		/* /proc/self/auxv */
  struct copy copies[MAX_COPIES];
  struct guard guards[MAX_GUARDS];	/* of guard_neighbours */
  char ledger_line[128];		/* a line of /proc/self/maps, cut (lock.c) */
  int nguards;
  unsigned char syms[24 * 85];	/* the perf map's symbols */
  char out[2048];		/* the perf map's lines */
};

/* The stack the stub's deepest call path may use, the entry's frame
   included (tests/run-stub.sh).  */
#define STUB_STACK_MAX 2048

/* A line of /proc/self/maps (parse_maps_line).  */
struct maps_line
{
  uint64_t lo, hi, offset, dev_major, dev_minor, ino;
  int writable;
  int shared_rw;		/* "rw-s" */
};

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
  const char *execfn;		/* a program's AT_EXECFN, when not AT_SECURE; or NULL */
  int pagemap;			/* /proc/self/pagemap; -1 none, -2 not opened yet */
  int scan;			/* PAGEMAP_SCAN works: 1, does not: 0, not known yet: -1 */
  int file;			/* the object's file; -1 none, -2 not looked for yet */
  int exe;			/* /proc/self/exe for cachestat (cache_file); -2 not opened yet */
  int cachestat;		/* cachestat works: 1, does not: 0, not known yet: -1 */
  int filtered;			/* filtered (): 1 or 0; -1 not known yet */
  int stop;			/* no more repairs: the kernel cannot, or may not */
  int table_stays;		/* MADV_DONTNEED keeps page tables (before 6.14) */
  uint64_t waited;		/* nanoseconds waited for other processes */
  uint64_t page_waits;		/* of those, for pages they keep mapped */
  uint64_t earned;		/* nanoseconds the lock's holder earned (FOLLOW_MS) */
  struct ledger *ledger;	/* the process's waits (lock.c); NULL: not found yet */
  int no_ledger;		/* none can be found or made: no waiting */
  struct mapping map;		/* filled by find_mapping */
  uint64_t edge;		/* edge_chunks (), once EDGE_KNOWN */
  int edge_known;
  int no_file_folios;		/* the kernel cannot give this file PMD folios */
  int pmd_folios_seen;		/* it gave this start a PMD-mapped chunk */
  int no_repair;		/* never drop or repair a chunk (overlayfs) */
  int guarded;			/* guard_neighbours (); -1: not tried yet */
  int secure;			/* secure (); -1: not known yet */
  int auxv_read;		/* read_auxv () was called */
  uint64_t at_entry;		/* AT_ENTRY of the auxiliary vector; 0 if unknown */
  int at_secure;		/* AT_SECURE of it; -1 if unknown */
  int ncopies;			/* runs copied into anonymous huge pages (scratch) */
  int perf_map;			/* ELFPMD_PERF_MAP asks for a perf map */
  struct scratch *scratch;	/* made by scratch (); NULL until then */
  int no_scratch;		/* it could not be made */
#ifdef STUB_PROT_BTI
  long guard;			/* guarded (): -2 not looked at yet */
#endif
};

/* Text reading: lines of a /proc file, read into a buffer of scratch ().  */
struct lines
{
  int fd;
  long have, at;
  char *buf;
};

static inline long
sys_madvise (uintptr_t addr, uint64_t len, int advice)
{
  return syscall6 (SYS_madvise, (long) addr, (long) len, advice, 0, 0, 0);
}

static inline int
sys_openat (const char *path, int flags)
{
  return (int) syscall6 (SYS_openat, AT_FDCWD, (long) path, flags, 0, 0, 0);
}

static inline void
sys_close (int fd)
{
  syscall6 (SYS_close, fd, 0, 0, 0, 0, 0);
}

static inline long
sys_read (int fd, void *buf, long len)
{
  return syscall6 (SYS_read, fd, (long) buf, len, 0, 0, 0);
}

/* Whether bit I of the chunk set SET is on.  */
static inline int
chunk_in (const uint64_t *set, uint64_t i)
{
  return (set[i / 64] >> (i % 64)) & 1;
}

static inline void
chunk_add (uint64_t *set, uint64_t i)
{
  set[i / 64] |= (uint64_t) 1 << (i % 64);
}

static inline void
chunk_del (uint64_t *set, uint64_t i)
{
  set[i / 64] &= ~((uint64_t) 1 << (i % 64));
}

/* Read the first byte of CHUNK: enough to fault the whole chunk in.  */
static inline void
touch (uintptr_t chunk)
{
#ifdef STUB_FAKE_TOUCH
  stub_fake_touch (chunk);	/* host-syscall.h: the fake kernel's page table */
#else
  __asm__ volatile ("" : : "r" (*(volatile const char *) chunk) : "memory");
#endif
}

/* libc.c: what the compiler may call (the host build has a C library).  */
#ifdef STUB_HOST
#include <string.h>
#else
HIDDEN void *memset (void *dest, int c, unsigned long n);
#endif

/* scratch.c: the buffers (struct scratch), mapped the first time they are
   needed; NULL when they cannot be (no memory, a seccomp filter).  */
HIDDEN struct scratch *scratch (struct stub *st);
HIDDEN void scratch_free (struct stub *st);

/* chunks.c: sets of chunks, one bit per chunk of a range.  */
HIDDEN void chunks_all (uint64_t *set, uint64_t n);
HIDDEN void chunks_none (uint64_t *set, uint64_t n);
HIDDEN uint64_t chunks_count (const uint64_t *set, uint64_t n);

/* proc.c: reading /proc and /sys.  */
HIDDEN int lines_open (struct stub *st, struct lines *l, const char *path);
HIDDEN long next_line (struct lines *l, char *line, long cap);
HIDDEN uint64_t parse_number (const char **s, unsigned base);
HIDDEN void skip_spaces (const char **s);
HIDDEN void skip_field (const char **s);
HIDDEN void put_number (char **d, uint64_t v);
HIDDEN long read_number (const char *path);
HIDDEN int parse_maps_line (const char **s, struct maps_line *e);
HIDDEN int find_mapping (struct stub *st, uintptr_t addr);
HIDDEN int smaps_value (struct stub *st, uintptr_t addr, const char *key, char *line, long cap);
HIDDEN uint64_t mount_of (struct stub *st, uint64_t major, uint64_t minor, int *data_journal);
HIDDEN int ext4_journals_data (struct stub *st);
HIDDEN int perf_map_wanted (void);
HIDDEN int read_auxv (struct stub *st);

/* facts.c: the kernel, the file system, the object's file.  */
HIDDEN unsigned kernel_version (void);
HIDDEN const char *initial_execfn (const uint64_t *sp);
HIDDEN int thp_never (void);
HIDDEN uint64_t file_system (struct stub *st);
HIDDEN int secure (struct stub *st);
HIDDEN int filtered (struct stub *st);
HIDDEN uint64_t edge_chunks (struct stub *st);
HIDDEN int open_object_file (struct stub *st);
HIDDEN long text_prot (struct stub *st, uintptr_t addr);

/* policy.c: what the stub does for this object.  */
HIDDEN enum mode choose_mode (struct stub *st);

/* probe.c: the page cache and this process's page table.  */
HIDDEN int chunk_clean (struct stub *st, uintptr_t chunk);
HIDDEN long cached_pages (struct stub *st, uintptr_t chunk);
HIDDEN int chunk_uncached (struct stub *st, uintptr_t chunk, uint64_t offset);
HIDDEN int page_cached (struct stub *st, uintptr_t addr);
HIDDEN int touch_harmless (struct stub *st, uintptr_t chunk, int first);
HIDDEN long scan_small_chunks (struct stub *st, uintptr_t start, uint64_t n, uint64_t *bad);
HIDDEN int chunk_pmd_mapped (struct stub *st, uintptr_t chunk);
HIDDEN int touch_pmd (struct stub *st, uintptr_t chunk);

/* populate.c: MODE_REPAIR's first steps.  */
HIDDEN int populate_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset);

/* guard.c: the text's neighbours read no small folios into it.  */
HIDDEN int guard_neighbours (struct stub *st);

/* Whether chunk I of a range of N lies within EDGE chunks of its ends
   (edge_chunks), where faults in the file's other mappings read.  */
static inline int
at_ends (uint64_t i, uint64_t n, uint64_t edge)
{
  return i < edge || n - i <= edge;
}

/* repair.c: evict and read back.  */
HIDDEN int remap_chunk (struct stub *st, uintptr_t chunk, uint64_t offset);
HIDDEN void repair_range (struct stub *st, uintptr_t start, uint64_t n, uint64_t file_offset,
			  uint64_t *dropped);

/* lock.c: one repairer at a time.  */
HIDDEN void sleep_1ms (void);
HIDDEN int wait_1ms (struct stub *st, uint64_t *waited, unsigned limit_ms);
HIDDEN int try_lock_file (struct stub *st);
HIDDEN int lock_wait (struct stub *st, uint64_t *idle, uint64_t *since, long done);
HIDDEN int lock_file (struct stub *st);
HIDDEN void unlock_file (struct stub *st);

/* copy.c: the --madvise=copy fallback.  */
HIDDEN void copy_all (struct stub *st);

/* perfmap.c: /tmp/perf-PID.map for the copied text.  */
HIDDEN void write_perf_map (struct stub *st);

#endif
