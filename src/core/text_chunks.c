/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Which whole chunks of an object's text can be PMD-mapped (text_chunks.h).  */
#include <config.h>

#include <elf.h>
#include <stdlib.h>

#include "sizes.h"
#include "text_chunks.h"

bool
text_segment (const struct elf_file *file, size_t index)
{
  const GElf_Phdr *ph = &file->phdrs[index];
  return ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && !(ph->p_flags & PF_W);
}

uint64_t
load_max_align (const struct elf_file *file, const struct layout_plan *plan)
{
  uint64_t max = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (file->phdrs[i].p_type != PT_LOAD)
	continue;
      uint64_t align = plan != NULL ? plan->segs[i].new_align : file->phdrs[i].p_align;
      if (is_power_of_2 (align) && align > max)
	max = align;
    }
  return max;
}

bool
load_base_aligned (const struct elf_file *file, const struct layout_plan *plan, uint64_t pmd)
{
  return file->kind == OBJECT_EXECUTABLE || load_max_align (file, plan) >= pmd;
}

bool
text_chunk_run (const struct elf_file *file, const struct layout_plan *plan, size_t index,
		uint64_t pmd, bool base_aligned, struct chunk_run *run)
{
  if (!base_aligned || !text_segment (file, index))
    return false;
  struct load_segment seg = elf_file_load (file, index);
  if (plan != NULL)
    seg.offset = plan->segs[index].new_offset;
  if (!pmd_congruent (&seg, pmd))
    return false;
  uint64_t first, n = pmd_chunks_in_range (seg.vaddr, seg.filesz < seg.memsz ? seg.filesz
					   : seg.memsz, pmd, &first);
  if (n == 0)
    return false;
  /* (FIRST is inside the segment: no wrap below) */
  *run = (struct chunk_run) { .phdr = index, .vaddr = first,
			      .offset = seg.offset + (first - seg.vaddr), .n = n };
  return true;
}

uint64_t
text_chunks (const struct elf_file *file, const struct layout_plan *plan, uint64_t pmd)
{
  bool base = load_base_aligned (file, plan, pmd);
  uint64_t n = 0;
  struct chunk_run run;
  for (size_t i = 0; i < file->phnum; i++)
    if (text_chunk_run (file, plan, i, pmd, base, &run))
      n += run.n;
  return n;
}

uint64_t
mapping_chunks (uint64_t start, uint64_t end, uint64_t offset, uint64_t pmd, uint64_t *first)
{
  if (first != NULL)
    *first = start;
  if (((start - offset) & (pmd - 1)) != 0 || end <= start)
    return 0;
  return pmd_chunks_in_range (start, end - start, pmd, first);
}

int
text_chunk_offsets (const struct elf_file *file, uint64_t pmd, uint64_t **offsets, uint64_t *n)
{
  *offsets = NULL;
  *n = 0;
  bool base = load_base_aligned (file, NULL, pmd);
  size_t cap = 0;
  struct chunk_run run;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (!text_chunk_run (file, NULL, i, pmd, base, &run))
	continue;
      for (uint64_t k = 0, c = run.offset; k < run.n; k++, c += pmd)
	{
	  if (*n == cap)
	    {
	      cap = cap == 0 ? 16 : 2 * cap;
	      uint64_t *grown = realloc (*offsets, cap * sizeof *grown);
	      if (grown == NULL)
		{
		  free (*offsets);
		  *offsets = NULL;
		  return -1;
		}
	      *offsets = grown;
	    }
	  (*offsets)[(*n)++] = c;
	}
    }
  return 0;
}
