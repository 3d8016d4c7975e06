/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The layout plan: decide every change before writing, then prove it consistent.

   Planning runs in three steps.  First each PT_LOAD gets the verdicts of
   both rules.  Then the segments to align are walked in file order with the
   shift accumulated so far; where a segment's new offset would not be
   congruent with its address (modulo the PMD size for a segment to align,
   modulo its own alignment for any other), the smallest hole that makes it so
   is inserted at its start.  An insertion that would split something, or a
   segment whose own start cannot take one, makes that segment's padding
   refused, and the walk starts again without it.  Last, every offset in the
   headers is mapped.  */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "text_chunks.h"
#include "arith.h"
#include "sizes.h"

const char *
segment_action_name (enum segment_action action)
{
  switch (action)
    {
    case SEGMENT_ALIGNED: return "aligned";
    case SEGMENT_PADDED: return "padded and aligned";
    case SEGMENT_NEEDS_PADDING: return "needs padding";
    case SEGMENT_PADDING_REFUSED: return "padding refused";
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

uint64_t
layout_map_position (const struct layout_plan *plan, uint64_t old, bool alloc, uint64_t addr)
{
  uint64_t shift = 0;
  for (size_t i = 0; i < plan->ninserts && plan->inserts[i].at <= old; i++)
    if (plan->inserts[i].at < old || (alloc && addr >= plan->inserts[i].vaddr))
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

GElf_Shdr
layout_new_shdr (const struct layout_plan *plan, const struct elf_file *file, size_t index)
{
  GElf_Shdr sh = file->shdrs[index];
  sh.sh_offset = plan->section_offsets[index];
  return sh;
}

/* Whether old [OFF, OFF + LEN) would be split by an insertion at AT.  */
static bool
splits (uint64_t off, uint64_t len, uint64_t at)
{
  return off < at && at - off < len;
}

/* The PT_LOAD the kernel takes the load address from: the first one in the
   program header table.  */
static const GElf_Phdr *
first_load (const struct elf_file *file)
{
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD)
      return &file->phdrs[i];
  return NULL;
}

/* Whether FILE may be started by the kernel, which computes AT_PHDR for
   it: programs, and anything with an interpreter or an entry point (ld.so
   itself finds its table as the old kernels do).  A shared object only
   ld.so loads is found through PT_PHDR or the PT_LOAD that holds its
   table, which moves with that PT_LOAD.  */
static bool
run_by_kernel (const struct elf_file *file)
{
  return file->kind != OBJECT_SHARED || file->has_interp || file->ehdr.e_entry != 0;
}

/* Whether old file offset AT can take an insertion: it must not split the
   ELF header, a header table, a section or a segment, nor, for a program,
   move the program headers and the first PT_LOAD apart.  Return NULL, or the
   reason in BUF (LEN bytes).  */
static const char *
insertion_blocked (const struct elf_file *file, uint64_t at, char *buf, size_t len)
{
  const GElf_Ehdr *eh = &file->ehdr;
  if (at < eh->e_ehsize || at < elf_ehdr_size (file->elfclass))
    return "it would move the ELF header";
  uint64_t phsize = (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
  if (splits (eh->e_phoff, phsize, at))
    return "it would split the program header table";
  /* Kernels before 5.18 and qemu-user compute AT_PHDR as the first PT_LOAD's
     address minus its offset, plus e_phoff: both move, or neither.  */
  const GElf_Phdr *first = first_load (file);
  if (run_by_kernel (file) && file->phnum != 0 && first != NULL
      && (first->p_offset >= at) != (eh->e_phoff >= at))
    return "it would move the program headers away from the first PT_LOAD "
	   "(AT_PHDR as kernels before 5.18 compute it)";
  uint64_t shsize = (uint64_t) file->shnum * elf_shdr_size (file->elfclass);
  if (file->shnum != 0 && splits (eh->e_shoff, shsize, at))
    return "it would split the section header table";
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (splits (ph->p_offset, ph->p_filesz, at))
	{
	  snprintf (buf, len, "%s %zu overlaps it in the file", elf_phdr_type_name (ph->p_type), i);
	  return buf;
	}
    }
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if (sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL
	  && splits (sh->sh_offset, sh->sh_size, at))
	{
	  char name[32];
	  snprintf (buf, len, "it would split section %s",
		    elf_file_section_name (file, i, name, sizeof name));
	  return buf;
	}
    }
  return NULL;
}

/* The modulus the shift of a PT_LOAD that is not being aligned must be a
   multiple of, so that it stays as congruent as the input is: what glibc
   before 2.35 tests, (p_vaddr - p_offset) & (p_align - 1), if the input
   passes it (the next power of two of p_align keeps that pattern also for a
   p_align that is not one); else the page size if the input honours it;
   else nothing (1).  UINT64_MAX when no shift can keep it.  */
static uint64_t
keep_modulus (const GElf_Phdr *ph, uint64_t page)
{
  uint64_t d = ph->p_vaddr - ph->p_offset;
  if (ph->p_align > page && (d & (ph->p_align - 1)) == 0)
    return ph->p_align > ((uint64_t) 1 << 63) ? UINT64_MAX : pow2_at_least (ph->p_align);
  if ((d & (page - 1)) == 0)
    return page;
  return 1;
}

/* PT_LOAD indices of FILE sorted by file offset (ties by index), in ORDER.  */
static void
loads_in_file_order (const struct elf_file *file, size_t *order, size_t *n)
{
  *n = 0;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD)
      {
	size_t k = (*n)++;
	while (k > 0 && file->phdrs[order[k - 1]].p_offset > file->phdrs[i].p_offset)
	  {
	    order[k] = order[k - 1];
	    k--;
	  }
	order[k] = i;
      }
}

/* Whole PMD chunks inside program header INDEX.  */
static uint64_t
chunks_of (const struct elf_file *file, size_t index, uint64_t pmd)
{
  struct load_segment seg = elf_file_load (file, index);
  return pmd_chunks_inside (&seg, pmd);
}

/* Refuse the padding of segment INDEX, because of WHAT: REASON.  */
static void
refuse_padding (struct layout_plan *plan, size_t index, const char *what, const char *reason)
{
  struct segment_plan *sp = &plan->segs[index];
  sp->action = SEGMENT_PADDING_REFUSED;
  snprintf (sp->refusal_buf, sizeof sp->refusal_buf, "%s: %s", what, reason);
  sp->refusal = sp->refusal_buf;
}

/* Whether segment INDEX ends up aligned (so must be congruent modulo PMD).  */
static bool
to_align (const struct layout_plan *plan, size_t index)
{
  enum segment_action a = plan->segs[index].action;
  return a == SEGMENT_ALIGNED || a == SEGMENT_PADDED;
}

/* One walk over the PT_LOADs in file order, inserting the smallest holes.
   Returns true when every insertion it needs is possible; otherwise it
   refuses one segment's padding and returns false, to be called again.  */
static bool
place_insertions (struct layout_plan *plan, const struct elf_file *file, const size_t *order,
		  size_t nloads)
{
  plan->ninserts = 0;
  uint64_t shift = 0;
  size_t last_padded = SIZE_MAX;	/* the latest segment that was moved by its own hole */
  for (size_t k = 0; k < nloads; k++)
    {
      size_t i = order[k];
      const GElf_Phdr *ph = &file->phdrs[i];
      plan->segs[i].padding = 0;
      uint64_t pmd = plan->opts.pmd;
      uint64_t cur = ph->p_offset + shift;
      uint64_t extra;
      if (to_align (plan, i))
	extra = ((ph->p_vaddr & (pmd - 1)) - (cur & (pmd - 1))) & (pmd - 1);
      else
	{
	  /* The shift so far must become a multiple of M again.  */
	  uint64_t m = keep_modulus (ph, plan->opts.page);
	  extra = m == UINT64_MAX ? (shift != 0 ? UINT64_MAX : 0)
		  : (m - (shift & (m - 1))) & (m - 1);
	}
      if (extra == 0)
	continue;

      char buf[128];
      const char *why = insertion_blocked (file, ph->p_offset, buf, sizeof buf);
      /* Each hole is smaller than a PMD: a later segment whose own
	 alignment would need more is a refusal, not a huge file.  */
      if (why == NULL && extra >= plan->opts.pmd)
	{
	  snprintf (buf, sizeof buf, "keeping PT_LOAD %zu's p_align %#" PRIx64
		    " would take more than a PMD of padding", i, (uint64_t) ph->p_align);
	  why = buf;
	}
      uint64_t total;
      if (why == NULL && (!add_checked (plan->old_size, shift, &total)
			  || !add_checked (total, extra, &total)))
	why = "the file would grow past 2^64 bytes";
      if (why == NULL && plan->ninserts > 0 && plan->inserts[plan->ninserts - 1].at == ph->p_offset)
	why = "another PT_LOAD starts at the same offset";
      if (why == NULL && file->elfclass == ELFCLASS32
	  && total > UINT32_MAX)
	why = "the file would grow past 4 GiB, which ELF32 cannot address";
      if (why != NULL)
	{
	  if (to_align (plan, i) && plan->segs[i].action == SEGMENT_PADDED)
	    refuse_padding (plan, i, "cannot insert padding before it", why);
	  else if (to_align (plan, i) && last_padded != SIZE_MAX
		   && chunks_of (file, i, plan->opts.pmd) < chunks_of (file, last_padded, plan->opts.pmd))
	    {
	      /* A congruent segment moved by an earlier hole and unable to take
		 one of its own: give up its alignment rather than the earlier,
		 larger segment's.  It stays congruent modulo its own alignment,
		 which the earlier holes keep.  */
	      refuse_padding (plan, i, "moved by the padding before it and cannot take its own", why);
	    }
	  else if (last_padded != SIZE_MAX)
	    refuse_padding (plan, last_padded,
			    "a later PT_LOAD could not keep its alignment after the move", why);
	  else
	    {
	      /* Cannot happen: the first hole of a walk is always a padded
		 segment's own.  Stop here; the plan checker reports the
		 segment that is left incongruent as an internal error.  */
	      return true;
	    }
	  return false;
	}
      struct layout_insert *ins = &plan->inserts[plan->ninserts++];
      *ins = (struct layout_insert) { .at = ph->p_offset, .pad = extra, .vaddr = ph->p_vaddr };
      plan->segs[i].padding = extra;
      shift += extra;
      if (plan->segs[i].action == SEGMENT_PADDED)
	last_padded = i;
    }
  return true;
}

/* Decide each PT_LOAD's action from the rules.  */
static void
judge_segments (struct layout_plan *plan, const struct elf_file *file)
{
  const struct layout_options *opts = &plan->opts;
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
	sp->action = SEGMENT_ALIGNED;
      /* A segment whose p_align is already at least PMD keeps it: padding
	 would lower it to PMD.  (Its offset breaks its own alignment, so
	 glibc refuses the file as it is; elfpmd leaves that alone.)  */
      else if (sp->chosen == RULE_NOT_CONGRUENT && file->phdrs[i].p_align < opts->pmd)
	sp->action = opts->pad ? SEGMENT_PADDED : SEGMENT_NEEDS_PADDING;
    }
}

/* Map every header offset through the insertions.  */
static int
map_offsets (struct layout_plan *plan, const struct elf_file *file, struct diag *err)
{
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      plan->segs[i].new_offset = ph->p_filesz != 0 ? layout_map_offset (plan, ph->p_offset)
			       : layout_map_position (plan, ph->p_offset, ph->p_memsz != 0, ph->p_vaddr);
    }
  if (file->shnum != 0)
    {
      plan->section_offsets = calloc (file->shnum, sizeof *plan->section_offsets);
      if (plan->section_offsets == NULL)
	return diag_set (err, "out of memory");
    }
  for (size_t i = 0; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      bool has_bytes = sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL && sh->sh_size != 0;
      /* A section without bytes past the end refers to nothing: it stays.  */
      plan->section_offsets[i] = i == 0 || (!has_bytes && sh->sh_offset > plan->old_size)
				 ? sh->sh_offset
	: has_bytes ? layout_map_offset (plan, sh->sh_offset)
	: layout_map_position (plan, sh->sh_offset, (sh->sh_flags & SHF_ALLOC) != 0, sh->sh_addr);
    }
  plan->new_size = layout_map_offset (plan, plan->old_size);
  plan->new_phoff = layout_map_offset (plan, file->ehdr.e_phoff);
  plan->new_shoff = file->ehdr.e_shoff == 0 ? 0 : layout_map_offset (plan, file->ehdr.e_shoff);
  return 0;
}

int
layout_plan_build (struct layout_plan *plan, const struct elf_file *file,
		   const struct layout_options *opts, struct diag *err)
{
  memset (plan, 0, sizeof *plan);
  plan->opts = *opts;
  plan->old_size = (uint64_t) file->st.st_size;
  size_t *order = NULL;
  if (file->phnum != 0)
    {
      plan->segs = calloc (file->phnum, sizeof *plan->segs);
      plan->inserts = calloc (file->phnum, sizeof *plan->inserts);
      order = calloc (file->phnum, sizeof *order);
      if (plan->segs == NULL || plan->inserts == NULL || order == NULL)
	{
	  free (order);
	  layout_plan_free (plan);
	  return diag_set (err, "out of memory");
	}
    }

  judge_segments (plan, file);
  if (file->skip_reason == NULL)
    {
      size_t nloads;
      loads_in_file_order (file, order, &nloads);
      /* Each failed walk refuses one segment's padding, so this ends.  */
      while (!place_insertions (plan, file, order, nloads))
	;
    }
  free (order);

  for (size_t i = 0; i < file->phnum; i++)
    {
      struct segment_plan *sp = &plan->segs[i];
      switch (sp->action)
	{
	case SEGMENT_ALIGNED:
	  sp->new_align = opts->pmd;
	  plan->aligned++;
	  break;
	case SEGMENT_PADDED:
	  sp->new_align = opts->pmd;
	  plan->aligned++;
	  plan->padded++;
	  break;
	case SEGMENT_NEEDS_PADDING:
	  plan->need_padding++;
	  break;
	case SEGMENT_PADDING_REFUSED:
	  plan->refused++;
	  break;
	default:
	  break;
	}
    }
  if (map_offsets (plan, file, err) != 0)
    {
      layout_plan_free (plan);
      return -1;
    }
  plan->changed = plan->aligned > 0 || plan->ninserts > 0;

  if (file->skip_reason == NULL)
    {
      plan->old_max_align = load_max_align (file, NULL);
      plan->new_max_align = load_max_align (file, plan);
      plan->chunks_before = text_chunks (file, NULL, plan->opts.pmd);
      plan->chunks_after = text_chunks (file, plan, plan->opts.pmd);
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
  free (plan->section_offsets);
  plan->segs = NULL;
  plan->inserts = NULL;
  plan->section_offsets = NULL;
}
