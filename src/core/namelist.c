/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Reading a list of file names (--files-from), for batch runs and prime.  */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "namelist.h"

int
namelist_open (struct namelist *l, const char *path, bool null, bool comments, FILE *errors)
{
  *l = (struct namelist) { .path = path, .null = null, .comments = comments && !null };
  l->in = strcmp (path, "-") == 0 ? stdin : fopen (path, "re");
  if (l->in == NULL)
    {
      fprintf (errors, "%s: %s: cannot open the list: %s\n", diag_program, path, strerror (errno));
      return 1;
    }
  return 0;
}

const char *
namelist_next (struct namelist *l, int *err, FILE *errors)
{
  int delim = l->null ? '\0' : '\n';
  ssize_t len;
  while ((len = getdelim (&l->line, &l->cap, delim, l->in)) >= 0)
    {
      if (len > 0 && l->line[len - 1] == delim)
	l->line[--len] = '\0';
      if (len == 0 || (l->comments && l->line[0] == '#'))
	continue;
      /* A name with a NUL inside, from a list of lines, cannot be a path.  */
      if (strlen (l->line) != (size_t) len)
	{
	  fprintf (errors, "%s: %s: a name in the list holds a NUL byte (use -0)\n", diag_program, l->path);
	  *err = 1;
	  return NULL;
	}
      return l->line;
    }
  if (ferror (l->in))
    {
      fprintf (errors, "%s: %s: cannot read the list: %s\n", diag_program, l->path, strerror (errno));
      *err = 1;
    }
  return NULL;
}

void
namelist_close (struct namelist *l)
{
  free (l->line);
  l->line = NULL;
  if (l->in != NULL && l->in != stdin)
    fclose (l->in);
  l->in = NULL;
}
