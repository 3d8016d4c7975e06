/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The rewrite plan, composed: the layout's copies and mapped headers, then
   the stub's changes, then the headers encoded once, here, then the new
   build-id over everything before it.  */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "elf_encode.h"
#include "plan.h"

/* The output's headers as the layout alone makes them.  */
static int
layout_tables (const struct layout_plan *layout, const struct elf_file *file,
	       struct plan_tables *t, struct diag *err)
{
  t->ehdr = file->ehdr;
  t->ehdr.e_phoff = layout->new_phoff;
  t->ehdr.e_shoff = layout->new_shoff;
  t->phnum = file->phnum;
  t->shnum = file->shnum;
  t->phdrs = calloc (file->phnum != 0 ? file->phnum : 1, sizeof *t->phdrs);
  t->shdrs = calloc (file->shnum != 0 ? file->shnum : 1, sizeof *t->shdrs);
  if (t->phdrs == NULL || t->shdrs == NULL)
    return diag_set (err, "out of memory");
  for (size_t i = 0; i < file->phnum; i++)
    t->phdrs[i] = layout_new_phdr (layout, file, i);
  for (size_t i = 0; i < file->shnum; i++)
    t->shdrs[i] = layout_new_shdr (layout, file, i);
  t->size = layout->new_size;
  return 0;
}

/* The input's bytes between the insertions, each run to its new place.  */
static int
layout_copies (const struct layout_plan *layout, struct plan_pieces *pieces, struct diag *err)
{
  uint64_t start = 0;
  for (size_t k = 0; k <= layout->ninserts; k++)
    {
      uint64_t end = k < layout->ninserts ? layout->inserts[k].at : layout->old_size;
      if (end > start
	  && pieces_add_copy (pieces, start, layout_map_offset (layout, start), end - start, err) != 0)
	return -1;
      start = end;
    }
  return 0;
}

/* Encode COUNT records of TYPE at SRC and add them as a patch of KIND at
   OFFSET.  */
static int
add_records (const struct elf_file *file, struct plan_pieces *pieces, enum patch_kind kind,
	     Elf_Type type, const void *src, size_t count, uint64_t offset, struct diag *err)
{
  unsigned char *buf;
  size_t len;
  if (elf_encode (file->elfclass, file->data, type, src, count, &buf, &len, err) != 0)
    return -1;
  return pieces_add_patch (pieces, kind, offset, buf, len, err);
}

/* Encode the header tables: a count that changed and does not fit the ELF
   header goes to section 0 (PN_XNUM, SHN_LORESERVE); counts that did not
   change keep the input's encoding; only what differs from the input is
   written.  */
static int
encode_tables (struct rewrite_plan *plan, const struct elf_file *file, struct diag *err)
{
  struct plan_tables *t = &plan->tables;
  GElf_Ehdr *eh = &t->ehdr;
  if (t->phnum != file->phnum && t->phnum >= PN_XNUM)
    {
      if (t->shnum == 0)
	return diag_set (err, "internal error: %zu program headers need section 0 to count them",
			 t->phnum);
      eh->e_phnum = PN_XNUM;
      t->shdrs[0].sh_info = (GElf_Word) t->phnum;
    }
  else if (t->phnum != file->phnum)
    {
      /* A count that no longer needs section 0 leaves nothing there.  */
      if (eh->e_phnum == PN_XNUM && t->shnum != 0)
	t->shdrs[0].sh_info = 0;
      eh->e_phnum = (GElf_Half) t->phnum;
    }
  if (t->shnum != file->shnum && t->shnum >= SHN_LORESERVE)
    {
      eh->e_shnum = 0;
      t->shdrs[0].sh_size = t->shnum;
    }
  else if (t->shnum != file->shnum)
    {
      if (eh->e_shnum == 0 && t->shnum != 0)
	t->shdrs[0].sh_size = 0;
      eh->e_shnum = (GElf_Half) t->shnum;
    }

  bool ehdr_same = memcmp (eh, &file->ehdr, sizeof *eh) == 0;
  if (!ehdr_same
      && add_records (file, &plan->pieces, PATCH_EHDR, ELF_T_EHDR, eh, 1, 0, err) != 0)
    return -1;
  bool phdrs_same = t->phnum == file->phnum && eh->e_phoff == file->ehdr.e_phoff
		    && (t->phnum == 0 || memcmp (t->phdrs, file->phdrs, t->phnum * sizeof *t->phdrs) == 0);
  if (t->phnum != 0 && !phdrs_same
      && add_records (file, &plan->pieces, PATCH_PHDRS, ELF_T_PHDR, t->phdrs, t->phnum,
		      eh->e_phoff, err) != 0)
    return -1;
  bool shdrs_same = t->shnum == file->shnum && eh->e_shoff == file->ehdr.e_shoff
		    && (t->shnum == 0 || memcmp (t->shdrs, file->shdrs, t->shnum * sizeof *t->shdrs) == 0);
  if (t->shnum != 0 && !shdrs_same
      && add_records (file, &plan->pieces, PATCH_SHDRS, ELF_T_SHDR, t->shdrs, t->shnum,
		      eh->e_shoff, err) != 0)
    return -1;
  plan->changed = plan->layout.changed || plan->stub.enabled || !ehdr_same || !phdrs_same
		  || !shdrs_same;
  return 0;
}

int
rewrite_plan_build (struct rewrite_plan *plan, const struct elf_file *file,
		    const struct plan_options *opts, struct diag *err)
{
  memset (plan, 0, sizeof *plan);
  plan->old_size = (uint64_t) file->st.st_size;
  plan->pmd = opts->layout.pmd;
  plan->page = opts->layout.page;
  if (layout_plan_build (&plan->layout, file, &opts->layout, err) != 0)
    return -1;
  plan->holes = plan->layout.ninserts;
  struct stub_options so = {
    .req = opts->stub, .pmd = opts->layout.pmd, .page = opts->layout.page,
  };
  if (stub_plan_build (&plan->stub, &plan->layout, file, &so, err) != 0
      || layout_tables (&plan->layout, file, &plan->tables, err) != 0
      || layout_copies (&plan->layout, &plan->pieces, err) != 0
      || (plan->stub.enabled
	  && stub_compose (&plan->stub, &plan->layout, file, &plan->tables, &plan->pieces, err) != 0)
      || (file->skip_reason == NULL && encode_tables (plan, file, err) != 0)
      || (file->skip_reason == NULL && build_id_compose (plan, file, opts->build_id, err) != 0))
    {
      rewrite_plan_free (plan);
      return -1;
    }
  return 0;
}

void
rewrite_plan_free (struct rewrite_plan *plan)
{
  layout_plan_free (&plan->layout);
  free (plan->tables.phdrs);
  free (plan->tables.shdrs);
  plan->tables.phdrs = NULL;
  plan->tables.shdrs = NULL;
  pieces_free (&plan->pieces);
}
