/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A fake kernel for the stub's unit tests: the runtime built for the host
   (stub/host-syscall.h) makes every system call through syscall6, which
   this answers from a model the test sets up: files by path (contents,
   how much one read returns, statfs type, device and inode), uname's
   release, prctl's answers (seccomp's among them), a clock that sleeping advances, and a log of
   every call.  What a test needs beyond that (locks, the page cache, the
   page table) it answers in fake.hook.  */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_MAX_FILES 16
#define FAKE_MAX_FDS 64
#define FAKE_MAX_CALLS 4096
#define FAKE_MAX_OPENED 64

struct fake_file
{
  const char *path;
  const void *data;		/* contents (read, pread); NULL: LEN zero bytes */
  size_t len;
  long max_read;		/* one read returns at most this; 0: no limit */
  int open_errno;		/* openat fails with this */
  uint64_t fs_magic;		/* statfs's and fstatfs's f_type; 0: they fail */
  uint64_t dev, ino;		/* fstat, in the kernel's encoding */
  unsigned mode;		/* fstat's st_mode; 0: a regular file */
};

struct fake_call
{
  long n, a, b, c, d, e, f;
};

/* A test's own answer to a call: return 1 and set *RET to answer it, 0 to
   leave it to the model.  */
typedef int fake_hook_fn (const struct fake_call *call, long *ret);

struct fake_state
{
  struct fake_file files[FAKE_MAX_FILES];
  int nfiles;
  const char *release;		/* uname's release; NULL: uname fails */
  long thp_disable;		/* PR_GET_THP_DISABLE */
  long dumpable;		/* PR_GET_DUMPABLE */
  long seccomp;			/* PR_GET_SECCOMP: 0 none, 2 a filter; < 0 its error */
  uint64_t page;		/* stub_page_size () */
  uint64_t now_ns;		/* advanced by clock_nanosleep */
  uint64_t slept_ns;		/* the sleeps asked for */
  uint64_t oversleep_ns;	/* what each sleep takes more (a busy machine) */
  fake_hook_fn *hook;
  /* The log: every call, how many of each, the paths opened.  */
  struct fake_call calls[FAKE_MAX_CALLS];
  int ncalls;
  long count[512];
  char opened[FAKE_MAX_OPENED][256];
  long opened_flags[FAKE_MAX_OPENED];
  int nopened;
  uintptr_t touched[FAKE_MAX_CALLS];
  int ntouched;
  /* Bytes of anonymous memory mapped and not unmapped yet.  */
  long anon_bytes;
  /* Shared anonymous mappings (real ones, of the test process): each is
     shown at the end of the file /proc/self/maps as the kernel shows it,
     "/dev/zero (deleted)".  NO_SHARED: mmap refuses them (ENOMEM).  */
  int no_shared;
  int nshared;
  uintptr_t shared[8];
  size_t shared_len[8];
  char maps_tail[8 * 128];
  size_t maps_tail_len;
  /* What write(2) wrote, to any descriptor.  */
  char written[1 << 16];
  size_t nwritten;
};

extern struct fake_state fake;

/* CLOCK_MONOTONIC after fake_reset: the uptime of a machine that runs.  */
#define FAKE_CLOCK_START_NS 1000000000000ULL

/* Forget everything: no files, release "6.18.0", THP enabled, 4 KiB pages;
   the shared anonymous mappings unmapped.  */
void fake_reset (void);
/* Add a file; DATA of LEN bytes (a string's strlen when LEN is 0 and DATA is
   not NULL; LEN zero bytes when DATA is NULL).  Return the model's entry, to set more of it.  */
struct fake_file *fake_file (const char *path, const void *data, size_t len);
/* How many calls of system call N were made.  */
long fake_calls (long n);
/* Whether PATH was opened (with any flags having ALL of FLAGS).  */
int fake_opened (const char *path, long flags);
/* How many descriptors of the model are open.  */
int fake_open_fds (void);
/* Whether any path was opened with O_CREAT.  */
int fake_created (void);

#endif
