/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The first entry of a shared object's DT_INIT_ARRAY, as the stub takes it
   over.

   ld.so finds the array through DT_INIT_ARRAY and DT_INIT_ARRAYSZ and
   calls every entry in order, with argc, argv and envp.  In a
   position-independent object each entry is an address that ld.so
   relocates at load time, so what it calls is decided by one word of the
   file: the r_addend of the entry's relative RELA relocation (the entry's
   own bytes are then ignored: GNU ld leaves zeros there), or, where DT_RELR
   packs the relocation and the addend is implicit, the entry itself.  That
   word gets the stub's entry point and the stub goes on to the old
   function.  Anything less plain is left alone: a symbolic relocation (the
   entry may be another object's function), a REL one (the addend is in the
   entry, but nothing here needs that yet), none (the entry would be right
   only at the link address), or more than one.

   Everything is found through the dynamic section, as ld.so finds it, not
   through section headers, which a file may lack or which may lie; every
   number is bounded by the PT_LOADs' file contents before it is used.  */
#include <config.h>

#include <elf.h>
#include <limits.h>

#include "init_array.h"

#ifndef DT_RELR
# define DT_RELRSZ 35
# define DT_RELR 36
# define DT_RELRENT 37
#endif

/* The dynamic entries read here, each of which may appear once.  */
enum dyn_key
{
  D_INIT_ARRAY, D_INIT_ARRAYSZ,
  D_RELA, D_RELASZ, D_RELAENT,
  D_REL, D_RELSZ, D_RELENT,
  D_JMPREL, D_PLTRELSZ, D_PLTREL,
  D_RELR, D_RELRSZ, D_RELRENT,
  D_KEYS
};

static const int64_t dyn_tags[D_KEYS] = {
  [D_INIT_ARRAY] = DT_INIT_ARRAY, [D_INIT_ARRAYSZ] = DT_INIT_ARRAYSZ,
  [D_RELA] = DT_RELA, [D_RELASZ] = DT_RELASZ, [D_RELAENT] = DT_RELAENT,
  [D_REL] = DT_REL, [D_RELSZ] = DT_RELSZ, [D_RELENT] = DT_RELENT,
  [D_JMPREL] = DT_JMPREL, [D_PLTRELSZ] = DT_PLTRELSZ, [D_PLTREL] = DT_PLTREL,
  [D_RELR] = DT_RELR, [D_RELRSZ] = DT_RELRSZ, [D_RELRENT] = DT_RELRENT,
};

struct dyn_values
{
  bool have[D_KEYS];
  uint64_t value[D_KEYS];
};

/* The relocations found to fill the entry.  */
struct hits
{
  size_t rela, rel, relr;
  GElf_Rela entry;		/* the RELA relocation, when RELA is 1 */
  uint64_t entry_offset;	/* its offset in the file */
};

/* Read the entries of FILE's dynamic section up to DT_NULL into *V.  Return
   NULL, or why not.  */
static const char *
read_dyn_values (const struct elf_file *file, struct dyn_values *v)
{
  *v = (struct dyn_values) { 0 };
  for (size_t k = 0; k < file->ndyn; k++)
    {
      GElf_Dyn d;
      if (gelf_getdyn (file->dyn, (int) k, &d) == NULL || d.d_tag == DT_NULL)
	break;
      for (int key = 0; key < D_KEYS; key++)
	if (d.d_tag == dyn_tags[key])
	  {
	    /* (ld.so would take the last one; such a file is not plain) */
	    if (v->have[key])
	      return "DT_INIT_ARRAY or a relocation table appears twice in the dynamic section";
	    v->have[key] = true;
	    v->value[key] = d.d_un.d_val;
	  }
    }
  return NULL;
}

/* The PT_LOAD of FILE whose file contents hold [ADDR, ADDR + LEN): its
   index, with the file offset of ADDR in *OFFSET; SIZE_MAX if there is
   none.  */
static size_t
file_bytes_at (const struct elf_file *file, uint64_t addr, uint64_t len, uint64_t *offset)
{
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_LOAD || addr < ph->p_vaddr)
	continue;
      uint64_t at = addr - ph->p_vaddr;
      if (at <= ph->p_filesz && len <= ph->p_filesz - at)
	{
	  *offset = ph->p_offset + at;
	  return i;
	}
    }
  return SIZE_MAX;
}

/* The table of SIZE bytes at address ADDR of FILE as records of TYPE, ENTSIZE
   bytes each in the file: its contents into *DATA, its count into *N and its
   file offset into *OFFSET.  Return NULL, or why not.  */
static const char *
read_table (const struct elf_file *file, uint64_t addr, uint64_t size, Elf_Type type,
	    uint64_t entsize, Elf_Data **data, size_t *n, uint64_t *offset)
{
  if (entsize != gelf_fsize (file->elf, type, 1, EV_CURRENT))
    return "a relocation table's entry size (DT_RELAENT, DT_RELENT or DT_RELRENT) is not its "
	   "records'";
  if (size % entsize != 0)
    return "a relocation table's size is not a whole number of entries";
  if (file_bytes_at (file, addr, size, offset) == SIZE_MAX)
    return "a relocation table lies outside the PT_LOADs' file contents";
  *n = size / entsize;
  *data = NULL;
  if (*n == 0)
    return NULL;
  if (*n > INT_MAX || size > SIZE_MAX)
    return "a relocation table is too large";
  *data = elf_getdata_rawchunk (file->elf, (int64_t) *offset, (size_t) size, type);
  if (*data == NULL)
    return "a relocation table cannot be read";
  return NULL;
}

/* Count in H the relocations of the RELA (IS_RELA) or REL table of SIZE
   bytes at address ADDR, ENTSIZE bytes each, whose place is SLOT; keep the
   RELA one.  A table that overlaps another (DT_JMPREL inside DT_RELA) shows
   the same relocation twice: it counts once.  Return NULL, or why not.  */
static const char *
scan_rel_table (const struct elf_file *file, uint64_t addr, uint64_t size, uint64_t entsize,
		bool is_rela, uint64_t slot, struct hits *h)
{
  Elf_Data *data;
  size_t n;
  uint64_t offset;
  const char *why = read_table (file, addr, size, is_rela ? ELF_T_RELA : ELF_T_REL, entsize,
				&data, &n, &offset);
  if (why != NULL)
    return why;
  for (size_t k = 0; k < n; k++)
    {
      GElf_Rela r;
      GElf_Rel r0;
      if (is_rela ? gelf_getrela (data, (int) k, &r) == NULL
	  : gelf_getrel (data, (int) k, &r0) == NULL)
	return "a relocation table cannot be read";
      if ((is_rela ? r.r_offset : r0.r_offset) != slot)
	continue;
      /* (cannot wrap: the table lies inside the file) */
      uint64_t at = offset + k * entsize;
      if (!is_rela)
	h->rel++;
      else if (h->rela == 0 || at != h->entry_offset)
	{
	  h->rela++;
	  h->entry = r;
	  h->entry_offset = at;
	}
    }
  return NULL;
}

/* Count in H->relr how often the DT_RELR table of SIZE bytes at address
   ADDR relocates SLOT.  Its entries are words: an even one is the address
   of a word to relocate, and the next WORD_BITS - 1 words after it are
   covered by the odd entries (bitmaps) that follow, bit I (from 1) for the
   word I - 1 past the previous bitmap's end.  Return NULL, or why not.  */
static const char *
scan_relr (const struct elf_file *file, uint64_t addr, uint64_t size, uint64_t entsize,
	   uint64_t slot, struct hits *h)
{
  bool is64 = file->elfclass == ELFCLASS64;
  Elf_Data *data;
  size_t n;
  uint64_t offset;
  const char *why = read_table (file, addr, size, is64 ? ELF_T_XWORD : ELF_T_WORD, entsize,
				&data, &n, &offset);
  if (why != NULL)
    return why;
  uint64_t word = entsize, bits = 8 * entsize, base = 0;
  bool started = false;
  for (size_t k = 0; k < n; k++)
    {
      uint64_t e = is64 ? ((const uint64_t *) data->d_buf)[k] : ((const uint32_t *) data->d_buf)[k];
      if ((e & 1) == 0)
	{
	  if (e == slot)
	    h->relr++;
	  base = e + word;
	  started = true;
	  continue;
	}
      if (!started)
	return "DT_RELR starts with a bitmap, not an address";
      /* (modulo 2^64 like ld.so's own pointer arithmetic: only equality
	 with SLOT matters) */
      for (uint64_t i = 1; i < bits; i++)
	if (((e >> i) & 1) != 0 && base + (i - 1) * word == slot)
	  h->relr++;
      base += (bits - 1) * word;
    }
  return NULL;
}

/* Count in H the relocations of every table of FILE (its dynamic values
   V) whose place is SLOT.  Return NULL, or why not.  */
static const char *
scan_relocations (const struct elf_file *file, const struct dyn_values *v, uint64_t slot,
		  struct hits *h)
{
  const uint64_t *val = v->value;
  const bool *have = v->have;
  uint64_t rela_size = gelf_fsize (file->elf, ELF_T_RELA, 1, EV_CURRENT);
  uint64_t rel_size = gelf_fsize (file->elf, ELF_T_REL, 1, EV_CURRENT);
  uint64_t word_size = file->elfclass == ELFCLASS64 ? 8 : 4;
  const char *why = NULL;
  if (have[D_RELA] != have[D_RELASZ] || have[D_REL] != have[D_RELSZ]
      || have[D_RELR] != have[D_RELRSZ] || have[D_JMPREL] != have[D_PLTRELSZ]
      || (have[D_JMPREL] && !have[D_PLTREL]))
    return "a relocation table's address or size is missing from the dynamic section";
  if (have[D_RELA])
    why = scan_rel_table (file, val[D_RELA], val[D_RELASZ],
			  have[D_RELAENT] ? val[D_RELAENT] : rela_size, true, slot, h);
  if (why == NULL && have[D_REL])
    why = scan_rel_table (file, val[D_REL], val[D_RELSZ],
			  have[D_RELENT] ? val[D_RELENT] : rel_size, false, slot, h);
  if (why == NULL && have[D_JMPREL])
    {
      if (val[D_PLTREL] != DT_RELA && val[D_PLTREL] != DT_REL)
	return "DT_PLTREL is neither DT_RELA nor DT_REL";
      bool is_rela = val[D_PLTREL] == DT_RELA;
      why = scan_rel_table (file, val[D_JMPREL], val[D_PLTRELSZ], is_rela ? rela_size : rel_size,
			    is_rela, slot, h);
    }
  if (why == NULL && have[D_RELR])
    why = scan_relr (file, val[D_RELR], val[D_RELRSZ],
		     have[D_RELRENT] ? val[D_RELRENT] : word_size, slot, h);
  return why;
}

const char *
init_slot_find (const struct elf_file *file, unsigned relative, struct init_slot *slot)
{
  *slot = (struct init_slot) { .relr = false };
  if (file->dyn == NULL)
    return "a shared object without a dynamic section cannot be hooked";
  struct dyn_values v;
  const char *why = read_dyn_values (file, &v);
  if (why != NULL)
    return why;
  if (!v.have[D_INIT_ARRAY])
    return "no DT_INIT_ARRAY whose first entry the stub could take over (ld.so calls no "
	   "DT_INIT on this machine)";
  bool is64 = file->elfclass == ELFCLASS64;
  slot->word_size = is64 ? 8 : 4;
  if (!v.have[D_INIT_ARRAYSZ] || v.value[D_INIT_ARRAYSZ] < slot->word_size)
    return "DT_INIT_ARRAY has no entry (DT_INIT_ARRAYSZ is missing or too small)";
  slot->addr = v.value[D_INIT_ARRAY];
  uint64_t slot_offset;
  if (file_bytes_at (file, slot->addr, slot->word_size, &slot_offset) == SIZE_MAX)
    return "DT_INIT_ARRAY's first entry is not in a PT_LOAD's file contents";

  struct hits h = { 0 };
  why = scan_relocations (file, &v, slot->addr, &h);
  if (why != NULL)
    return why;
  if (h.rel != 0)
    return "a REL relocation fills DT_INIT_ARRAY's first entry (only RELA and DT_RELR are "
	   "handled)";
  if (h.rela + h.relr == 0)
    return "no relocation fills DT_INIT_ARRAY's first entry: its address would be right only "
	   "at the link address";
  if (h.rela + h.relr > 1)
    return "more than one relocation fills DT_INIT_ARRAY's first entry";
  uint64_t all_ones = is64 ? UINT64_MAX : UINT32_MAX;
  if (h.rela == 1)
    {
      /* (libelf widens an ELF32 r_info to the GElf form) */
      if (GELF_R_SYM (h.entry.r_info) != 0)
	return "DT_INIT_ARRAY's first entry is filled by a symbolic relocation, not a relative "
	       "one";
      if (GELF_R_TYPE (h.entry.r_info) != relative)
	return "DT_INIT_ARRAY's first entry is filled by a relocation of another type than the "
	       "machine's relative one";
      slot->function = (uint64_t) h.entry.r_addend & all_ones;
      /* r_addend is the last field of a RELA relocation.  */
      slot->word_offset = h.entry_offset + 2 * slot->word_size;
    }
  else
    {
      Elf_Data *word = elf_getdata_rawchunk (file->elf, (int64_t) slot_offset, slot->word_size,
					     ELF_T_ADDR);
      if (word == NULL)
	return "DT_INIT_ARRAY's first entry cannot be read";
      slot->function = is64 ? *(const uint64_t *) word->d_buf : *(const uint32_t *) word->d_buf;
      slot->relr = true;
      slot->word_offset = slot_offset;
    }
  if (slot->function == 0 || slot->function == all_ones)
    return "DT_INIT_ARRAY's first entry holds 0 or -1, not a function";
  return NULL;
}
