/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The layout plan: what the output file looks like, decided before anything
   is written.

   The plan is a monotone map from old file offsets to new ones.  Padding
   (a hole) is inserted only at the file offset where a PT_LOAD starts, so that
   segments the rule wants aligned become congruent with their addresses modulo
   the PMD size while every other PT_LOAD stays congruent modulo its own
   alignment.  Every byte of the input lands at its mapped offset; every
   header field holding a file offset follows the map.  Addresses never move.  */
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
  SEGMENT_PADDED,		/* moved in the file to become congruent, then aligned */
  SEGMENT_NEEDS_PADDING,	/* eligible once its file offset moves; padding not allowed */
  SEGMENT_PADDING_REFUSED,	/* eligible once its file offset moves; the move is impossible */
};

struct segment_plan
{
  enum rule_verdict kernel;	/* verdict of the kernel rule (PT_LOAD only) */
  enum rule_verdict relaxed;	/* verdict of the relaxed rule (PT_LOAD only) */
  enum rule_verdict chosen;	/* verdict of the rule in effect */
  enum segment_action action;
  uint64_t new_offset;
  uint64_t new_align;
  uint64_t padding;		/* hole inserted right before this PT_LOAD */
  const char *refusal;		/* why padding was refused (SEGMENT_PADDING_REFUSED) */
  char refusal_buf[320];
};

/* PAD bytes of hole inserted before old file offset AT, where the PT_LOAD
   with address VADDR starts.  Bytes at AT and after move; so do empty and
   NOBITS sections and segments at AT whose address is VADDR or above.  */
struct layout_insert
{
  uint64_t at;
  uint64_t pad;
  uint64_t vaddr;
};

struct layout_options
{
  enum align_rule rule;
  uint64_t pmd;
  uint64_t page;
  bool pad;			/* may move contents (false: --no-pad) */
};

struct layout_plan
{
  struct layout_options opts;
  struct segment_plan *segs;	/* one per program header */
  size_t ninserts;
  struct layout_insert *inserts; /* sorted by AT, no duplicates */
  uint64_t *section_offsets;	/* new sh_offset of each section */

  uint64_t old_size, new_size;	/* NEW_SIZE: the input's end, mapped */
  uint64_t new_phoff, new_shoff; /* the header tables' offsets, mapped */
  bool changed;			/* the output differs from the input */
  size_t aligned;		/* segments whose p_align is raised */
  size_t padded;		/* segments moved in the file (and aligned) */
  size_t need_padding;		/* segments left alone because they need padding */
  size_t refused;		/* segments whose padding is impossible */

  uint64_t chunks_before;	/* whole text chunks PMD-mappable before (text_chunks.h) */
  uint64_t chunks_after;	/* ... and after the rewrite */
  uint64_t old_max_align, new_max_align; /* largest power-of-two PT_LOAD p_align */
  unsigned aslr_bits_lost;	/* random bits of the load base the new alignment costs */
};

/* Decide, for FILE (opened and validated), what to change under OPTS.
   Hostile numbers (alignments that would need more than a PMD of padding,
   offsets that would wrap) become refusals of padding, never a larger plan:
   each hole is smaller than the PMD size.  Return 0, or -1 with the reason
   in *ERR (PLAN then holds nothing to free).  */
int layout_plan_build (struct layout_plan *plan, const struct elf_file *file,
		       const struct layout_options *opts, struct diag *err);

void layout_plan_free (struct layout_plan *plan);

/* The new offset of old file offset OLD under PLAN: bytes at an insertion
   point move.  */
uint64_t layout_map_offset (const struct layout_plan *plan, uint64_t old);

/* The new offset of something empty (a NOBITS or empty section, a segment
   without file contents) at old offset OLD and address ADDR (ALLOC: it has
   one): at an insertion point it moves only if it belongs to the PT_LOAD
   starting there, judged by address.  */
uint64_t layout_map_position (const struct layout_plan *plan, uint64_t old, bool alloc,
			      uint64_t addr);

/* The program header INDEX of FILE as PLAN rewrites it.  */
GElf_Phdr layout_new_phdr (const struct layout_plan *plan, const struct elf_file *file,
			   size_t index);

/* Section header INDEX of FILE as PLAN rewrites it.  */
GElf_Shdr layout_new_shdr (const struct layout_plan *plan, const struct elf_file *file,
			   size_t index);

const char *segment_action_name (enum segment_action action);

#endif
