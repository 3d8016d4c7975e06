/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the command lines of elfpmd's verbs share: the keys of long-only
   options, sizes as arguments, the --files-from argument, and the status
   of a report that must reach standard output.  Each verb owns its option
   table and parser (rewrite.c, status.c, prime.c, map.c).  */
#ifndef ELFPMD_CMDLINE_H
#define ELFPMD_CMDLINE_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

/* The keys of long-only options, one set for every verb (argp keys above
   the characters).  */
enum
{
  OPT_JSON = 0x100,
  OPT_RULE,
  OPT_PMD_SIZE,
  OPT_PAGE_SIZE,
  OPT_NO_SYNC,
  OPT_NO_PAD,
  OPT_MADVISE,
  OPT_POPULATE_MAX,
  OPT_COPY_MAX,
  OPT_EXCLUDE,
  OPT_NO_DEFAULT_EXCLUDES,
  OPT_HOT,
  OPT_MOVE_TABLE,
  OPT_MACHINE,
  OPT_MANIFEST,
  OPT_KEEP_ORIGINALS,
  OPT_TIMES,
  OPT_EXPECT_INODE,
  OPT_MAX_SIZE,
  OPT_NO_PROGRESS,
  OPT_KNOWN_LINKS,
  OPT_BUILD_ID,
};

/* The children every verb's argp has: -h for --help.  */
extern const struct argp_child cmdline_children[];

/* The largest file reapply and prime work on unless --max-size says
   otherwise: root runs both unattended, over names other users may
   place files at, and the time they take grows with the file.  */
#define MAX_SIZE_DEFAULT ((uint64_t) 1 << 30)

/* --max-size=ARG: a size (K, M, G, T suffixes), 0 for no limit; or a
   usage error.  */
uint64_t max_size_argument (struct argp_state *state, const char *arg);

/* The base page sizes Linux has (4K almost everywhere, 8K sparc64, 16K and
   64K arm64 and loongarch64, 32K mips, 256K hexagon and ppc44x).  A PMD is
   at least one page.  */
#define PAGE_SIZE_MIN ((uint64_t) 4 << 10)
#define PAGE_SIZE_MAX ((uint64_t) 256 << 10)

/* --pmd-size and --page-size as a verb takes them: each once, the PMD at
   least one page.  */
struct size_options
{
  uint64_t pmd_size, page_size;	/* 0: not given */
  bool seen_pmd, seen_page;
};

/* Take KEY (OPT_PMD_SIZE or OPT_PAGE_SIZE) with ARG into *S, or a usage
   error.  */
void size_option (struct argp_state *state, int key, const char *arg, struct size_options *s);

/* The usage error of a --pmd-size smaller than --page-size, if so.  */
void size_options_check (struct argp_state *state, const struct size_options *s);

/* --files-from=ARG into *LIST, refused when given twice or empty.  */
void files_from_argument (struct argp_state *state, const char **list, const char *arg);

/* STATUS, or 1 when the report on standard output could not be written
   (a full disk, a closed pipe): said on standard error.  */
int report_flushed (int status);

/* Open PATH, a report or manifest the user named, for writing (FLAGS:
   O_TRUNC or O_APPEND) as trust_open_output does (never through a
   symbolic link at its last component, never a FIFO or device or another
   user's file, nor one with another hard link), as a stream of MODE
   ("w", "a"); NULL with the reason in *ERR.  */
FILE *open_output (const char *path, int flags, const char *mode, struct diag *err);

#endif
