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

size_t
layout_new_phnum (const struct layout_plan *plan, const struct elf_file *file)
{
  return plan->stub.enabled ? plan->stub.new_phnum : file->phnum;
}

void
layout_new_phdr_table (const struct layout_plan *plan, const struct elf_file *file,
		       GElf_Phdr *out)
{
  if (plan->stub.enabled)
    stub_new_phdrs (plan, file, out);
  else
    for (size_t i = 0; i < file->phnum; i++)
      out[i] = layout_new_phdr (plan, file, i);
}

size_t
layout_new_shnum (const struct layout_plan *plan, const struct elf_file *file)
{
  return plan->stub.add_section ? plan->stub.new_shnum : file->shnum;
}

void
layout_new_shdr_table (const struct layout_plan *plan, const struct elf_file *file,
		       GElf_Shdr *out)
{
  if (plan->stub.add_section)
    stub_new_shdrs (plan, file, out);
  else
    for (size_t i = 0; i < file->shnum; i++)
      out[i] = layout_new_shdr (plan, file, i);
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

const char *
layout_insertion_blocked (const struct elf_file *file, uint64_t at, char *buf, size_t len)
{
  const GElf_Ehdr *eh = &file->ehdr;
  if (at < eh->e_ehsize || at < elf_ehdr_size (file->elfclass))
    return "it would move the ELF header";
  uint64_t phsize = (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
  if (splits (eh->e_phoff, phsize, at))
    return "it would split the program header table";
  const GElf_Phdr *first = first_load (file);
  if (file->phnum != 0 && first != NULL && first->p_offset < at && at <= eh->e_phoff)
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
      if (sh->sh_type != SHT_NOBITS && splits (sh->sh_offset, sh->sh_size, at))
	{
	  char name[32];
	  snprintf (buf, len, "it would split section %s",
		    elf_file_section_name (file, i, name, sizeof name));
	  return buf;
	}
    }
  return NULL;
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

/* The modulus a PT_LOAD that is not being aligned must stay congruent in:
   its alignment or the page size, whichever is larger, if the input honours
   it; else the page size if the input honours that; else nothing (1).  */
static uint64_t
keep_modulus (const GElf_Phdr *ph, uint64_t page)
{
  uint64_t m = is_power_of_2 (ph->p_align) && ph->p_align > page ? ph->p_align : page;
  if (((ph->p_vaddr - ph->p_offset) & (m - 1)) == 0)
    return m;
  if (((ph->p_vaddr - ph->p_offset) & (page - 1)) == 0)
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
      uint64_t m = to_align (plan, i) ? plan->opts.pmd : keep_modulus (ph, plan->opts.page);
      uint64_t cur = ph->p_offset + shift;
      uint64_t extra = ((ph->p_vaddr & (m - 1)) - (cur & (m - 1))) & (m - 1);
      if (extra == 0)
	continue;

      char buf[128];
      const char *why = layout_insertion_blocked (file, ph->p_offset, buf, sizeof buf);
      if (why == NULL && plan->ninserts > 0 && plan->inserts[plan->ninserts - 1].at == ph->p_offset)
	why = "another PT_LOAD starts at the same offset";
      if (why == NULL && file->elfclass == ELFCLASS32
	  && (uint64_t) file->st.st_size + shift + extra > UINT32_MAX)
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
  plan->shnum = file->shnum;
  if (file->shnum != 0)
    {
      plan->section_offsets = calloc (file->shnum, sizeof *plan->section_offsets);
      if (plan->section_offsets == NULL)
	return diag_set (err, "out of memory");
    }
  for (size_t i = 0; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      bool has_bytes = sh->sh_type != SHT_NOBITS && sh->sh_size != 0;
      plan->section_offsets[i] = i == 0 ? sh->sh_offset
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
  plan->phnum = file->phnum;
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
    return -1;
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

  plan->stub.wanted = opts->madvise;
  if (stub_plan_build (plan, file, err) != 0)
    return -1;
  if (plan->stub.enabled)
    {
      plan->new_size = plan->stub.seg_offset + plan->stub.seg_size;
      if (plan->stub.table == STUB_TABLE_MOVED)
	plan->new_phoff = plan->stub.seg_offset;
      plan->changed = true;
      if (plan->stub.add_section)
	{
	  plan->new_shoff = plan->stub.shdr_offset;
	  plan->new_size = plan->stub.shdr_offset
			   + (uint64_t) plan->stub.new_shnum * elf_shdr_size (file->elfclass);
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

/* Whether [OFFSET, OFFSET + LEN) lies inside a file of SIZE bytes.  */
static bool
inside (uint64_t offset, uint64_t len, uint64_t size)
{
  return offset <= size && len <= size - offset;
}

/* The address the kernel before 5.18 passes as AT_PHDR, from program
   headers PH (N of them) and program header table offset PHOFF.  */
static bool
old_kernel_at_phdr (const GElf_Phdr *first, uint64_t first_offset, uint64_t phoff,
		    uint64_t *at_phdr)
{
  if (first == NULL)
    return false;
  *at_phdr = first->p_vaddr - first_offset + phoff;
  return true;
}

/* Check a table grown in place (TABLE, its N entries): inside the first
   PT_LOAD's file contents, described by PT_PHDR, overlapping no segment
   and no section, with the moved objects' copy inside the stub's segment
   before its code.  */
static int
check_grown_table (const struct layout_plan *plan, const struct elf_file *file,
		   const GElf_Phdr *table, size_t n, struct diag *err)
{
  const struct stub_plan *sp = &plan->stub;
  uint64_t start = plan->new_phoff, end = start + (uint64_t) n * elf_phdr_size (file->elfclass);
  const GElf_Phdr *first = NULL;
  for (size_t i = 0; i < n && first == NULL; i++)
    if (table[i].p_type == PT_LOAD)
      first = &table[i];
  if (first == NULL || start < first->p_offset || end - first->p_offset > first->p_filesz)
    return diag_set (err, "internal error: the grown program header table would leave the first PT_LOAD");
  for (size_t i = 0; i < n; i++)
    {
      const GElf_Phdr *ph = &table[i];
      if (ph->p_type == PT_PHDR ? ph->p_offset != start || ph->p_filesz != end - start
	  : ph->p_type != PT_LOAD && ph->p_filesz != 0 && ph->p_offset < end
	    && start < ph->p_offset + ph->p_filesz)
	return diag_set (err, "internal error: program header %zu would not fit the grown table", i);
    }
  size_t shnum = layout_new_shnum (plan, file);
  GElf_Shdr *sections = calloc (shnum != 0 ? shnum : 1, sizeof *sections);
  if (sections == NULL)
    return diag_set (err, "out of memory");
  layout_new_shdr_table (plan, file, sections);
  int ret = 0;
  for (size_t i = 1; i < shnum && ret == 0; i++)
    {
      const GElf_Shdr *sh = &sections[i];
      if (sh->sh_type != SHT_NOBITS && sh->sh_size != 0 && sh->sh_offset < end
	  && start < sh->sh_offset + sh->sh_size)
	ret = diag_set (err, "internal error: section %zu would overlap the grown program header table", i);
    }
  free (sections);
  if (ret == 0 && (sp->moved_offset < sp->seg_offset || sp->moved_end < sp->moved_start
		   || sp->moved_end - sp->moved_start > sp->code_offset - sp->moved_offset))
    ret = diag_set (err, "internal error: the moved objects would not fit before the stub");
  return ret;
}

/* Check the stub's segment: above every other segment in memory and after
   all contents in the file, page-congruent, and where AT_PHDR as kernels
   before 5.18 compute it finds the new program header table.  */
static int
check_stub (const struct layout_plan *plan, const struct elf_file *file, struct diag *err)
{
  const struct stub_plan *sp = &plan->stub;
  size_t n = sp->new_phnum;
  GElf_Phdr *table = calloc (n, sizeof *table);
  if (table == NULL)
    return diag_set (err, "out of memory");
  layout_new_phdr_table (plan, file, table);
  int ret = 0;
  const GElf_Phdr *first = NULL, *prev = NULL;
  uint64_t page = plan->opts.page;
  for (size_t i = 0; i < n && ret == 0; i++)
    {
      const GElf_Phdr *ph = &table[i];
      if (ph->p_type != PT_LOAD)
	continue;
      if (first == NULL)
	first = ph;
      if (prev != NULL && ph->p_vaddr < prev->p_vaddr + prev->p_memsz)
	ret = diag_set (err, "internal error: the stub's segment would overlap PT_LOAD %zu", i);
      if (((ph->p_vaddr - ph->p_offset) & (page - 1)) != 0)
	ret = diag_set (err, "internal error: PT_LOAD %zu would not be page-congruent", i);
      prev = ph;
    }
  /* AT_PHDR as kernels before 5.18 compute it: the table where it was, or
     the new one at the start of the stub's segment.  */
  uint64_t want = sp->table != STUB_TABLE_MOVED
    ? file->phdrs[first_load (file) - file->phdrs].p_vaddr
      - file->phdrs[first_load (file) - file->phdrs].p_offset + file->ehdr.e_phoff
    : sp->seg_vaddr;
  if (ret == 0 && (first == NULL || first->p_vaddr - first->p_offset + plan->new_phoff != want))
    ret = diag_set (err, "internal error: AT_PHDR for kernels before 5.18 would miss the table");
  if (ret == 0 && sp->table == STUB_TABLE_GROWN)
    ret = check_grown_table (plan, file, table, n, err);
  uint64_t end = sp->seg_offset + sp->seg_size;
  if (sp->add_section)
    end = sp->shdr_offset + (uint64_t) sp->new_shnum * elf_shdr_size (file->elfclass);
  if (ret == 0 && (sp->seg_offset < layout_map_offset (plan, plan->old_size)
		   || end != plan->new_size || (sp->add_section && plan->new_shoff != sp->shdr_offset)))
    ret = diag_set (err, "internal error: the stub's segment would overlap the file's contents");
  if (ret == 0 && (sp->entry_vaddr < sp->seg_vaddr
		   || sp->entry_vaddr >= sp->seg_vaddr + sp->seg_size))
    ret = diag_set (err, "internal error: the stub's entry is outside its segment");
  free (table);
  return ret;
}

int
layout_plan_check (const struct layout_plan *plan, const struct elf_file *file,
		   struct diag *err)
{
  for (size_t k = 0; k < plan->ninserts; k++)
    {
      const struct layout_insert *ins = &plan->inserts[k];
      char buf[128];
      if (ins->at > plan->old_size || ins->pad == 0)
	return diag_set (err, "internal error: padding %zu at %#" PRIx64 " is invalid", k, ins->at);
      if (k > 0 && ins->at <= plan->inserts[k - 1].at)
	return diag_set (err, "internal error: padding %zu is out of order", k);
      bool at_load_start = false;
      for (size_t i = 0; i < file->phnum; i++)
	if (file->phdrs[i].p_type == PT_LOAD && file->phdrs[i].p_offset == ins->at)
	  at_load_start = true;
      if (!at_load_start)
	return diag_set (err, "internal error: padding at %#" PRIx64 " is not at a PT_LOAD start", ins->at);
      const char *why = layout_insertion_blocked (file, ins->at, buf, sizeof buf);
      if (why != NULL)
	return diag_set (err, "internal error: padding at %#" PRIx64 " is not allowed: %s", ins->at, why);
    }
  if (plan->new_size < plan->old_size)
    return diag_set (err, "internal error: the output would be shorter than the input");
  if (file->elfclass == ELFCLASS32 && plan->new_size > UINT32_MAX)
    return diag_set (err, "internal error: the ELF32 output would exceed 4 GiB");

  size_t phsize = elf_phdr_size (file->elfclass);
  if (file->phnum != 0 && !plan->stub.enabled
      && (plan->new_phoff != layout_map_offset (plan, file->ehdr.e_phoff)
	  || !inside (plan->new_phoff, (uint64_t) file->phnum * phsize, plan->new_size)))
    return diag_set (err, "internal error: the program header table would not follow the map");
  if (plan->stub.enabled && check_stub (plan, file, err) != 0)
    return -1;
  if (file->shnum != 0 && !plan->stub.add_section
      && (plan->new_shoff != layout_map_offset (plan, file->ehdr.e_shoff)
	  || !inside (plan->new_shoff, (uint64_t) file->shnum * elf_shdr_size (file->elfclass),
		      plan->new_size)))
    return diag_set (err, "internal error: the section header table would not follow the map");

  /* AT_PHDR as kernels before 5.18 and qemu-user compute it must not change.  */
  const GElf_Phdr *first = first_load (file);
  uint64_t before, after;
  if (!plan->stub.enabled
      && old_kernel_at_phdr (first, first ? first->p_offset : 0, file->ehdr.e_phoff, &before)
      && old_kernel_at_phdr (first, plan->segs[first - file->phdrs].new_offset, plan->new_phoff,
			     &after)
      && before != after)
    return diag_set (err, "internal error: AT_PHDR for kernels before 5.18 would change");

  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *old = &file->phdrs[i];
      GElf_Phdr ph = layout_new_phdr (plan, file, i);
      const struct segment_plan *sp = &plan->segs[i];
      if (old->p_filesz != 0 && ph.p_offset != layout_map_offset (plan, old->p_offset))
	return diag_set (err, "internal error: program header %zu would not follow the map", i);
      if (old->p_filesz != 0 && !inside (ph.p_offset, ph.p_filesz, plan->new_size))
	return diag_set (err, "internal error: program header %zu would extend past the end", i);
      if (old->p_type == PT_LOAD && file->skip_reason == NULL)
	{
	  uint64_t m = keep_modulus (old, plan->opts.page);
	  if (((ph.p_vaddr - ph.p_offset) & (m - 1)) != 0)
	    return diag_set (err, "internal error: PT_LOAD %zu would lose its congruence modulo %#" PRIx64,
			     i, m);
	}
      if (sp->action != SEGMENT_ALIGNED && sp->action != SEGMENT_PADDED)
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

  /* The map is monotone, so sections and segments keep their order; check
     that nothing that did not overlap before overlaps now.  */
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      uint64_t off = plan->section_offsets[i];
      if (sh->sh_type != SHT_NOBITS && sh->sh_size != 0)
	{
	  if (off != layout_map_offset (plan, sh->sh_offset) || !inside (off, sh->sh_size, plan->new_size))
	    return diag_set (err, "internal error: section %zu would not follow the map", i);
	}
      else if (off < sh->sh_offset)
	return diag_set (err, "internal error: section %zu would move backwards", i);
    }
  return 0;
}
