/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Opening files and directories where another user may change the names on
   the way: elfpmd runs as root over trees other users can write, and reads
   files other processes name (elfpmd status).  Between a check and a use,
   whoever owns a directory on a path can swap a name for a symbolic link,
   a FIFO or a device; so a name is resolved once into a descriptor, never
   through a symbolic link that it did not start with, and a file is opened
   for reading only once it is known to be a regular file (an open alone
   acts on some devices: a tape rewinds, a FIFO blocks).  The anchors are
   rpm's file-state machine after CVE-2021-35938/35939 and
   openat2(RESOLVE_NO_SYMLINKS).  */
#include <config.h>

#include "safe_open.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef SYS_openat2
# include <linux/openat2.h>
#endif

/* openat2 with RESOLVE (RESOLVE_* bits), or -1 with errno ENOSYS where the
   kernel (before 5.6) or the headers lack it.  */
static int
openat2_resolve (int dirfd, const char *path, int flags, unsigned long long resolve)
{
#ifdef SYS_openat2
  struct open_how how = { .flags = (unsigned long long) flags, .resolve = resolve };
  return (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
#else
  (void) dirfd, (void) path, (void) flags, (void) resolve;
  errno = ENOSYS;
  return -1;
#endif
}

int
reopen_regular (int pathfd, struct stat *st, struct diag *err)
{
  struct stat ps;
  if (fstat (pathfd, &ps) != 0)
    return diag_set (err, "cannot stat: %s", strerror (errno)), -1;
  if (!S_ISREG (ps.st_mode))
    return diag_set (err, "%s", S_ISLNK (ps.st_mode) ? "is a symbolic link"
		     : S_ISDIR (ps.st_mode) ? "is a directory" : "not a regular file"), -1;
  /* Open the very inode for reading, through the descriptor: a name may
     name something else by now.  */
  char proc[40];
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", pathfd);
  int fd = open (proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return diag_set (err, "cannot open: %s", errno == ENOENT ? "/proc is not mounted"
		     : strerror (errno)), -1;
  if (fstat (fd, st) != 0 || st->st_dev != ps.st_dev || st->st_ino != ps.st_ino
      || !S_ISREG (st->st_mode))
    {
      diag_set (err, "was replaced while being opened");
      close (fd);
      return -1;
    }
  return fd;
}

int
open_regular (int dirfd, const char *name, bool follow, struct stat *st, struct diag *err)
{
  int o = openat (dirfd, name, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (o < 0)
    return diag_set (err, "cannot open: %s", strerror (errno)), -1;
  struct diag why = { "" };
  int fd = reopen_regular (o, st, &why);
  if (fd < 0 && access ("/proc/self/fd", F_OK) != 0)
    {
      /* No /proc (a bare chroot): open the name again, never through a
	 symbolic link and without blocking on a FIFO, and compare.  Only
	 a device node put there in between (which needs CAP_MKNOD, or a
	 link to one on the same file system) could be opened.  */
      struct stat ps;
      if (fstat (o, &ps) == 0 && S_ISREG (ps.st_mode)
	  && (fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
			   | (follow ? 0 : O_NOFOLLOW))) >= 0
	  && (fstat (fd, st) != 0 || st->st_dev != ps.st_dev || st->st_ino != ps.st_ino))
	{
	  close (fd);
	  fd = -1;
	  diag_set (&why, "was replaced while being opened");
	}
    }
  if (fd < 0)
    diag_set (err, "%s", why.msg[0] != '\0' ? why.msg : strerror (errno));
  close (o);
  return fd;
}

/* Open the directory NAME in DIRFD without following a symbolic link.  */
static int
open_subdir (int dirfd, const char *name)
{
  return openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int
open_beneath (int rootfd, const char *relpath, int flags, bool in_root, struct diag *err)
{
  unsigned long long resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
			       | (in_root ? RESOLVE_IN_ROOT : RESOLVE_BENEATH);
  int fd = openat2_resolve (rootfd, relpath, flags | O_CLOEXEC, resolve);
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
    {
      if (fd < 0)
	diag_set (err, "%s", errno == ELOOP ? "a symbolic link on the way"
		  : errno == EXDEV ? "leads out of its tree" : strerror (errno));
      return fd;
    }
  /* Before Linux 5.6 (or where a seccomp filter refuses openat2): one
     directory at a time, none of them a symbolic link, ".." refused.  */
  char *copy = strdup (relpath);
  if (copy == NULL)
    return diag_set (err, "out of memory"), -1;
  int dir = rootfd == AT_FDCWD ? open (".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
	    : fcntl (rootfd, F_DUPFD_CLOEXEC, 0);
  char *save = NULL, *part = strtok_r (copy, "/", &save);
  while (dir >= 0 && part != NULL)
    {
      char *next = strtok_r (NULL, "/", &save);
      int sub;
      if (strcmp (part, "..") == 0)
	{
	  errno = EXDEV;
	  sub = -1;
	}
      else if (strcmp (part, ".") == 0)
	sub = fcntl (dir, F_DUPFD_CLOEXEC, 0);
      else if (next != NULL)
	sub = open_subdir (dir, part);
      else
	sub = openat (dir, part, flags | O_CLOEXEC | O_NOFOLLOW);
      int saved = errno;
      close (dir);
      errno = saved;
      dir = sub;
      part = next;
    }
  if (dir < 0)
    diag_set (err, "%s", errno == ELOOP ? "a symbolic link on the way"
	      : errno == EXDEV ? "leads out of its tree" : strerror (errno));
  free (copy);
  return dir;
}

/* Copy LEN bytes of FROM at AT to TO at the same offset, into HASH too
   when not NULL.  */
static int
copy_range (int from, int to, off_t at, off_t len, struct sha256_ctx *hash, struct diag *err)
{
  char buf[1 << 16];
  while (len > 0)
    {
      size_t want = len < (off_t) sizeof buf ? (size_t) len : sizeof buf;
      ssize_t got = pread (from, buf, want, at);
      if (got < 0 && errno == EINTR)
	continue;
      if (got < 0)
	return diag_set (err, "cannot read: %s", strerror (errno));
      if (got == 0)
	return diag_set (err, "cannot read: the file shrank while being copied");
      if (hash != NULL)
	sha256_update (hash, (size_t) got, (const uint8_t *) buf);
      for (ssize_t done = 0; done < got;)
	{
	  ssize_t put = pwrite (to, buf + done, (size_t) (got - done), at + done);
	  if (put < 0 && errno == EINTR)
	    continue;
	  if (put <= 0)
	    return diag_set (err, "cannot write: %s", put < 0 ? strerror (errno) : "short write");
	  done += put;
	}
      at += got;
      len -= got;
    }
  return 0;
}

/* Feed LEN zero bytes (a hole) to HASH.  */
static void
hash_zeros (struct sha256_ctx *hash, off_t len)
{
  static const char zeros[1 << 16];
  for (; len > 0; len -= (off_t) sizeof zeros)
    sha256_update (hash, len < (off_t) sizeof zeros ? (size_t) len : sizeof zeros,
		   (const uint8_t *) zeros);
}

int
copy_sparse (int from, int to, struct sha256_ctx *hash, struct diag *err)
{
  struct stat st;
  if (fstat (from, &st) != 0)
    return diag_set (err, "cannot read: %s", strerror (errno));
  off_t size = st.st_size, at = 0;
  while (at < size)
    {
      off_t data = lseek (from, at, SEEK_DATA);
      if (data < 0 && errno == ENXIO)
	data = size;		/* a hole to the end */
      else if (data < 0)
	data = at;		/* no SEEK_DATA here: all of it is data */
      off_t hole = data < size ? lseek (from, data, SEEK_HOLE) : size;
      if (hole < 0 || hole > size)
	hole = size;
      if (hash != NULL)
	hash_zeros (hash, data - at);
      if (copy_range (from, to, data, hole - data, hash, err) != 0)
	return -1;
      at = hole;
    }
  if (ftruncate (to, size) != 0)
    return diag_set (err, "cannot write: %s", strerror (errno));
  return 0;
}

int
copy_contents (int from, int to, struct diag *err)
{
  return copy_sparse (from, to, NULL, err);
}
