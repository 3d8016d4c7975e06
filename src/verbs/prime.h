/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd prime: put the aligned text of files into the page cache as
   PMD-sized folios without running them.  */
#ifndef ELFPMD_PRIME_H
#define ELFPMD_PRIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct prime_options
{
  bool json;			/* one JSON object per file */
  bool quiet;			/* errors only */
  const char *files_from;	/* a list of names ("-": standard input), or NULL */
  bool null;			/* names in the list end with NUL, not newline */
  uint64_t max_size;		/* files larger are not primed; 0: no limit */
};

/* Prime each of the NFILES FILES, then the names of OPTS->files_from,
   reporting to OUT and errors, one line each, to ERRORS.  A name from the
   list that does not exist, is a symbolic link or no regular file, or is
   not ELF is skipped (a missing one with a line of its own) and counted in
   a summary after the files.  Return 0, or 1 when a file could not be read
   (or the list).  A kernel or file system that cannot hold the text in PMD
   folios is reported, not an error.  */
int prime_run (char *const *files, size_t nfiles, const struct prime_options *opts, FILE *out,
	       FILE *errors);

/* The command line "elfpmd prime [OPTION...] FILE..." (ARGV[0] the verb's
   name for messages): parse it, prime, return the exit status.  */
int prime_command (int argc, char **argv);

#endif
