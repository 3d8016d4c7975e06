/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Where a file lives, resolved once into a directory descriptor and a name
   in it (struct place), so that every later operation on it (open, the
   temporary file, rename, link, the directory's fsync) is relative to that
   descriptor: whoever owns a directory on the path can swap it for a
   symbolic link at any moment, and a later operation by path would follow
   it.  The anchors are rpm's file-state machine after CVE-2021-35938 and
   35939 (every operation relative to a directory opened without following
   links) and the kernel's protected_symlinks.

   A path the user gave (a name on the command line, -o, a --files-from
   list, the directory of -r) is resolved one component at a time: a
   symbolic link on it is followed only when root or the user running
   elfpmd owns it, as the system's own links are (/lib -> usr/lib), never
   one another user could have made; elfpmd refuses the name otherwise.  A
   name met by a walk is resolved below the walk's root with no symbolic
   link at all (open_beneath).  */
#include <config.h>

#include "place.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_open.h"

/* Symbolic links followed at most in one resolution, as the kernel.  */
#define MAX_LINKS 40

void
place_init (struct place *pl)
{
  pl->dirfd = -1;
  pl->base = NULL;
  pl->via_link = false;
}

void
place_close (struct place *pl)
{
  if (pl->dirfd >= 0)
    close (pl->dirfd);
  free (pl->base);
  place_init (pl);
}

/* Open the directory NAME in DIRFD for the next step of a resolution.  */
static int
step_into (int dirfd, const char *name)
{
  return openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Whether the symbolic link NAME in DIRFD (ST: its lstat) may be followed:
   root's, or the running user's.  Else say why in *ERR.  */
static bool
link_trusted (const char *name, const struct stat *st, struct diag *err)
{
  if (st->st_uid == 0 || st->st_uid == geteuid ())
    return true;
  diag_set (err, "the symbolic link %s on the way belongs to another user (uid %lu): "
	    "not followed", name, (unsigned long) st->st_uid);
  return false;
}

/* Cut the first component off CUR, leading slashes skipped: return it,
   NUL-terminated, with the rest in *NEXT, NULL when it is the last ("dir/"
   included: its last component is a directory).  */
static char *
first_component (char *cur, char **next)
{
  while (*cur == '/')
    cur++;
  char *slash = strchr (cur, '/');
  *next = NULL;
  if (slash != NULL)
    {
      *slash = '\0';
      char *rest = slash + 1;
      while (*rest == '/')
	rest++;
      if (*rest != '\0')
	*next = rest;
    }
  return cur;
}

/* The target of the symbolic link AT (held open; NAME, whose fstat is ST),
   read only when link_trusted allows it, joined with NEXT (what followed
   the link, or NULL) into a new string; *ABSOLUTE tells whether the target
   starts at the root.  AT is closed.  Return the string, or NULL with the
   reason in *ERR (errno EPERM for a link not trusted).  */
static char *
link_joined (int at, const char *name, const struct stat *st, const char *next, bool *absolute,
	     struct diag *err)
{
  char target[PATH_MAX];
  ssize_t n = -1;
  bool trusted = link_trusted (name, st, err);
  if (trusted)
    n = readlinkat (at, "", target, sizeof target - 1);
  int saved = errno;
  close (at);
  errno = saved;
  if (!trusted)
    {
      errno = EPERM;
      return NULL;
    }
  if (n < 0)
    {
      diag_set (err, "cannot read the symbolic link %s: %s", name, strerror (errno));
      return NULL;
    }
  target[n] = '\0';
  *absolute = target[0] == '/';
  char *joined;
  if (asprintf (&joined, "%s%s%s", target, next != NULL ? "/" : "", next != NULL ? next : "") < 0)
    {
      diag_set (err, "out of memory");
      return NULL;
    }
  return joined;
}

/* The name NAME in DIRFD, held (O_PATH, never followed) while it is looked
   at, its fstat in *ST; -1 with errno set when it cannot be.  */
static int
hold_name (int dirfd, const char *name, struct stat *st)
{
  int at = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (at >= 0 && fstat (at, st) != 0)
    {
      int saved = errno;
      close (at);
      errno = saved;
      at = -1;
    }
  return at;
}

/* The end of a resolution into PL: 0 when it names a directory and a base,
   else -1 with PL closed and the reason in *ERR (from errno when none was
   given), errno kept.  */
static int
place_resolved (struct place *pl, struct diag *err)
{
  if (pl->dirfd >= 0 && pl->base != NULL)
    return 0;
  int saved = errno;
  place_close (pl);
  if (err->msg[0] == '\0')
    diag_set (err, "cannot resolve the path: %s", strerror (saved));
  errno = saved;
  return -1;
}

int
place_resolve (struct place *pl, const char *path, bool follow_last, struct diag *err)
{
  place_init (pl);
  if (path[0] == '\0')
    return diag_set (err, "empty name");
  /* PATH, then the targets of the links met, as one string consumed from
     the front: "rest" is what is left to resolve.  */
  char *rest = strdup (path);
  if (rest == NULL)
    return diag_set (err, "out of memory");
  int dir = open (rest[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int links = 0;
  char *cur = rest;
  while (dir >= 0)
    {
      char *next;
      cur = first_component (cur, &next);
      bool last = next == NULL;
      if (*cur == '\0')
	{
	  /* PATH was "/" (or only slashes): no name in a directory.  */
	  diag_set (err, "is a directory");
	  errno = EISDIR;
	  break;
	}
      /* The name itself, held while it is looked at: the link whose owner
	 is checked is the link that is read, not one put there since.  */
      struct stat st;
      int at = hold_name (dir, cur, &st);
      if (at < 0)
	{
	  if (last && errno == ENOENT)
	    {
	      /* A name to be made (-o): its directory is resolved.  */
	      pl->dirfd = dir;
	      pl->base = strdup (cur);
	      dir = -1;
	      break;
	    }
	  diag_set (err, "cannot resolve %s: %s", cur, strerror (errno));
	  break;
	}
      if (S_ISLNK (st.st_mode) && (!last || follow_last))
	{
	  if (last)
	    pl->via_link = true;
	  if (++links > MAX_LINKS)
	    {
	      close (at);
	      diag_set (err, "too many symbolic links on the way");
	      errno = ELOOP;
	      break;
	    }
	  /* Go on with the link's target, then what followed the link.  */
	  bool absolute;
	  char *joined = link_joined (at, cur, &st, next, &absolute, err);
	  if (joined == NULL)
	    break;
	  free (rest);
	  rest = cur = joined;
	  if (absolute)
	    {
	      close (dir);
	      dir = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	    }
	  continue;
	}
      close (at);
      if (last)
	{
	  pl->dirfd = dir;
	  pl->base = strdup (cur);
	  dir = -1;
	  break;
	}
      if (strcmp (cur, "..") == 0 || strcmp (cur, ".") == 0 || S_ISDIR (st.st_mode))
	{
	  int sub = step_into (dir, cur);
	  if (sub < 0)
	    {
	      diag_set (err, "cannot open the directory %s: %s", cur, strerror (errno));
	      break;
	    }
	  close (dir);
	  dir = sub;
	  cur = next;
	  continue;
	}
      diag_set (err, "%s on the way is not a directory", cur);
      errno = ENOTDIR;
      break;
    }
  if (dir >= 0)
    close (dir);
  free (rest);
  return place_resolved (pl, err);
}

int
place_beneath (struct place *pl, int rootfd, const char *relpath, struct diag *err)
{
  place_init (pl);
  const char *slash = strrchr (relpath, '/');
  if (slash == NULL)
    {
      pl->dirfd = fcntl (rootfd, F_DUPFD_CLOEXEC, 0);
      pl->base = strdup (relpath);
    }
  else
    {
      char *dir = strndup (relpath, (size_t) (slash - relpath));
      if (dir != NULL)
	pl->dirfd = open_beneath (rootfd, dir, O_RDONLY | O_DIRECTORY, false, err);
      free (dir);
      pl->base = strdup (slash + 1);
    }
  if (pl->dirfd < 0 || pl->base == NULL)
    {
      place_close (pl);
      return diag_set (err, "cannot open its directory: %s", strerror (errno));
    }
  return 0;
}
