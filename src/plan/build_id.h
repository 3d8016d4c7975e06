/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The build-id of a rewritten file (--build-id).

   A GNU build-id (the desc of an NT_GNU_BUILD_ID note named "GNU") names
   one file's contents: debuginfod, the dbgsym packages' .build-id trees
   and dh_strip's reuse of debug files find a file's debug data by it.  A
   file elfpmd changes gets a new one of the same length (derive, the
   default): the first bytes of SHA-256 over every piece of the plan (each
   copy, each patch) and the old build-id, so that the same input under the
   same options gives the same output, byte for byte.  keep leaves it as it
   was.  A file elfpmd leaves unchanged keeps its build-id either way.  */
#ifndef ELFPMD_BUILD_ID_H
#define ELFPMD_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "elf_file.h"

/* --build-id=derive (the default) or keep.  */
enum build_id_policy
{
  BUILD_ID_DERIVE,
  BUILD_ID_KEEP,
};

/* The longest build-id elfpmd derives (GNU ld writes 8 to 20 bytes, Go's
   -B gobuildid 32), and the most build-id notes it derives in one file
   (several are rare: each then gets its own).  A file beyond either fails
   with derive; keep rewrites it.  */
#define BUILD_ID_MAX 64
#define BUILD_ID_NOTES_MAX 8

/* What becomes of a file's build-id.  */
struct plan_build_id
{
  size_t notes;			/* GNU build-id notes in the file, 0: none */
  size_t len;			/* the first one's length (its desc), if not beyond BUILD_ID_MAX */
  unsigned char before[BUILD_ID_MAX], after[BUILD_ID_MAX];
  bool derived;			/* AFTER is new, patched in (PATCH_BUILD_ID) */
};

struct rewrite_plan;

/* Find the GNU build-id notes of FILE into PLAN->build_id and, under
   POLICY derive and for a plan that changes the file, add to PLAN's pieces
   a PATCH_BUILD_ID with a new build-id over each, derived from the pieces
   as they are before it.  Return 0, or -1 with the reason in *ERR.  */
int build_id_compose (struct rewrite_plan *plan, const struct elf_file *file,
		      enum build_id_policy policy, struct diag *err);

#endif
