/* The layout plan: decide every change before writing, then prove it consistent.  */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "sizes.h"

const char *
segment_action_name (enum segment_action action)
{
  switch (action)
    {
    case SEGMENT_ALIGNED: return "aligned";
    case SEGMENT_NEEDS_PADDING: return "needs padding";
    default: return "unchanged";
    }
}

uint64_t
layout_map_offset (const struct layout_plan *plan, uint64_t old)
{
  uint64_t shift = 0;
  for (size_t i = 0; i < plan->ninserts && plan->inserts[i].at <= old; i++)
    shift += plan->inserts[i].pad;
  return old + shift;
}

GElf_Phdr
layout_new_phdr (const struct layout_plan *plan, const struct elf_file *file, size_t index)
{
  GElf_Phdr ph = file->phdrs[index];
  ph.p_offset = plan->segs[index].new_offset;
  ph.p_align = plan->segs[index].new_align;
  return ph;
}

/* The largest power-of-two p_align among the PT_LOADs, as the kernel's
   maximum_alignment() computes it, with NEW choosing planned alignments.  */
static uint64_t
max_load_align (const struct layout_plan *plan, const struct elf_file *file, bool new)
{
  uint64_t max = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (file->phdrs[i].p_type != PT_LOAD)
	continue;
      uint64_t align = new ? plan->segs[i].new_align : file->phdrs[i].p_align;
      if (is_power_of_2 (align) && align > max)
	max = align;
    }
  return max;
}

/* Whole PMD chunks of read-only PT_LOADs that a kernel can map with PMD pages,
   with NEW choosing the planned offsets and alignments: the chunk must be
   inside the segment's file contents, its file offset congruent, and the load
   base PMD-aligned (fixed for executables, the largest p_align otherwise).  */
static uint64_t
mappable_chunks (const struct layout_plan *plan, const struct elf_file *file, bool new)
{
  uint64_t pmd = plan->opts.pmd;
  bool base_aligned = file->kind == OBJECT_EXECUTABLE
		      || max_load_align (plan, file, new) >= pmd;
  if (!base_aligned)
    return 0;
  uint64_t chunks = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (file->phdrs[i].p_type != PT_LOAD)
	continue;
      struct load_segment seg = elf_file_load (file, i);
      if (new)
	seg.offset = plan->segs[i].new_offset;
      if (!(seg.flags & PF_W) && pmd_congruent (&seg, pmd))
	chunks += pmd_chunks_inside (&seg, pmd);
    }
  return chunks;
}

int
layout_plan_build (struct layout_plan *plan, const struct elf_file *file,
		   const struct layout_options *opts, struct diag *err)
{
  memset (plan, 0, sizeof *plan);
  plan->opts = *opts;
  plan->phnum = file->phnum;
  plan->old_size = (uint64_t) file->st.st_size;
  if (file->phnum != 0)
    {
      plan->segs = calloc (file->phnum, sizeof *plan->segs);
      if (plan->segs == NULL)
	return diag_set (err, "out of memory");
    }

  for (size_t i = 0; i < file->phnum; i++)
    {
      struct segment_plan *sp = &plan->segs[i];
      sp->new_align = file->phdrs[i].p_align;
      if (file->phdrs[i].p_type != PT_LOAD || file->skip_reason != NULL)
	continue;
      struct load_segment seg = elf_file_load (file, i);
      sp->kernel = kernel_rule (&seg, opts->pmd);
      sp->relaxed = relaxed_rule (&seg, opts->pmd);
      sp->chosen = opts->rule == ALIGN_RULE_KERNEL ? sp->kernel : sp->relaxed;
      if (sp->chosen == RULE_ELIGIBLE)
	{
	  sp->action = SEGMENT_ALIGNED;
	  sp->new_align = opts->pmd;
	  plan->aligned++;
	}
      else if (sp->chosen == RULE_NOT_CONGRUENT)
	{
	  sp->action = SEGMENT_NEEDS_PADDING;
	  plan->need_padding++;
	}
    }

  /* No padding yet: every offset maps to itself.  */
  for (size_t i = 0; i < file->phnum; i++)
    plan->segs[i].new_offset = layout_map_offset (plan, file->phdrs[i].p_offset);
  plan->new_size = layout_map_offset (plan, plan->old_size);
  plan->new_phoff = layout_map_offset (plan, file->ehdr.e_phoff);
  plan->new_shoff = file->ehdr.e_shoff == 0 ? 0 : layout_map_offset (plan, file->ehdr.e_shoff);
  plan->changed = plan->aligned > 0 || plan->ninserts > 0;

  if (file->skip_reason == NULL)
    {
      plan->old_max_align = max_load_align (plan, file, false);
      plan->new_max_align = max_load_align (plan, file, true);
      plan->chunks_before = mappable_chunks (plan, file, false);
      plan->chunks_after = mappable_chunks (plan, file, true);
      /* A position-independent object's base is randomised in pages and then
	 aligned to the largest p_align; each doubling of it costs one bit.  */
      if (file->kind == OBJECT_PIE || file->kind == OBJECT_SHARED)
	{
	  uint64_t before = plan->old_max_align > opts->page ? plan->old_max_align : opts->page;
	  uint64_t after = plan->new_max_align > opts->page ? plan->new_max_align : opts->page;
	  if (after > before)
	    plan->aslr_bits_lost = log2_exact (after) - log2_exact (before);
	}
    }
  return 0;
}

void
layout_plan_free (struct layout_plan *plan)
{
  free (plan->segs);
  free (plan->inserts);
  plan->segs = NULL;
  plan->inserts = NULL;
}

/* Whether [OFFSET, OFFSET + LEN) lies inside a file of SIZE bytes.  */
static bool
inside (uint64_t offset, uint64_t len, uint64_t size)
{
  return offset <= size && len <= size - offset;
}

int
layout_plan_check (const struct layout_plan *plan, const struct elf_file *file,
		   struct diag *err)
{
  for (size_t k = 0; k < plan->ninserts; k++)
    {
      const struct layout_insert *ins = &plan->inserts[k];
      if (ins->at > plan->old_size || ins->pad == 0)
	return diag_set (err, "internal error: padding %zu at %#" PRIx64 " is invalid", k, ins->at);
      if (k > 0 && ins->at <= plan->inserts[k - 1].at)
	return diag_set (err, "internal error: padding %zu is out of order", k);
    }
  if (plan->new_size < plan->old_size)
    return diag_set (err, "internal error: the output would be shorter than the input");

  size_t phsize = elf_phdr_size (file->elfclass);
  if (file->phnum != 0
      && (plan->new_phoff != layout_map_offset (plan, file->ehdr.e_phoff)
	  || !inside (plan->new_phoff, (uint64_t) file->phnum * phsize, plan->new_size)))
    return diag_set (err, "internal error: the program header table would not follow the map");
  if (file->shnum != 0
      && (plan->new_shoff != layout_map_offset (plan, file->ehdr.e_shoff)
	  || !inside (plan->new_shoff, (uint64_t) file->shnum * elf_shdr_size (file->elfclass),
		      plan->new_size)))
    return diag_set (err, "internal error: the section header table would not follow the map");

  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *old = &file->phdrs[i];
      GElf_Phdr ph = layout_new_phdr (plan, file, i);
      const struct segment_plan *sp = &plan->segs[i];
      if (ph.p_offset != layout_map_offset (plan, old->p_offset))
	return diag_set (err, "internal error: program header %zu would not follow the map", i);
      if (old->p_filesz != 0 && !inside (ph.p_offset, ph.p_filesz, plan->new_size))
	return diag_set (err, "internal error: program header %zu would extend past the end", i);
      if (sp->action != SEGMENT_ALIGNED)
	{
	  if (ph.p_align != old->p_align)
	    return diag_set (err, "internal error: program header %zu changes p_align unasked", i);
	  continue;
	}
      if (old->p_type != PT_LOAD || (old->p_flags & PF_W))
	return diag_set (err, "internal error: program header %zu is not a read-only PT_LOAD", i);
      if (!is_power_of_2 (ph.p_align) || ph.p_align != plan->opts.pmd)
	return diag_set (err, "internal error: PT_LOAD %zu alignment %#" PRIx64 " is not the PMD size",
			 i, (uint64_t) ph.p_align);
      /* What glibc before 2.35 insists on, and what makes a chunk mappable.  */
      if (((ph.p_vaddr - ph.p_offset) & (ph.p_align - 1)) != 0)
	return diag_set (err, "internal error: PT_LOAD %zu would not be congruent modulo p_align", i);
      if (ph.p_align < old->p_align)
	return diag_set (err, "internal error: PT_LOAD %zu alignment would shrink", i);
    }
  return 0;
}
