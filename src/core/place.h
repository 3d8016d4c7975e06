/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Where a file lives, resolved once (place.c).  */
#ifndef ELFPMD_PLACE_H
#define ELFPMD_PLACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "diag.h"

/* A name in a directory held open: every operation on the file goes
   through DIRFD, never through the path again.  */
struct place
{
  int dirfd;			/* the directory; -1 when unresolved */
  char *base;			/* the name in it, without '/' */
  bool via_link;		/* PATH's last component was a symbolic link, followed */
};

void place_init (struct place *pl);
void place_close (struct place *pl);

/* Resolve PATH, a name the user gave (relative to the working
   directory), into *PL: one component at a time, a symbolic link followed
   only when root or the running user owns it, and the last one only when
   FOLLOW_LAST (it is the file, not a name to replace; PL->via_link says
   whether it was one).  A last component
   that does not exist is resolved (a file to be made).  Return 0, or -1
   with the reason in *ERR and errno set (ENOENT or ENOTDIR for a
   directory on the way that is missing or is none, EPERM for a symbolic
   link not followed).  */
int place_resolve (struct place *pl, const char *path, bool follow_last, struct diag *err);

/* Resolve RELPATH below the directory ROOTFD into *PL, through no symbolic
   link at all (a name a walk met there).  Return 0, or -1 with the reason
   in *ERR.  */
int place_beneath (struct place *pl, int rootfd, const char *relpath, struct diag *err);

#endif
