/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The eligibility rules for PMD alignment and the PMD size of each architecture.  */
#include <config.h>

#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "phdr_align.h"
#include "sizes.h"

#ifndef EM_LOONGARCH
# define EM_LOONGARCH 258
#endif

enum rule_verdict
kernel_rule (const struct load_segment *seg, uint64_t pmd)
{
  /* maximum_alignment() skips non-power-of-two alignments before it asks
     should_align_to_pmd().  */
  if (!is_power_of_2 (seg->align))
    return RULE_ALIGN_NOT_POWER_OF_2;
  if (pmd > PMD_ALIGN_LIMIT)
    return RULE_PMD_TOO_LARGE;
  if (((seg->vaddr | seg->offset) & (pmd - 1)) != 0)
    return RULE_NOT_PMD_ALIGNED;
  if (seg->filesz < pmd)
    return RULE_FILESZ_BELOW_PMD;
  if (seg->flags & PF_W)
    return RULE_WRITABLE;
  /* The kernel raises p_align only when it is below PMD_SIZE.  */
  if (seg->align >= pmd)
    return RULE_ALREADY_ALIGNED;
  return RULE_ELIGIBLE;
}

uint64_t
pmd_chunks_inside (const struct load_segment *seg, uint64_t pmd)
{
  return pmd_chunks_in_range (seg->vaddr, seg->filesz < seg->memsz ? seg->filesz : seg->memsz,
			      pmd, NULL);
}

enum rule_verdict
relaxed_rule (const struct load_segment *seg, uint64_t pmd)
{
  /* 0 and 1 both mean "no alignment constraint" in the ELF specification.  */
  if (seg->align > 1 && !is_power_of_2 (seg->align))
    return RULE_ALIGN_NOT_POWER_OF_2;
  if (seg->flags & PF_W)
    return RULE_WRITABLE;
  if (pmd > PMD_ALIGN_LIMIT)
    return RULE_PMD_TOO_LARGE;
  if (pmd_chunks_inside (seg, pmd) == 0)
    return RULE_NO_WHOLE_CHUNK;
  if (!pmd_congruent (seg, pmd))
    return RULE_NOT_CONGRUENT;
  if (seg->align >= pmd)
    return RULE_ALREADY_ALIGNED;
  return RULE_ELIGIBLE;
}

static const struct
{
  const char *id;
  const char *text;
} verdicts[] = {
  [RULE_ELIGIBLE] = { "eligible", "eligible" },
  [RULE_ALIGN_NOT_POWER_OF_2] = { "align_not_power_of_2", "p_align is not a power of two" },
  [RULE_PMD_TOO_LARGE] = { "pmd_too_large", "PMD size above 32 MiB" },
  [RULE_NOT_PMD_ALIGNED] = { "not_pmd_aligned", "p_vaddr or p_offset not PMD-aligned" },
  [RULE_FILESZ_BELOW_PMD] = { "filesz_below_pmd", "p_filesz smaller than PMD" },
  [RULE_WRITABLE] = { "writable", "writable" },
  [RULE_NO_WHOLE_CHUNK] = { "no_whole_chunk", "no whole PMD-aligned chunk inside" },
  [RULE_NOT_CONGRUENT] = { "not_congruent", "p_offset not congruent with p_vaddr mod PMD (needs padding)" },
  [RULE_ALREADY_ALIGNED] = { "already_aligned", "p_align already at least PMD" },
};

const char *
rule_verdict_string (enum rule_verdict verdict)
{
  return verdicts[verdict].text;
}

const char *
rule_verdict_id (enum rule_verdict verdict)
{
  return verdicts[verdict].id;
}
