/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Which PT_LOAD segments may be aligned to the PMD size, and what the PMD size is.  */
#ifndef ELFPMD_PHDR_ALIGN_H
#define ELFPMD_PHDR_ALIGN_H

#include "diag.h"

#include <stdbool.h>
#include <stdint.h>

/* The kernel refuses to align to PMD sizes above this (seed 001).  */
#define PMD_ALIGN_LIMIT ((uint64_t) 32 << 20)

/* The fields of one PT_LOAD that the rules look at, in native form.  */
struct load_segment
{
  uint64_t offset;
  uint64_t vaddr;
  uint64_t filesz;
  uint64_t memsz;
  uint64_t align;
  uint32_t flags;
};

/* The verdict of a rule on one segment: RULE_ELIGIBLE, or the first condition
   that failed.  */
enum rule_verdict
{
  RULE_ELIGIBLE = 0,
  RULE_ALIGN_NOT_POWER_OF_2,	/* p_align is not a power of two */
  RULE_PMD_TOO_LARGE,		/* PMD size above 32 MiB */
  RULE_NOT_PMD_ALIGNED,		/* kernel: p_vaddr or p_offset not PMD-aligned */
  RULE_FILESZ_BELOW_PMD,	/* kernel: p_filesz < PMD */
  RULE_WRITABLE,		/* PF_W set */
  RULE_NO_WHOLE_CHUNK,		/* relaxed: no whole PMD-aligned chunk inside */
  RULE_NOT_CONGRUENT,		/* relaxed: p_vaddr != p_offset mod PMD, needs padding */
  RULE_ALREADY_ALIGNED,		/* p_align >= PMD already */
};

enum align_rule
{
  ALIGN_RULE_RELAXED,
  ALIGN_RULE_KERNEL,
};

/* The kernel's should_align_to_pmd() of seed 001 together with the two tests
   maximum_alignment() makes around it, in the kernel's order, except the
   THP-mode test, which belongs to the machine that will run the file.  */
enum rule_verdict kernel_rule (const struct load_segment *seg, uint64_t pmd);

/* The relaxed rule: not writable, at least one whole PMD-aligned chunk of file
   contents inside, p_vaddr congruent with p_offset modulo PMD (or reported as
   needing padding), p_align below PMD.  */
enum rule_verdict relaxed_rule (const struct load_segment *seg, uint64_t pmd);

/* A short phrase for VERDICT ("p_vaddr or p_offset not PMD-aligned").  */
const char *rule_verdict_string (enum rule_verdict verdict);
/* A stable identifier for VERDICT ("not_pmd_aligned"), for JSON.  */
const char *rule_verdict_id (enum rule_verdict verdict);

/* The one computation of whole chunks, for the planner, status (over a
   mapping), prime (over file offsets) and map: the number of PMD-aligned
   [C, C + PMD) inside [START, START + SIZE), and the first such C in
   *FIRST when FIRST is not NULL.  A range that would pass the end of the
   address space (2^64) ends there, so that no chunk wraps to 0.  */
static inline uint64_t
pmd_chunks_in_range (uint64_t start, uint64_t size, uint64_t pmd, uint64_t *first)
{
  if (start != 0 && size > 0 - start)
    size = 0 - start;
  /* In offsets from START, so nothing can wrap: the first aligned C lies
     inside only if the distance to it is below SIZE.  */
  uint64_t lead = (pmd - (start & (pmd - 1))) & (pmd - 1);
  if (first != NULL)
    *first = start + (lead < size ? lead : 0);
  return lead < size ? (size - lead) / pmd : 0;
}

/* Number of whole PMD-aligned chunks [C, C + PMD) of the segment's virtual
   range that are backed by file contents: p_vaddr <= C and
   C + PMD <= p_vaddr + min (p_filesz, p_memsz).  */
uint64_t pmd_chunks_inside (const struct load_segment *seg, uint64_t pmd);

/* Whether the segment's file offset is congruent with its address modulo PMD.  */
static inline bool
pmd_congruent (const struct load_segment *seg, uint64_t pmd)
{
  return (seg->vaddr & (pmd - 1)) == (seg->offset & (pmd - 1));
}

#endif
