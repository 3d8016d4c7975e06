/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd status: which running programs have their text on PMD pages, and
   which would gain from elfpmd.  */
#ifndef ELFPMD_STATUS_H
#define ELFPMD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct status_options
{
  bool json;			/* one JSON object per process, then a summary */
  bool quiet;			/* the summary line only */
  const char *proc;		/* the proc file system ("/proc"; tests may point elsewhere) */
};

/* Report on the processes PIDS (NPIDS of them; none: every process in
   OPTS->proc) to OUT, errors as one line each to ERRORS.  Return 0, or 1
   when a process named in PIDS could not be read.  */
int status_run (const long *pids, size_t npids, const struct status_options *opts, FILE *out,
		FILE *errors);

/* The command line "elfpmd status [OPTION...] [PID...]" (ARGV[0] the verb's
   name for messages): parse it, report, return the exit status.  */
int status_command (int argc, char **argv);

#endif
