/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Opening files and directories whose names other users may change on the
   way (safe_open.c).  */
#ifndef ELFPMD_SAFE_OPEN_H
#define ELFPMD_SAFE_OPEN_H

#include <stdbool.h>
#include <sys/stat.h>

#include "diag.h"

/* Open NAME in the directory DIRFD (AT_FDCWD: the working directory) for
   reading, only if it is a regular file: not through a symbolic link at
   its last component unless FOLLOW (a /proc magic link such as
   /proc/PID/map_files/RANGE needs it), and never opening a device, FIFO or
   socket, which an open alone can act on.  Fill *ST.  Return the
   descriptor, or -1 with the reason in *ERR.  */
int open_regular (int dirfd, const char *name, bool follow, struct stat *st, struct diag *err);

/* Open for reading the regular file PATHFD (an O_PATH descriptor) is, never
   a device, FIFO or socket, and fill *ST.  Needs /proc.  Return the new
   descriptor, or -1 with the reason in *ERR.  */
int reopen_regular (int pathfd, struct stat *st, struct diag *err);

/* Open RELPATH below the directory ROOTFD with open(2) FLAGS, through no
   symbolic link at all and never leaving ROOTFD's tree (openat2 with
   RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH, or with IN_ROOT
   RESOLVE_IN_ROOT: an absolute RELPATH starts at ROOTFD, as for a process
   whose root it is; before Linux 5.6, one component at a time with
   O_NOFOLLOW, ".." refused).  Return the descriptor, or -1 with the reason
   in *ERR.  */
int open_beneath (int rootfd, const char *relpath, int flags, bool in_root, struct diag *err);

/* Copy the whole contents of FROM to TO, an empty file, at the same
   offsets, leaving FROM's holes (SEEK_DATA, SEEK_HOLE) holes in TO; the
   caller syncs TO.  Return 0, or -1 with the reason in *ERR ("cannot
   read: ...", "cannot write: ...").  */
int copy_contents (int from, int to, struct diag *err);

struct sha256_ctx;

/* copy_contents, and the SHA-256 of every byte copied (holes as zeros)
   fed to HASH (initialised by the caller; not NULL), from the same reads:
   what was hashed is what was written.  */
int copy_sparse (int from, int to, struct sha256_ctx *hash, struct diag *err);

#endif
