/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The one rule for what elfpmd reads or writes on a user's say-so
   (trust.h).  Root runs reapply from a package manager's trigger, and
   revert, prime, --manifest, --keep-originals and --json=FILE by hand; the
   names those take (a manifest, the originals directory, a report) come
   from a command line or a manifest, and the directories on the way may
   belong to anybody.  So each is resolved once (place.c), opened without
   following its last component, fstat'ed, and trusted only when it is
   what the rule says, checked on the descriptor that is then used: a
   regular file (or a directory), owned by the effective user or root, and
   for root not writable by group or others (a group other than root's).
   A file another user could write is theirs to have prepared, whatever its
   owner.  */
#include <config.h>

#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "place.h"
#include "safe_open.h"

int
trust_stat (const struct stat *st, bool dir, struct diag *err)
{
  if (dir ? !S_ISDIR (st->st_mode) : !S_ISREG (st->st_mode))
    return diag_set (err, "%s", S_ISLNK (st->st_mode) ? "is a symbolic link (not followed)"
		     : S_ISDIR (st->st_mode) ? "is a directory"
		     : dir ? "is not a directory" : "is not a regular file");
  uid_t me = geteuid ();
  if (st->st_uid != me && st->st_uid != 0)
    return diag_set (err, "belongs to another user (uid %lu)", (unsigned long) st->st_uid);
  if (me == 0 && (st->st_mode & S_IWOTH) != 0)
    return diag_set (err, "is writable by others (mode %04o)", (unsigned) (st->st_mode & 07777));
  if (me == 0 && (st->st_mode & S_IWGRP) != 0 && st->st_gid != 0)
    return diag_set (err, "is writable by its group (gid %lu, mode %04o)",
		     (unsigned long) st->st_gid, (unsigned) (st->st_mode & 07777));
  return 0;
}

int
trust_open_at (int dirfd, const char *name, struct stat *st, struct diag *err)
{
  /* The type first, on an O_PATH descriptor (open_regular): nothing but
     a regular file is opened for reading, and a symbolic link is not
     followed.  */
  int fd = open_regular (dirfd, name, false, st, err);
  if (fd < 0)
    return -1;
  if (trust_stat (st, false, err) != 0)
    {
      close (fd);
      errno = EPERM;
      return -1;
    }
  return fd;
}

int
trust_open_path (const char *path, struct stat *st, struct diag *err)
{
  struct place pl;
  if (place_resolve (&pl, path, false, err) != 0)
    return -1;
  int fd = trust_open_at (pl.dirfd, pl.base, st, err);
  int saved = errno;
  place_close (&pl);
  errno = saved;
  return fd;
}

/* Open the existing file NAME in DIRFD for writing (FLAGS: O_APPEND or
   0), if the rule trusts it and it has no other name; the type is
   checked on an O_PATH descriptor before the file is opened.  */
static int
open_existing_output (int dirfd, const char *name, int flags, struct diag *err)
{
  int o = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat ps, st;
  if (o < 0 || fstat (o, &ps) != 0)
    {
      diag_set (err, "%s", strerror (errno));
      if (o >= 0)
	close (o);
      return -1;
    }
  int fd = -1;
  if (trust_stat (&ps, false, err) != 0)
    ;
  else if (ps.st_nlink != 1)
    diag_set (err, "has %lu names (hard links): not written through any of them",
	      (unsigned long) ps.st_nlink);
  else
    {
      int how = O_WRONLY | flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
      char proc[40];
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", o);
      fd = open (proc, how);
      if (fd < 0 && errno == ENOENT && access ("/proc/self/fd", F_OK) != 0)
	fd = openat (dirfd, name, how | O_NOFOLLOW);	/* no /proc: compared below */
      if (fd < 0)
	diag_set (err, "%s", strerror (errno));
      else if (fstat (fd, &st) != 0 || st.st_dev != ps.st_dev || st.st_ino != ps.st_ino
	       || !S_ISREG (st.st_mode))
	{
	  diag_set (err, "was replaced while being opened");
	  close (fd);
	  fd = -1;
	}
    }
  close (o);
  return fd;
}

int
trust_open_output (const char *path, bool trunc, mode_t mode, struct diag *err)
{
  struct place pl;
  if (place_resolve (&pl, path, false, err) != 0)
    return -1;
  int flags = trunc ? 0 : O_APPEND;
  int fd = openat (pl.dirfd, pl.base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
		   | O_NOCTTY | flags, mode);
  if (fd < 0 && errno == EEXIST)
    {
      fd = open_existing_output (pl.dirfd, pl.base, flags, err);
      if (fd >= 0 && trunc && ftruncate (fd, 0) != 0)
	{
	  diag_set (err, "cannot empty it: %s", strerror (errno));
	  close (fd);
	  fd = -1;
	}
      if (fd >= 0)
	fcntl (fd, F_SETFL, flags);	/* O_NONBLOCK off again */
    }
  else if (fd < 0)
    diag_set (err, "%s", strerror (errno));
  place_close (&pl);
  return fd;
}

int
trust_open_dir (const char *path, mode_t mode, struct diag *err)
{
  struct place pl;
  if (place_resolve (&pl, path, false, err) != 0)
    return -1;
  int fd = -1;
  struct stat st;
  if (mode != 0 && mkdirat (pl.dirfd, pl.base, mode) != 0 && errno != EEXIST)
    diag_set (err, "%s", strerror (errno));
  else if ((fd = openat (pl.dirfd, pl.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
    diag_set (err, "%s", errno == ELOOP || errno == ENOTDIR ? "is not a directory (a symbolic link "
	      "is not followed)" : strerror (errno));
  else if (fstat (fd, &st) != 0 || trust_stat (&st, true, err) != 0)
    {
      if (err->msg[0] == '\0')
	diag_set (err, "%s", strerror (errno));
      close (fd);
      fd = -1;
    }
  place_close (&pl);
  return fd;
}
