/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The progress line (progress.h).  It is written with a carriage return
   and wiped with spaces, no terminal escapes, so that any terminal (even
   TERM=dumb) shows it right.  */
#include <config.h>

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "progress.h"

/* Redraw no more often than this, and not at all in a run this short.  */
#define PROGRESS_INTERVAL_NS 100000000L
#define PROGRESS_FIRST_NS 250000000L

static long long
elapsed_ns (const struct timespec *from, const struct timespec *to)
{
  return (long long) (to->tv_sec - from->tv_sec) * 1000000000LL + (to->tv_nsec - from->tv_nsec);
}

void
progress_start (struct progress *p, FILE *out, bool wanted, uint64_t total, bool dry_run)
{
  memset (p, 0, sizeof *p);
  p->out = wanted && out != NULL && isatty (fileno (out)) ? out : NULL;
  p->total = total;
  p->dry_run = dry_run;
  clock_gettime (CLOCK_MONOTONIC, &p->start);
}

/* The terminal's width, 80 when it does not say.  */
static size_t
columns (FILE *out)
{
  struct winsize ws;
  if (ioctl (fileno (out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
    return ws.ws_col;
  return 80;
}

void
progress_clear (struct progress *p)
{
  if (p->out == NULL || p->shown == 0)
    return;
  fprintf (p->out, "\r%*s\r", (int) p->shown, "");
  fflush (p->out);
  p->shown = 0;
}

void
progress_step (struct progress *p, const char *name, bool changed)
{
  p->done++;
  p->changed += changed;
  if (p->out == NULL)
    return;
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  long long run = elapsed_ns (&p->start, &now);
  if (run < PROGRESS_FIRST_NS
      || (p->drawn_at.tv_sec != 0 && elapsed_ns (&p->drawn_at, &now) < PROGRESS_INTERVAL_NS))
    return;
  p->drawn_at = now;

  char line[512];
  int n = snprintf (line, sizeof line, "elfpmd: %llu of %llu files, %llu %s, %.0f/s: ",
		    (unsigned long long) p->done, (unsigned long long) p->total,
		    (unsigned long long) p->changed, p->dry_run ? "would change" : "changed",
		    (double) p->done * 1e9 / (double) run);
  if (n < 0 || (size_t) n >= sizeof line)
    return;
  /* The name's tail, as much as fits before the last column (a line that
     fills the width would wrap on some terminals); control characters as
     '?', and a cut that does not start inside a UTF-8 sequence.  */
  size_t width = columns (p->out) - 1;
  if (width > sizeof line - 1)
    width = sizeof line - 1;
  if ((size_t) n > width)
    n = (int) width;
  size_t room = (size_t) n + 3 < width ? width - (size_t) n : 0;
  size_t len = strlen (name);
  const char *tail = name;
  if (len > room)
    {
      tail = name + len - (room > 3 ? room - 3 : 0);
      while (((unsigned char) *tail & 0xc0) == 0x80)
	tail++;
      if (room > 3)
	n += snprintf (line + n, sizeof line - (size_t) n, "...");
    }
  for (; *tail != '\0' && (size_t) n < width; tail++)
    line[n++] = (unsigned char) *tail < 0x20 || *tail == 0x7f ? '?' : *tail;
  line[n] = '\0';
  fprintf (p->out, "\r%s", line);
  if ((size_t) n < p->shown)
    fprintf (p->out, "%*s\r%s", (int) (p->shown - (size_t) n), "", line);
  fflush (p->out);
  p->shown = (size_t) n;
}
