/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A batch run's one-line progress display on a terminal: files done of
   all, how many changed, the rate and the name last finished, redrawn in
   place at most ten times a second and wiped before anything else is
   printed, so that a log or a pipe never sees it.  */
#ifndef ELFPMD_PROGRESS_H
#define ELFPMD_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct progress
{
  FILE *out;			/* NULL: no display */
  uint64_t total, done, changed;
  bool dry_run;			/* "would change" */
  struct timespec start, drawn_at;
  size_t shown;			/* bytes of the line on the screen now */
};

/* Start a display on OUT for TOTAL files when OUT is a terminal and
   WANTED; otherwise P stays silent.  */
void progress_start (struct progress *p, FILE *out, bool wanted, uint64_t total, bool dry_run);

/* One more file done, NAME, CHANGED when it was (or would be) changed;
   redraw when the last drawing is old enough.  */
void progress_step (struct progress *p, const char *name, bool changed);

/* Wipe the line, so that what is printed next starts on a clean line.  */
void progress_clear (struct progress *p);

#endif
