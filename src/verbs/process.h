/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Processing one file: parse, plan, check the plan, report, write.  */
#ifndef ELFPMD_PROCESS_H
#define ELFPMD_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "build_id.h"
#include "phdr_align.h"
#include "stub.h"

/* A file's identity, for --known-links.  */
struct known_inode
{
  dev_t dev;
  ino_t ino;
};

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
  struct stub_request stub;	/* --madvise, --populate-max, =copy, --copy-max */
  bool preserve_dates;		/* -p: the output keeps the input's atime and mtime */
  enum build_id_policy build_id; /* --build-id */
  bool batch;			/* -r, --files-from: skipped files print no report */
  bool list_all;		/* a batch run's text report lists every file (-v), not
				   only those changed, refused or failed */
  const char *output;		/* -o, or NULL to rewrite in place */
  enum report_format format;
  bool json_too;		/* --json=FILE: the JSON report too, to its own stream */
  bool times;			/* --times: the run time in the batch summary */
  bool manifest;		/* --manifest: hash what is rewritten (file_outcome) */
  bool keep;			/* --keep-originals: keep the input's contents in */
  int keep_dirfd;		/* this directory */
  /* The parent's: the manifest's stream and the originals' directory made
     absolute, for manifest_entry (batch.c).  */
  FILE *manifest_out;
  const char *keep_dir;
  /* --known-links: the inodes of DIR's files, sorted, whose names there are
     hard links that are meant to keep the old contents (a stash of the files
     as they were): they are not warned about.  */
  const struct known_inode *known_links;
  size_t nknown_links;
  /* --machine: a batch run processes only files of these machines (e_machine
     and ELF class), skipping the others; none: every machine.  */
  /* --expect-inode: the one file named must still be this one.  */
  bool expect_inode;
  dev_t expect_dev;
  ino_t expect_ino;
  size_t nmachines;
  struct { unsigned machine; int elfclass; } machines[8];
};

/* A name of a run: a path the user gave (ROOTFD -1), or one a walk met
   below its root, the directory ROOTFD, at REL (NAME shows the root's
   path, '/', REL).  */
struct job_name
{
  const char *name;
  int rootfd;
  const char *rel;
};

/* One file to process, and the other names of its inode in the same run,
   which are to name the rewritten file afterwards.  */
struct file_job
{
  const char *name;
  int rootfd;			/* as in struct job_name */
  const char *rel;
  const struct job_name *links;	/* NLINKS other names of NAME's inode */
  size_t nlinks;
  bool expect_inode;		/* NAME must still be the file DEV, INO that a */
  dev_t dev;			/* batch run's walk saw */
  ino_t ino;
};

#define FILE_OUTCOME_WHY 120

/* What became of one file, for a batch run's summary.  */
struct file_outcome
{
  int status;			/* enum file_status (report.h) */
  int skip;			/* enum skip_kind (elf_file.h) when skipped */
  size_t relinked;		/* names of JOB->links that now name the new file */
  bool unsupported;		/* failed for a machine without a known PMD size
				   (outside a batch run, which skips it) */
  /* With OPTS->manifest, for a file rewritten (not in a dry run): its
     contents before and after, and whether the original was kept.  */
  bool written;
  unsigned char sha256_before[32], sha256_after[32];
  uint64_t size_before, size_after;
  bool kept;
  /* With --madvise, for a file planned: 1 the stub injected (or would be,
     in a dry run), 2 not, for STUB_WHY (truncated); 0 otherwise.  */
  int stub;
  char stub_why[FILE_OUTCOME_WHY];
};

/* Process the file NAME under OPTS, printing the report to REPORT and any
   error as one line to ERRORS.  Return 0 on success, 1 on failure (the file
   is then untouched).  */
int process_file (const char *name, const struct run_options *opts, FILE *report,
		  FILE *errors);

/* The same for JOB, filling *OUT (which may be NULL), and printing the
   report as JSON also to JSON where that is not NULL (--json=FILE beside
   the text report).  */
int process_job (const struct file_job *job, const struct run_options *opts, FILE *report,
		 FILE *json, FILE *errors, struct file_outcome *out);

#endif
