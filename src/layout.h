/* The layout plan: what the output file looks like, decided before anything
   is written.

   The plan is a monotone map from old file offsets to new ones.  Padding
   (a hole) may be inserted before a PT_LOAD's start; every byte of the input
   lands at its mapped offset, and every header field that holds a file offset
   follows the map.  This planner inserts no padding yet; the map is
   then the identity and only p_align fields change.  */
#ifndef ELFPMD_LAYOUT_H
#define ELFPMD_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "elf_file.h"
#include "phdr_align.h"

/* What the plan does to one program header.  */
enum segment_action
{
  SEGMENT_UNCHANGED,
  SEGMENT_ALIGNED,		/* p_align raised to PMD */
  SEGMENT_NEEDS_PADDING,	/* eligible once its file offset moves; not done */
};

struct segment_plan
{
  enum rule_verdict kernel;	/* verdict of the kernel rule (PT_LOAD only) */
  enum rule_verdict relaxed;	/* verdict of the relaxed rule (PT_LOAD only) */
  enum rule_verdict chosen;	/* verdict of the rule in effect */
  enum segment_action action;
  uint64_t new_offset;
  uint64_t new_align;
};

/* PAD bytes of hole inserted before old file offset AT.  */
struct layout_insert
{
  uint64_t at;
  uint64_t pad;
};

struct layout_options
{
  enum align_rule rule;
  uint64_t pmd;
  uint64_t page;
};

struct layout_plan
{
  struct layout_options opts;
  size_t phnum;
  struct segment_plan *segs;	/* one per program header */
  size_t ninserts;
  struct layout_insert *inserts; /* sorted by AT, no duplicates */

  uint64_t old_size, new_size;
  uint64_t new_phoff, new_shoff;
  bool changed;			/* the output differs from the input */
  size_t aligned;		/* segments whose p_align is raised */
  size_t need_padding;		/* segments left alone because they need padding */

  uint64_t chunks_before;	/* whole PMD chunks of read-only segments PMD-mappable before */
  uint64_t chunks_after;	/* ... and after the rewrite */
  uint64_t old_max_align, new_max_align; /* largest power-of-two PT_LOAD p_align */
  unsigned aslr_bits_lost;	/* random bits of the load base the new alignment costs */
};

/* Decide, for FILE (opened and validated), what to change under OPTS.
   Return 0, or -1 with the reason in *ERR.  */
int layout_plan_build (struct layout_plan *plan, const struct elf_file *file,
		       const struct layout_options *opts, struct diag *err);

void layout_plan_free (struct layout_plan *plan);

/* The new offset of old file offset OLD under PLAN.  */
uint64_t layout_map_offset (const struct layout_plan *plan, uint64_t old);

/* The program header INDEX of FILE as PLAN rewrites it.  */
GElf_Phdr layout_new_phdr (const struct layout_plan *plan, const struct elf_file *file,
			   size_t index);

/* Check the invariants a plan must satisfy before anything is written: every
   aligned segment congruent modulo its new alignment, alignments powers of
   two, the map monotone, segments and tables inside the new file.  A failure
   is a bug in the planner.  Return 0, or -1 with the reason in *ERR.  */
int layout_plan_check (const struct layout_plan *plan, const struct elf_file *file,
		       struct diag *err);

const char *segment_action_name (enum segment_action action);

#endif
