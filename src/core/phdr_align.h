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

/* The architecture facts elfpmd needs about one e_machine.  */
struct machine_info
{
  const char *name;		/* "x86-64" */
  uint64_t default_page;	/* base page size of the usual kernel configuration */
  uint64_t pmd;			/* PMD size for PAGE (filled by machine_pmd_size) */
  uint64_t page;
  const char *note;		/* how PMD was derived, for the report */
};

/* Fill *INFO for E_MACHINE and ELFCLASS with the PMD size for base page size
   PAGE (0 for the architecture's usual one).  Return NULL, or a static string
   saying why no PMD size is known (unknown machine, page size not supported by
   that architecture).  */
const char *machine_pmd_size (unsigned e_machine, int elfclass, uint64_t page,
			      struct machine_info *info);

/* A printable name of E_MACHINE, for machines elfpmd knows and some it does not.  */
const char *machine_name (unsigned e_machine, int elfclass);

/* The machine of NAME, a name machine_name gives (x86-64, aarch64, ...) or
   "host" (the machine elfpmd was built for), into *E_MACHINE and
   *ELFCLASS (ELFCLASSNONE where the name fits both classes); false for a
   name it never gives.  */
bool machine_by_name (const char *name, unsigned *e_machine, int *elfclass);

/* The PMD and page size for a file of E_MACHINE and ELFCLASS under the
   options PMD_SIZE and PAGE_SIZE (--pmd-size, --page-size; 0 when not
   given), as every verb decides them, into *PMD and *PAGE, and where the
   PMD size came from in SOURCE (LEN bytes).  Return 0, or -1 with the
   reason in *ERR.  */
int choose_sizes (unsigned e_machine, int elfclass, uint64_t pmd_size, uint64_t page_size,
		  uint64_t *pmd, uint64_t *page, char *source, size_t len, struct diag *err);

#endif
