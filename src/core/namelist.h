/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Reading a list of file names: one per line, or one per NUL byte (-0),
   from a file or standard input ("-"), as --files-from takes them.  */
#ifndef ELFPMD_NAMELIST_H
#define ELFPMD_NAMELIST_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct namelist
{
  const char *path;		/* as given, for messages */
  FILE *in;
  bool null;			/* names end with NUL, not a newline */
  bool comments;		/* a line starting with '#' is no name (not with NULL) */
  char *line;
  size_t cap;
};

/* Open the list PATH ("-": standard input) into L.  Return 0, or 1 with a
   line on ERRORS.  */
int namelist_open (struct namelist *l, const char *path, bool null, bool comments, FILE *errors);

/* The next name of L (valid until the next call), or NULL at the end or on
   an error; *ERR is then 1 with a line on ERRORS (a name holding a NUL byte
   in a list of lines, a read error), else left alone.  Empty names are
   skipped.  */
const char *namelist_next (struct namelist *l, int *err, FILE *errors);

void namelist_close (struct namelist *l);

#endif
