/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The per-file report, as text or as one JSON object per line.  */
#ifndef ELFPMD_REPORT_H
#define ELFPMD_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "elf_file.h"
#include "plan.h"
#include "write.h"

/* Everything the report says about one input file.  FILE and PLAN are NULL
   when the file failed before they existed; ERROR is then set.  */
struct file_report
{
  const char *name;
  const struct elf_file *file;
  const struct rewrite_plan *plan;
  uint64_t pmd, page;
  const char *pmd_source;	/* "x86-64 default (4 KiB pages)" or "--pmd-size" */
  enum align_rule rule;
  bool dry_run;
  const char *error;		/* reason the file failed, or NULL */
  bool has_written;		/* WRITTEN holds what writing produced */
  struct write_result written;
  const struct ima_plan *ima;	/* what becomes of security.ima in place, or NULL */
};

/* The outcome of one file.  */
enum file_status
{
  STATUS_CHANGED,
  STATUS_WOULD_CHANGE,		/* --dry-run */
  STATUS_ALREADY_ALIGNED,
  STATUS_PADDING_REFUSED,
  STATUS_NEEDS_PADDING,		/* --no-pad */
  STATUS_NOTHING_ELIGIBLE,
  STATUS_SKIPPED,
  STATUS_ERROR,
  STATUS_KINDS
};

enum file_status report_file_status (const struct file_report *r);

/* STATUS in a few words: "changed", "would change", "already aligned",
   "padding refused", "needs padding", "nothing eligible", "skipped" or
   "error".  */
const char *file_status_name (enum file_status status);

/* STATUS as a JSON key: "changed", "would_change", "already_aligned", ...  */
const char *file_status_key (enum file_status status);

/* file_status_name of the outcome of R.  */
const char *report_status (const struct file_report *r);

/* The full report: header lines and one table row per PT_LOAD.  */
void report_text (FILE *out, const struct file_report *r);

/* One line: what happened to the file.  */
void report_summary (FILE *out, const struct file_report *r);

/* One JSON object on one line.  */
void report_json (FILE *out, const struct file_report *r);

/* What became of the input's IMA attribute, as the JSON report's "ima"
   says it: "rehashed-ALG" ("would-rehash-ALG" in a dry run), "refused",
   or NULL when there is nothing to say.  BUF holds LEN bytes.  */
const char *report_ima (const struct file_report *r, char *buf, size_t len);

/* Write S to OUT as a JSON string literal: valid UTF-8 as it is, each
   other byte as U+FFFD.  */
void json_string (FILE *out, const char *s);

/* Write "KEY":NAME to OUT, NAME a file name (bytes); when NAME is not valid
   UTF-8 also ,"KEY_hex":"..." with its exact bytes in hexadecimal, so that
   every name maps back to the file.  */
void json_name (FILE *out, const char *key, const char *name);

#endif
