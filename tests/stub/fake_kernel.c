/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A fake kernel for the stub's unit tests (fake_kernel.h).  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include "fake_kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>


struct fake_state fake;

/* Anonymous mappings made on the heap (see SYS_mmap).  */
#define FAKE_MAX_HEAP 8
static void *heap[FAKE_MAX_HEAP];

/* Open descriptors: which file, where the next read starts.  Descriptors
   of the model are numbered from FD_BASE, so that a stray real one shows.  */
#define FD_BASE 100
static struct
{
  int file;			/* index into fake.files; -1: closed */
  size_t at;
} fds[FAKE_MAX_FDS];

void
fake_reset (void)
{
  for (int k = 0; k < fake.nshared; k++)
    munmap ((void *) fake.shared[k], fake.shared_len[k]);
  memset (&fake, 0, sizeof fake);
  fake.release = "6.18.0-1-amd64";
  fake.dumpable = 1;
  fake.page = 4096;
  fake.now_ns = FAKE_CLOCK_START_NS;
  for (int i = 0; i < FAKE_MAX_FDS; i++)
    fds[i].file = -1;
}

struct fake_file *
fake_file (const char *path, const void *data, size_t len)
{
  if (fake.nfiles == FAKE_MAX_FILES)
    return NULL;
  struct fake_file *f = &fake.files[fake.nfiles++];
  memset (f, 0, sizeof *f);
  f->path = path;
  f->data = data;
  f->len = len == 0 && data != NULL ? strlen (data) : len;
  f->ino = (uint64_t) fake.nfiles;
  return f;
}

long
fake_calls (long n)
{
  return n >= 0 && n < 512 ? fake.count[n] : 0;
}

int
fake_opened (const char *path, long flags)
{
  for (int i = 0; i < fake.nopened; i++)
    if (strcmp (fake.opened[i], path) == 0 && (fake.opened_flags[i] & flags) == flags)
      return 1;
  return 0;
}

int
fake_open_fds (void)
{
  int n = 0;
  for (int i = 0; i < FAKE_MAX_FDS; i++)
    n += fds[i].file >= 0;
  return n;
}

int
fake_created (void)
{
  for (int i = 0; i < fake.nopened; i++)
    if (fake.opened_flags[i] & O_CREAT)
      return 1;
  return 0;
}

uint64_t
stub_page_size (void)
{
  return fake.page;
}

void
stub_fake_touch (uintptr_t addr)
{
  if (fake.ntouched < FAKE_MAX_CALLS)
    fake.touched[fake.ntouched++] = addr;
}

static int
find_file (const char *path)
{
  for (int i = 0; i < fake.nfiles; i++)
    if (strcmp (fake.files[i].path, path) == 0)
      return i;
  return -1;
}

static struct fake_file *
fd_file (long fd)
{
  if (fd < FD_BASE || fd >= FD_BASE + FAKE_MAX_FDS || fds[fd - FD_BASE].file < 0)
    return NULL;
  return &fake.files[fds[fd - FD_BASE].file];
}

/* Copy up to LEN bytes of F at AT into BUF, as a read of it would.  */
static long
read_file (const struct fake_file *f, void *buf, long len, size_t at)
{
  if (len < 0)
    return -EINVAL;
  if (f->max_read > 0 && len > f->max_read)
    len = f->max_read;
  /* /proc/self/maps goes on with the shared anonymous mappings.  */
  size_t tail = strcmp (f->path, "/proc/self/maps") == 0 ? fake.maps_tail_len : 0;
  if (at >= f->len + tail)
    return 0;
  size_t n = f->len + tail - at < (size_t) len ? f->len + tail - at : (size_t) len;
  for (size_t k = 0; k < n; k++)
    ((char *) buf)[k] = at + k >= f->len ? fake.maps_tail[at + k - f->len]
      : f->data != NULL ? ((const char *) f->data)[at + k] : 0;
  return (long) n;
}

static long
do_openat (const char *path, long flags)
{
  if (fake.nopened < FAKE_MAX_OPENED)
    {
      strncpy (fake.opened[fake.nopened], path, sizeof fake.opened[0] - 1);
      fake.opened_flags[fake.nopened++] = flags;
    }
  int i = find_file (path);
  /* /proc/self/fd/N: the file descriptor N of the model is open on, opened
     again (open_object_file reopens an O_PATH descriptor so).  */
  static const char proc_fd[] = "/proc/self/fd/";
  if (i < 0 && strncmp (path, proc_fd, sizeof proc_fd - 1) == 0)
    {
      long fd = strtol (path + sizeof proc_fd - 1, NULL, 10);
      if (fd_file (fd) != NULL)
	i = fds[fd - FD_BASE].file;
    }
  if (i >= 0 && (flags & O_CREAT) && (flags & O_EXCL))
    return -EEXIST;
  if (i < 0 && (flags & O_CREAT))
    {
      /* A new, empty file; what is written to it goes to fake.written.  */
      static char names[FAKE_MAX_FILES][256];
      if (fake.nfiles == FAKE_MAX_FILES)
	return -ENOSPC;
      strncpy (names[fake.nfiles], path, sizeof names[0] - 1);
      fake_file (names[fake.nfiles], NULL, 0);
      i = fake.nfiles - 1;
    }
  if (i < 0)
    return -ENOENT;
  if (fake.files[i].open_errno != 0)
    return -fake.files[i].open_errno;
  for (int k = 0; k < FAKE_MAX_FDS; k++)
    if (fds[k].file < 0)
      {
	fds[k].file = i;
	fds[k].at = 0;
	return FD_BASE + k;
      }
  return -EMFILE;
}

static void
fill_stat (const struct fake_file *f, uint64_t *s)
{
  memset (s, 0, STAT_WORDS * sizeof *s);
  STAT_DEV (s) = f->dev;
  STAT_INO (s) = f->ino;
  s[2] = f->mode != 0 ? f->mode : S_IFREG | 0644;
}

long
syscall6 (long n, long a, long b, long c, long d, long e, long f)
{
  struct fake_call call = { n, a, b, c, d, e, f };
  if (fake.ncalls < FAKE_MAX_CALLS)
    fake.calls[fake.ncalls++] = call;
  if (n >= 0 && n < 512)
    fake.count[n]++;
  long ret;
  if (fake.hook != NULL && fake.hook (&call, &ret))
    return ret;
  struct fake_file *file;
  switch (n)
    {
    case SYS_openat:
      return do_openat ((const char *) b, c);
    case SYS_close:
      if (fd_file (a) == NULL)
	return -EBADF;
      fds[a - FD_BASE].file = -1;
      return 0;
    case SYS_read:
      if ((file = fd_file (a)) == NULL)
	return -EBADF;
      ret = read_file (file, (void *) b, c, fds[a - FD_BASE].at);
      if (ret > 0)
	fds[a - FD_BASE].at += (size_t) ret;
      return ret;
    case SYS_pread64:
      if ((file = fd_file (a)) == NULL)
	return -EBADF;
      return d < 0 ? -EINVAL : read_file (file, (void *) b, c, (size_t) d);
    case SYS_write:
      if (fd_file (a) == NULL)
	return -EBADF;
      if (c < 0 || fake.nwritten + (size_t) c > sizeof fake.written)
	return -ENOSPC;
      memcpy (fake.written + fake.nwritten, (const void *) b, (size_t) c);
      fake.nwritten += (size_t) c;
      return c;
    case SYS_fstat:
      if ((file = fd_file (a)) == NULL)
	return -EBADF;
      fill_stat (file, (uint64_t *) b);
      return 0;
    case SYS_statfs:
      {
	int i = find_file ((const char *) a);
	if (i < 0 || fake.files[i].fs_magic == 0)
	  return -ENOENT;
	memset ((void *) b, 0, 120);
	*(uint64_t *) b = fake.files[i].fs_magic;
	return 0;
      }
    case SYS_fstatfs:
      if ((file = fd_file (a)) == NULL)
	return -EBADF;
      if (file->fs_magic == 0)
	return -ENOSYS;
      memset ((void *) b, 0, 120);
      *(uint64_t *) b = file->fs_magic;
      return 0;
    case SYS_uname:
      if (fake.release == NULL)
	return -EFAULT;
      memset ((void *) a, 0, 390);
      strncpy ((char *) a, "Linux", 64);
      strncpy ((char *) a + 130, fake.release, 64);
      return 0;
    case SYS_prctl:
      if (a == 42)		/* PR_GET_THP_DISABLE */
	return fake.thp_disable;
      if (a == 3)		/* PR_GET_DUMPABLE */
	return fake.dumpable;
      if (a == 21)		/* PR_GET_SECCOMP */
	return fake.seccomp;
      return -EINVAL;
    case SYS_clock_gettime:
      {
	long *t = (long *) b;
	t[0] = (long) (fake.now_ns / 1000000000ULL);
	t[1] = (long) (fake.now_ns % 1000000000ULL);
	return 0;
      }
    case SYS_clock_nanosleep:
      {
	const long *t = (const long *) c;
	fake.now_ns += (uint64_t) (t[0] * 1000000000L + t[1]) + fake.oversleep_ns;
	fake.slept_ns += (uint64_t) (t[0] * 1000000000L + t[1]);
	return 0;
      }
    case SYS_getpid:
      return 4242;
    case SYS_mmap:
      if ((d & MAP_ANONYMOUS) && (d & MAP_SHARED) && a == 0)
	{
	  if (fake.no_shared || fake.nshared == 8)
	    return -ENOMEM;
	  void *p = mmap (NULL, (size_t) b, (int) c, (int) d, -1, 0);
	  if (p == MAP_FAILED)
	    return -errno;
	  fake.shared[fake.nshared] = (uintptr_t) p;
	  fake.shared_len[fake.nshared++] = (size_t) b;
	  int w = snprintf (fake.maps_tail + fake.maps_tail_len,
			    sizeof fake.maps_tail - fake.maps_tail_len,
			    "%lx-%lx rw-s 00000000 00:01 %d%*s/dev/zero (deleted)\n",
			    (unsigned long) p, (unsigned long) p + (unsigned long) b,
			    1000 + fake.nshared, 24, "");
	  if (w > 0 && (size_t) w < sizeof fake.maps_tail - fake.maps_tail_len)
	    fake.maps_tail_len += (size_t) w;
	  return (long) p;
	}
      if ((d & MAP_ANONYMOUS) && a == 0)
	{
	  /* Small mappings (the stub's scratch buffers) come from the heap,
	     where AddressSanitizer sees a read or write past their end.  */
	  void *p;
	  if (b > 0 && b < (1 << 20))
	    {
	      p = aligned_alloc (4096, ((size_t) b + 4095) & ~(size_t) 4095);
	      if (p == NULL)
		return -ENOMEM;
	      memset (p, 0, (size_t) b);
	      for (int k = 0; k < FAKE_MAX_HEAP; k++)
		if (heap[k] == NULL)
		  {
		    heap[k] = p;
		    break;
		  }
	    }
	  else if ((p = mmap (NULL, (size_t) b, (int) c, (int) d, -1, 0)) == MAP_FAILED)
	    return -errno;
	  fake.anon_bytes += (b + 4095) & ~4095L;
	  return (long) p;
	}
      return (d & MAP_FIXED) ? a : -ENODEV;
    case SYS_munmap:
      for (int k = 0; k < FAKE_MAX_HEAP; k++)
	if (heap[k] != NULL && heap[k] == (void *) a)
	  {
	    free (heap[k]);
	    heap[k] = NULL;
	    fake.anon_bytes -= (b + 4095) & ~4095L;
	    return 0;
	  }
      if (munmap ((void *) a, (size_t) b) != 0)
	return -errno;
      fake.anon_bytes -= (b + 4095) & ~4095L;
      return 0;
    default:
      return -ENOSYS;
    }
}
