/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Reading /proc/PID/smaps (smaps.h).  */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "smaps.h"

int
smaps_open (struct smaps_reader *r, const char *path)
{
  memset (r, 0, sizeof *r);
  r->f = fopen (path, "re");
  return r->f == NULL ? errno : 0;
}

void
smaps_close (struct smaps_reader *r)
{
  if (r->f != NULL)
    fclose (r->f);
  free (r->line);
  free (r->head);
  memset (r, 0, sizeof *r);
}

/* Whether LINE is a mapping's head: fields are "Name: value", heads start
   with the start address in lower-case hex.  */
static bool
is_head (const char *line)
{
  return isdigit ((unsigned char) line[0]) || (line[0] >= 'a' && line[0] <= 'f');
}

static bool
parse_head (char *line, struct smaps_mapping *m)
{
  char perms[8];
  int n = 0;
  if (sscanf (line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %lu %n", &m->start, &m->end,
	      perms, &m->offset, &m->major, &m->minor, &m->inode, &n) != 7 || m->end < m->start)
    return false;
  m->exec = strlen (perms) >= 3 && perms[2] == 'x';
  line[strcspn (line, "\n")] = '\0';
  m->path = line + n;
  return true;
}

/* Read the next line into R->LINE: true, or false at the end or on an
   error (ferror tells).  */
static bool
next_line (struct smaps_reader *r)
{
  if (r->pending)
    {
      r->pending = false;
      return true;
    }
  return getline (&r->line, &r->line_cap, r->f) > 0;
}

int
smaps_next (struct smaps_reader *r, struct smaps_mapping *m)
{
  errno = 0;
  for (;;)
    {
      if (!next_line (r))
	break;
      if (!is_head (r->line))
	continue;		/* (a field of a mapping whose head was not understood) */
      /* The head is kept apart: the fields after it are read into LINE.  */
      size_t len = strlen (r->line) + 1;
      if (len > r->head_cap)
	{
	  char *grown = realloc (r->head, len);
	  if (grown == NULL)
	    return -1;
	  r->head = grown;
	  r->head_cap = len;
	}
      memcpy (r->head, r->line, len);
      memset (m, 0, sizeof *m);
      bool ok = parse_head (r->head, m);
      while (getline (&r->line, &r->line_cap, r->f) > 0)
	{
	  if (is_head (r->line))
	    {
	      r->pending = true;
	      break;
	    }
	  unsigned long long kb;
	  if (sscanf (r->line, "FilePmdMapped: %llu kB", &kb) == 1)
	    m->file_pmd_kb = kb;
	  else if (sscanf (r->line, "AnonHugePages: %llu kB", &kb) == 1)
	    m->anon_huge_kb = kb;
	}
      if (ok)
	return 1;
    }
  if (ferror (r->f))
    {
      if (errno == 0)
	errno = EIO;
      return -1;
    }
  return 0;
}
