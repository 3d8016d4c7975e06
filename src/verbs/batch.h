/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A run over many files: the names gathered from the command line, from
   directory walks (-r) and from a list (--files-from), hard links among them
   found, the files processed by several worker processes, the summary.  */
#ifndef ELFPMD_BATCH_H
#define ELFPMD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf_file.h"
#include "process.h"
#include "report.h"

struct batch_options
{
  bool recursive;		/* -r: walk directories */
  const char *files_from;	/* --files-from: a list of names, "-" for stdin */
  bool null;			/* -0: names in the list end with NUL */
  const char *const *excludes;	/* --exclude patterns */
  size_t nexcludes;
  bool default_excludes;	/* prune usr/lib/debug and .build-id */
  unsigned jobs;		/* worker processes; 0: the CPUs this process may use */
  bool progress;		/* a progress line on the errors stream, if a terminal */
};

#define BATCH_STUB_WHYS 16

/* What a run did, name by name: every name lands in exactly one bucket.  */
struct batch_counts
{
  uint64_t files;			/* names met (not directories) */
  uint64_t status[STATUS_KINDS];	/* by outcome; STATUS_ERROR counts failures */
  uint64_t skipped[SKIP_KINDS];		/* STATUS_SKIPPED by reason */
  uint64_t hard_links;			/* further names of a file counted above */
  double seconds;			/* the run's wall time, for --times */
  /* With --madvise: files the stub went into, and those it did not, by
     reason (the first BATCH_STUB_WHYS reasons met; the rest together).  */
  uint64_t stub_injected, stub_refused;
  struct
  {
    char why[FILE_OUTCOME_WHY];
    uint64_t n;
  } stub_whys[BATCH_STUB_WHYS];
  size_t nstub_whys;
  uint64_t stub_other;
};

/* Process the NARGS names in ARGS (files, or with BO->recursive also
   directories) and those of BO->files_from under RO, printing reports to
   REPORT (and as JSON to JSON, where RO->json_too) and errors to ERRORS in
   the order of the names, and in a batch run (RO->batch) the summary line or
   object (to both).  Fill *COUNTS.  Return 0 when no file failed, 2 when
   only files of a machine without a known PMD size did, else 1.  */
int batch_run (char *const *args, size_t nargs, const struct batch_options *bo,
	       const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
	       struct batch_counts *counts);

/* The number of CPUs this process may run on (at least 1).  */
unsigned batch_cpus (void);

#endif
