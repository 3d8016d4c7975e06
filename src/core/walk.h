/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The names a run over many files processes, gathered and grouped:

   - gather: the names of the command line, of directory walks (sorted by
     name, symbolic links never followed, every directory opened relative
     to its parent's descriptor: a walk never leaves its tree, whatever is
     swapped meanwhile) and of a --files-from list, each with what fstatat
     says of it, in the order met;
   - link: names of one inode are grouped; the first is processed, the
     others follow it (they are to name the rewritten file afterwards).  */
#ifndef ELFPMD_WALK_H
#define ELFPMD_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "elf_file.h"

/* What to gather.  */
struct walk_options
{
  bool recursive;		/* -r: walk directories */
  bool null;			/* -0: names in a list end with NUL */
  const char *const *excludes;	/* --exclude patterns */
  size_t nexcludes;
  bool default_excludes;	/* prune usr/lib/debug and .build-id */
  bool batch;			/* skip what is no regular file quietly (-r, --files-from) */
};

/* One name met by the run.  */
struct walk_entry
{
  char *name;			/* as shown: the path given, or the walk's root '/' REL */
  int rootfd;			/* the walk's root, or -1 for a name given */
  char *rel;			/* with ROOTFD: the name below it */
  enum skip_kind skip;		/* decided by the walk, or SKIP_NONE */
  char *error;			/* the walk could not read it (a directory) */
  bool have_stat;
  dev_t dev;
  ino_t ino;
  bool via_link;		/* a name given whose last component is a symbolic link */
  size_t leader;		/* the entry processed for this inode: itself or another one */
  size_t unit;			/* the caller's: a leader's job number (SIZE_MAX: none yet) */
};

/* The names gathered, E (N of them), and the walks' roots, held open
   until walk_names_free.  */
struct walk_names
{
  struct walk_options opts;
  struct walk_entry *e;
  size_t n, cap;
  int *roots;
  size_t nroots;
};

/* Add PATH (which G takes over), a name the user gave: looked at through a
   symbolic link when FOLLOW (a name on the command line) and the link is
   root's or this user's (place.c), else as it is; walked if it is a
   directory and the run walks, the directory held open as the walk's
   root.  Return 0, or -1 when out of memory.  */
int walk_add_name (struct walk_names *g, char *path, bool follow);

/* Add the names of the list LIST ("-": standard input), one per line or
   with G->opts.null one per NUL; say what is wrong with it on ERRORS.
   Return 0, 1 when the list could not be read, -1 when out of memory.  */
int walk_add_list (struct walk_names *g, const char *list, FILE *errors);

/* Point each entry of G at the entry processed for its inode: the first of
   its names that is not a symbolic link, or the first if all are.  Return
   0, or -1 when out of memory.  */
int walk_find_links (struct walk_names *g);

/* Free what G holds, closing the walk's roots.  */
void walk_names_free (struct walk_names *g);

#endif
