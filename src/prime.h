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
};

/* Prime each of the NFILES FILES, reporting to OUT and errors, one line
   each, to ERRORS.  Return 0, or 1 when a file could not be read.  A
   kernel or file system that cannot hold the text in PMD folios is
   reported, not an error.  */
int prime_run (char *const *files, size_t nfiles, const struct prime_options *opts, FILE *out,
	       FILE *errors);

#endif
