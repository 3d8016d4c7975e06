/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The independent checker: proves a rewrite plan, and then the written file,
   consistent from the output's final tables alone.

   It shares no code with the planner (core/layout.c, core/text_chunks.c,
   inject/stub_plan.c): it never asks how an offset was mapped, only
   whether the result holds what a loader, ld.so, strip and the input's
   bytes require.  In the manner of dwz's layout
   checker it lists every byte range of the output (the ELF header, both
   header tables, each section), sorts them by offset and looks for overlaps,
   then checks containment, congruence, the kernel's and glibc's loader rules,
   AT_PHDR for programs, a bound on growth, and that every byte of the input
   lands where its headers say, with only the allowed patches in between.  */
#ifndef ELFPMD_CHECKER_H
#define ELFPMD_CHECKER_H

#include "diag.h"
#include "elf_file.h"
#include "plan.h"

/* Check PLAN for FILE before anything is written.  A failure is a bug in the
   planner: "internal error: ...".  Return 0, or -1 with the reason in *ERR.  */
int check_plan (const struct rewrite_plan *plan, const struct elf_file *file, struct diag *err);

/* Outputs up to this size check_output compares byte for byte with the
   input; in a larger one it compares each range at its edges and one page
   in every 4 MiB, which is where an off-by-something of the writer shows:
   reading all of a large output back would cost a quarter of the rewrite
   again.  Those samples it reads without read-ahead, so that the writer may
   drop a large input's pages from the page cache behind its copy.  */
#define CHECK_READ_BACK_WHOLE ((uint64_t) 64 << 20)

/* Check the written output OUT (opened like any input) against FILE and
   PLAN: its headers, the input's bytes where they belong (sampled in large
   ranges), every patch byte for byte, and zeros in the holes.  Return 0, or
   -1 with the reason in *ERR.  */
int check_output (const struct rewrite_plan *plan, const struct elf_file *file,
		  const struct elf_file *out, struct diag *err);

#endif
