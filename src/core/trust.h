/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The one rule for a file or directory elfpmd reads or writes on a user's
   say-so (trust.c): a manifest, the originals directory and the copies
   kept in it, the reports and manifests it writes.  */
#ifndef ELFPMD_TRUST_H
#define ELFPMD_TRUST_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "diag.h"

/* Whether ST, the status of something already open, may be trusted as a
   regular file (DIR false) or a directory (DIR true): of that type, owned
   by the effective user or root, and, when the effective user is root,
   writable by neither its group nor others (what another user could have
   written is not root's to act on).  Return 0, or -1 with the reason in
   *ERR ("belongs to uid 1000", "is writable by others", ...).  */
int trust_stat (const struct stat *st, bool dir, struct diag *err);

/* Open NAME in the directory DIRFD for reading: not through a symbolic
   link at its last component, never a FIFO, device or socket (nothing
   but a regular file is ever opened for reading), and only if trust_stat
   accepts it.  Fill *ST.  Return the descriptor, or -1 with the reason in
   *ERR (errno ENOENT when NAME is not there).  */
int trust_open_at (int dirfd, const char *name, struct stat *st, struct diag *err);

/* The same for PATH, a name the user gave, resolved as place_resolve
   resolves it (a symbolic link on the way followed only when root or the
   effective user owns it), its last component never followed.  */
int trust_open_path (const char *path, struct stat *st, struct diag *err);

/* Open PATH, resolved as trust_open_path does, for writing a report or a
   manifest: made (MODE, as umask leaves it) when it does not exist;
   otherwise only a regular file trust_stat accepts with no other hard
   link (a link to a file of root's elsewhere would make root write
   there), then emptied when TRUNC, else written at its end (O_APPEND).
   Never opens a FIFO, device or socket.  Return the descriptor, or -1
   with the reason in *ERR.  */
int trust_open_output (const char *path, bool trunc, mode_t mode, struct diag *err);

/* The directory PATH, resolved as trust_open_path does, made (MODE) when
   missing and MODE is not 0, opened without following its last component and only if
   trust_stat accepts it.  Return its descriptor, or -1 with the reason in
   *ERR.  */
int trust_open_dir (const char *path, mode_t mode, struct diag *err);

#endif
