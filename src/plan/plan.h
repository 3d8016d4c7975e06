/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The rewrite plan: everything the output will be, decided before anything
   is written.

   It is composed of the layout plan (the offset map and what happens to
   each segment, which knows nothing of a stub) and, when asked for, the
   stub plan built from it.  This is the one place where the output's
   header tables are composed and encoded.  What the writer applies and the
   checker verifies is plain data: copies of input ranges, literal patches
   and the final tables (pieces.h).  */
#ifndef ELFPMD_PLAN_H
#define ELFPMD_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "build_id.h"
#include "diag.h"
#include "elf_file.h"
#include "layout.h"
#include "pieces.h"
#include "stub.h"

struct plan_options
{
  struct layout_options layout;
  struct stub_request stub;	/* --madvise and its options */
  enum build_id_policy build_id; /* --build-id */
};

struct rewrite_plan
{
  struct layout_plan layout;
  struct stub_plan stub;
  struct plan_tables tables;	/* the output's headers */
  struct plan_pieces pieces;	/* how the output is made from the input */
  uint64_t old_size;
  bool changed;			/* the output differs from the input */
  uint64_t pmd, page;
  size_t holes;			/* padding holes inserted */
  struct plan_build_id build_id;	/* the build-id before and after */
};

/* Plan the rewrite of FILE under OPTS into *PLAN.  Return 0, or -1 with the
   reason in *ERR (PLAN then holds nothing to free).  */
int rewrite_plan_build (struct rewrite_plan *plan, const struct elf_file *file,
			const struct plan_options *opts, struct diag *err);

void rewrite_plan_free (struct rewrite_plan *plan);

#endif
