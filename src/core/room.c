/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Room for one more program header (see room.h).  */
#include <config.h>

#include <elf.h>
#include <stddef.h>

#include "arith.h"
#include "elf_encode.h"
#include "room.h"
#include "sizes.h"

/* A program header the new PT_LOAD can take over without losing anything:
   PT_NULL; a PT_NOTE that covers exactly what PT_GNU_PROPERTY covers (GNU ld
   emits both; the kernel and ld.so read PT_GNU_PROPERTY); or a shared
   object's PT_PHDR, which ld.so does not need (it finds the table in the
   PT_LOAD that holds it).  SIZE_MAX if there is none.  */
size_t
room_reusable_slot (const struct elf_file *file)
{
  const GElf_Phdr *property = NULL;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_GNU_PROPERTY)
      property = &file->phdrs[i];
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type == PT_NULL)
	return i;
      if (ph->p_type == PT_NOTE && property != NULL && ph->p_offset == property->p_offset
	  && ph->p_filesz == property->p_filesz && ph->p_vaddr == property->p_vaddr)
	return i;
    }
  /* Only the one PT_PHDR: with two, ld.so would find the table through the
     other one.  */
  size_t phdr = SIZE_MAX, nphdr = 0;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_PHDR && nphdr++ == 0)
      phdr = i;
  if (file->kind == OBJECT_SHARED && nphdr == 1)
    return phdr;
  return SIZE_MAX;
}

/* Growing the table in place.

   The table grows by one entry at its end when what follows it in the file
   can go elsewhere: the new segment takes a copy, every header that
   describes it (program headers, section headers, a dynamic entry) points
   to the copy, and the table grows over the old place.  Only objects whose
   every user finds them through such a header move: the interpreter's name
   (the kernel reads it through PT_INTERP, ld.so through PT_INTERP's
   address), notes (through PT_NOTE and PT_GNU_PROPERTY, or their sections)
   and the symbol hash tables, position-independent and found by ld.so
   through DT_HASH or DT_GNU_HASH alone.  GNU ld puts the build ID note and
   .gnu.hash right after a shared object's table, lld puts .interp and the
   notes after a program's.  Other dynamic tables (.dynsym, .dynstr, the
   version tables, relocations) would move the same way but are not needed
   for that, and relocations are also found through symbols in static
   programs; they stay.  Symbols of .symtab defined in a moved section follow
   it; a dynamic symbol defined in one keeps everything in place, since
   other objects may hold its address.  */

/* Whether program header PH takes part in the growing: it has bytes in the
   file and is neither a PT_LOAD nor the table itself.  */
bool
room_phdr_occupies (const GElf_Phdr *ph)
{
  return ph->p_filesz != 0 && ph->p_type != PT_LOAD && ph->p_type != PT_PHDR;
}

/* Whether section SH has bytes in the file.  */
static bool
shdr_occupies (const GElf_Shdr *sh)
{
  return sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL && sh->sh_size != 0;
}

/* The dynamic tags whose value is an address, as far as they matter here:
   one pointing into a table to move would not be patched.  */
static bool
pointer_tag (int64_t tag)
{
  switch (tag)
    {
    case DT_PLTGOT: case DT_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_RELA:
    case DT_INIT: case DT_FINI: case DT_REL: case DT_JMPREL: case DT_INIT_ARRAY:
    case DT_FINI_ARRAY: case DT_PREINIT_ARRAY: case DT_SYMTAB_SHNDX: case DT_RELR:
    case DT_VERSYM: case DT_VERDEF: case DT_VERNEED:
      return true;
    default:
      return tag >= DT_ADDRRNGLO && tag <= DT_ADDRRNGHI;
    }
}

/* The things a growing table must get past, and the facts needed to move
   them.  */
struct grow_scan
{
  const struct elf_file *file;
  const GElf_Phdr *load;	/* the PT_LOAD holding the table */
  uint64_t load_end;		/* its file contents' end */
  size_t dyn_phdr;		/* PT_DYNAMIC's index, SIZE_MAX if none */
  Elf_Data *dyn;		/* its entries */
  size_t dyn_count;
  uint64_t align;		/* the largest alignment among what moves */
  bool shdrs_move;		/* the section header table is written anew
				   elsewhere: its old bytes are free */
};

/* Whether old offset OFF and address ADDR agree with the PT_LOAD holding
   the table: what moves is found again by address.  */
static bool
loaded_at (const struct grow_scan *g, uint64_t off, uint64_t addr)
{
  return addr - g->load->p_vaddr == off - g->load->p_offset;
}

/* Raise G->align to ALIGN (0 and 1: none); false if it is not a power of two.  */
static bool
take_align (struct grow_scan *g, uint64_t align)
{
  if (align <= 1)
    return true;
  if (!is_power_of_2 (align))
    return false;
  if (align > g->align)
    g->align = align;
  return true;
}

/* For hash table section INDEX: the one dynamic entry that points to it, in
   *DYN_INDEX.  False unless exactly one entry of the section's tag holds
   its address and no other address entry points into it.  */
static bool
hash_dyn_entry (const struct grow_scan *g, size_t index, size_t *dyn_index)
{
  const GElf_Shdr *sh = &g->file->shdrs[index];
  int64_t want = sh->sh_type == SHT_GNU_HASH ? DT_GNU_HASH : DT_HASH;
  size_t found = 0;
  for (size_t k = 0; k < g->dyn_count; k++)
    {
      GElf_Dyn d;
      if (gelf_getdyn (g->dyn, (int) k, &d) == NULL || d.d_tag == DT_NULL)
	break;
      if (!pointer_tag (d.d_tag) || d.d_un.d_ptr - sh->sh_addr >= sh->sh_size)
	continue;
      if (d.d_tag != want || d.d_un.d_ptr != sh->sh_addr)
	return false;
      *dyn_index = k;
      found++;
    }
  return found == 1;
}

/* The first object with bytes at or after old offset POS, as a unit that
   moves: a PT_INTERP or PT_NOTE segment starting there, else a hash table
   section.  Its range into *START and *END; *M describes it.  Return 1 for
   a unit that may move (unit_movable decides), 0 when nothing follows, -1
   when what follows cannot move (*START is where it starts).  */
static int
next_unit (const struct grow_scan *g, uint64_t pos, uint64_t *start, uint64_t *end,
	   struct room_moved *m)
{
  const struct elf_file *file = g->file;
  uint64_t first = UINT64_MAX;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if ((room_phdr_occupies (ph) || (ph->p_type == PT_LOAD && ph != g->load && ph->p_filesz != 0))
	  && ph->p_offset + ph->p_filesz > pos && ph->p_offset < first)
	first = ph->p_offset;
    }
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if (shdr_occupies (sh) && sh->sh_offset + sh->sh_size > pos && sh->sh_offset < first)
	first = sh->sh_offset;
    }
  /* (every range here lies inside the file: elf_file_open checked that) */
  uint64_t shsize = (uint64_t) file->shnum * elf_shdr_size (file->elfclass);
  if (file->shnum != 0 && !g->shdrs_move && file->ehdr.e_shoff + shsize > pos
      && file->ehdr.e_shoff < first)
    first = file->ehdr.e_shoff;
  *start = first;
  if (first == UINT64_MAX)
    return 0;
  if (first < pos)
    return -1;

  *m = (struct room_moved) { .dyn_index = SIZE_MAX };
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if ((ph->p_type == PT_INTERP || ph->p_type == PT_NOTE) && ph->p_filesz != 0
	  && ph->p_offset == first)
	{
	  m->segment = true;
	  m->index = i;
	  *end = ph->p_offset + ph->p_filesz;
	  return 1;
	}
    }
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if ((sh->sh_type == SHT_GNU_HASH || sh->sh_type == SHT_HASH) && sh->sh_size != 0
	  && sh->sh_offset == first && (sh->sh_flags & SHF_ALLOC) && g->dyn != NULL
	  && hash_dyn_entry (g, i, &m->dyn_index))
	{
	  m->index = i;
	  m->dyn_tag = sh->sh_type == SHT_GNU_HASH ? DT_GNU_HASH : DT_HASH;
	  *end = sh->sh_offset + sh->sh_size;
	  return 1;
	}
    }
  return -1;
}

/* Whether the unit M at old [START, END) can move: everything with bytes
   there lies inside it and belongs to it, and agrees with the PT_LOAD on
   its address.  Takes the alignments into G->align.  */
static bool
unit_movable (struct grow_scan *g, const struct room_moved *m, uint64_t start, uint64_t end)
{
  const struct elf_file *file = g->file;
  if (end > g->load_end)
    return false;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph == g->load || !range_overlaps (ph->p_offset, ph->p_filesz, start, end))
	continue;
      if (!room_phdr_occupies (ph) || !range_within (ph->p_offset, ph->p_filesz, start, end))
	return false;
      bool member = m->segment && (i == m->index
				   || (file->phdrs[m->index].p_type == PT_NOTE
				       && (ph->p_type == PT_NOTE || ph->p_type == PT_GNU_PROPERTY)));
      /* (its memory must be what moves: no more than its file bytes) */
      if (!member || ph->p_memsz != ph->p_filesz || !loaded_at (g, ph->p_offset, ph->p_vaddr)
	  || !take_align (g, ph->p_align))
	return false;
    }
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if (!shdr_occupies (sh) || !range_overlaps (sh->sh_offset, sh->sh_size, start, end))
	continue;
      if (!range_within (sh->sh_offset, sh->sh_size, start, end) || !(sh->sh_flags & SHF_ALLOC))
	return false;
      bool member = m->segment ? file->phdrs[m->index].p_type == PT_INTERP || sh->sh_type == SHT_NOTE
			       : i == m->index;
      if (!member || !loaded_at (g, sh->sh_offset, sh->sh_addr) || !take_align (g, sh->sh_addralign))
	return false;
    }
  return true;
}

/* Whether section SH lies in old [START, END) with bytes.  */
static bool
section_in (const GElf_Shdr *sh, uint64_t start, uint64_t end)
{
  return shdr_occupies (sh) && range_within (sh->sh_offset, sh->sh_size, start, end);
}

/* Whether the symbols allow moving old [START, END): no dynamic symbol is
   defined in a section there (its address is what programs get), and the
   symbols of one SHT_SYMTAB that are get counted, to follow the move.  */
static bool
symbols_movable (struct phdr_room *r, const struct elf_file *file, uint64_t start,
		 uint64_t end)
{
  r->symtab_index = SIZE_MAX;
  r->nsyms_moved = 0;
  if (start == end)
    return true;
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if (sh->sh_type == SHT_SYMTAB_SHNDX)
	return false;		/* extended section indices: not handled */
      if (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM)
	continue;
      size_t entsize = gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
      Elf_Data *data = elf_file_section_data (file, i, ELF_T_SYM);
      size_t count = data != NULL ? data->d_size / entsize : 0, hits = 0;
      if (sh->sh_size != 0 && data == NULL)
	return false;
      for (size_t k = 0; k < count; k++)
	{
	  GElf_Sym sym;
	  if (gelf_getsym (data, (int) k, &sym) == NULL)
	    return false;
	  if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < file->shnum
	      && sym.st_shndx < SHN_LORESERVE && section_in (&file->shdrs[sym.st_shndx], start, end))
	    hits++;
	}
      if (hits == 0)
	continue;
      if (sh->sh_type == SHT_DYNSYM || r->symtab_index != SIZE_MAX)
	return false;
      r->symtab_index = i;
      r->nsyms_moved = hits;
    }
  return true;
}

bool
room_grow (struct phdr_room *r, const struct layout_plan *layout, const struct elf_file *file,
	   uint64_t page, bool sections_ok, uint64_t max_bytes)
{
  if (!sections_ok || file->phnum == 0)
    return false;
  uint64_t entsize = elf_phdr_size (file->elfclass);
  uint64_t table_start = file->ehdr.e_phoff;
  uint64_t table_end = table_start + (uint64_t) file->phnum * entsize;
  uint64_t want_end = table_end + entsize;
  struct grow_scan g = { .file = file, .dyn_phdr = SIZE_MAX, .align = 1,
			 .shdrs_move = file->shnum != 0 };

  /* The table must lie in the first PT_LOAD (AT_PHDR), and a PT_PHDR must
     describe it exactly, so that it can grow with it.  */
  for (size_t i = 0; i < file->phnum && g.load == NULL; i++)
    if (file->phdrs[i].p_type == PT_LOAD)
      g.load = &file->phdrs[i];
  if (g.load == NULL || table_start < g.load->p_offset)
    return false;
  g.load_end = g.load->p_offset + g.load->p_filesz;
  if (want_end > g.load_end || table_start < elf_ehdr_size (file->elfclass))
    return false;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type == PT_PHDR
	  && (ph->p_offset != table_start || ph->p_filesz != table_end - table_start
	      || ph->p_memsz != ph->p_filesz || !loaded_at (&g, ph->p_offset, ph->p_vaddr)))
	return false;
    }
  if (file->dyn != NULL)
    {
      g.dyn_phdr = file->dynamic;
      g.dyn = file->dyn;
      g.dyn_count = file->ndyn;
    }

  /* Walk what follows the table in file order.  Without section headers the
     bytes between two segments are unknown and end the walk; with them,
     bytes no section or segment covers are padding, free to take.  */
  uint64_t pos = table_end, moved_start = 0;
  size_t n = 0;
  for (;;)
    {
      uint64_t start, end = 0;
      struct room_moved m;
      int u = next_unit (&g, pos, &start, &end, &m);
      uint64_t free_end = u == 0 ? g.load_end : start;
      if (file->shnum == 0 && free_end > pos)
	free_end = pos;
      if (free_end >= want_end)
	break;
      if (file->shnum == 0 && u == 1 && start != pos)
	return false;
      if (u <= 0 || n == ROOM_MAX_MOVED || !unit_movable (&g, &m, start, end))
	return false;
      if (n == 0)
	moved_start = start;
      r->moved[n++] = m;
      pos = end;
    }
  /* What moves, at its alignment, must fit into MAX_BYTES of the new
     segment.  */
  if (g.align > page || pos - (n != 0 ? moved_start : pos) + g.align > max_bytes)
    return false;
  if (!symbols_movable (r, file, n != 0 ? moved_start : table_end, pos))
    return false;

  r->nmoved = n;
  r->moved_start = n != 0 ? moved_start : table_end;
  r->moved_end = n != 0 ? pos : table_end;
  size_t entsize_dyn = gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT);
  for (size_t k = 0; k < n; k++)
    if (!r->moved[k].segment)
      {
	r->moved[k].dyn_offset = layout->segs[g.dyn_phdr].new_offset
				  + r->moved[k].dyn_index * entsize_dyn;
      }
  r->moved_align = g.align;
  return true;
}

uint64_t
room_place (struct phdr_room *r, const struct elf_file *file, uint64_t seg_offset,
	    uint64_t seg_vaddr)
{
  if (r->kind != ROOM_GROWN)
    return 0;
  /* The copy starts as far into the segment as its first byte is past a
     multiple of the largest alignment among what moves.  */
  uint64_t at = r->moved_start & (r->moved_align - 1);
  r->moved_offset = seg_offset + at;
  r->moved_vaddr = seg_vaddr + at;
  for (size_t k = 0; k < r->nmoved; k++)
    if (!r->moved[k].segment)
      r->moved[k].dyn_value = r->moved_vaddr
			      + (file->shdrs[r->moved[k].index].sh_offset - r->moved_start);
  return at + (r->moved_end - r->moved_start);
}

bool
room_is_moved (const struct phdr_room *r, uint64_t off, uint64_t len)
{
  return r->kind == ROOM_GROWN && len != 0
	 && range_within (off, len, r->moved_start, r->moved_end);
}

bool
room_section_moved (const struct phdr_room *r, const struct elf_file *file, size_t index)
{
  return index != 0 && index < file->shnum
	 && room_is_moved (r, file->shdrs[index].sh_offset, file->shdrs[index].sh_size)
	 && shdr_occupies (&file->shdrs[index]);
}

const char *
room_moved_name (const struct room_moved *m, const struct elf_file *file, char *buf, size_t len)
{
  if (m->segment)
    return elf_phdr_type_name (file->phdrs[m->index].p_type);
  return elf_file_section_name (file, m->index, buf, len);
}
