/* Processing one file: parse, plan, check the plan, report, write.  */
#ifndef ELFPMD_PROCESS_H
#define ELFPMD_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "phdr_align.h"

enum report_format
{
  REPORT_SUMMARY,		/* one line per file */
  REPORT_FULL,			/* the full text report */
  REPORT_JSON,			/* one JSON object per file */
  REPORT_NONE,			/* -q */
};

struct run_options
{
  enum align_rule rule;
  uint64_t pmd_size;		/* 0: from e_machine */
  uint64_t page_size;		/* 0: from e_machine */
  bool dry_run;
  bool sync;
  bool pad;			/* may move file contents (false: --no-pad) */
  bool madvise;			/* inject the startup stub */
  uint64_t populate_max;	/* --populate-max */
  const char *output;		/* -o, or NULL to rewrite in place */
  enum report_format format;
};

/* Process the file NAME under OPTS, printing the report to REPORT and any
   error as one line to ERRORS.  Return 0 on success, 1 on failure (the file
   is then untouched).  */
int process_file (const char *name, const struct run_options *opts, FILE *report,
		  FILE *errors);

#endif
