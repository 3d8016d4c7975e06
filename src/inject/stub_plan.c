/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The startup stub's plan: where it goes in the file, how it is hooked, and
   what it adds to the output.  It reads the layout plan and never changes
   it; the layout does not know the stub exists.  */
#include <config.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stddef.h>

#include "arith.h"
#include "elf_encode.h"
#include "minidebug.h"
#include "sizes.h"
#include "init_array.h"
#include "stub.h"
#include "text_chunks.h"

#ifndef EM_LOONGARCH
# define EM_LOONGARCH 258
#endif

/* How far from its segment's end the stub's code is searched for: its code
   ends the segment (what the program header table's growth moved, which
   may be larger, comes before it).  */
#define STUB_SEGMENT_MAX ((uint64_t) 64 << 10)

/* At most this many bytes move out of the way of a growing program header
   table (hash tables: librustc_driver's .gnu.hash is 95 KiB).  */
#define STUB_MOVED_MAX ((uint64_t) 4 << 20)

/* Whether the file carries an elfpmd stub already: its magic in the last
   STUB_SEGMENT_MAX bytes of the PT_LOAD of the highest address, where that
   one is read-only, executable and after every other one's contents in the
   file (where a stub segment is, and where strip, eu-strip and objcopy keep
   it).  An ordinary file, whose highest segment is its data, is not read.  */
static bool
stub_present (const struct elf_file *file)
{
  const GElf_Phdr *last = NULL;
  uint64_t others_end = 0;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD
	&& (last == NULL || file->phdrs[i].p_vaddr > last->p_vaddr))
      last = &file->phdrs[i];
  if (last == NULL || !(last->p_flags & PF_X) || (last->p_flags & PF_W) || last->p_filesz < 8)
    return false;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph != last && ph->p_type == PT_LOAD && ph->p_filesz != 0
	  && ph->p_offset + ph->p_filesz > others_end)
	others_end = ph->p_offset + ph->p_filesz;
    }
  if (last->p_offset < others_end)
    return false;
  uint64_t len = last->p_filesz < STUB_SEGMENT_MAX ? last->p_filesz : STUB_SEGMENT_MAX;
  unsigned char *buf = malloc (len);
  if (buf == NULL)
    return false;
  unsigned char magic[8];
  for (int k = 0; k < 8; k++)
    magic[file->data == ELFDATA2LSB ? k : 7 - k] = (unsigned char) (STUB_MAGIC >> (8 * k));
  /* Any byte position: a tool that rewrote the file may have moved the
     segment to an offset that is not 8-aligned.  */
  bool found = pread (file->fd, buf, len, (off_t) (last->p_offset + last->p_filesz - len))
		 == (ssize_t) len
	       && memmem (buf, len, magic, sizeof magic) != NULL;
  free (buf);
  return found;
}

/* Whether the program header table lies in the file contents of the first
   PT_LOAD, where GNU strip keeps it working.  */
static bool
table_in_first_load (const struct elf_file *file)
{
  uint64_t size = (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD)
      return file->ehdr.e_phoff >= file->phdrs[i].p_offset
	     && file->ehdr.e_phoff - file->phdrs[i].p_offset <= file->phdrs[i].p_filesz
	     && size <= file->phdrs[i].p_filesz - (file->ehdr.e_phoff - file->phdrs[i].p_offset);
  return false;
}

/* Collect the PMD-aligned text ranges the stub works on: the whole chunks of
   the executable, read-only PT_LOADs that the output can map with PMD pages.
   Return the index of such a PT_LOAD that is execute-only (PF_X without
   PF_R: the stub reads every chunk it populates), or SIZE_MAX.  */
static size_t
collect_ranges (struct stub_plan *sp, const struct layout_plan *layout,
		const struct elf_file *file, uint64_t pmd)
{
  bool base_aligned = load_base_aligned (file, layout, pmd);
  sp->params.nranges = 0;
  struct chunk_run run;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (!text_chunk_run (file, layout, i, pmd, base_aligned, &run))
	continue;
      if (!(file->phdrs[i].p_flags & PF_R))
	return i;
      struct stub_range r = {
	.start = (int64_t) run.vaddr, .length = run.n * pmd,	/* made relative later */
	.file_offset = run.offset,
      };
      /* Keep the largest ranges when there are more than the stub takes.  */
      size_t n = sp->params.nranges;
      if (n < STUB_MAX_RANGES)
	sp->params.range[sp->params.nranges++] = r;
      else
	for (size_t k = 0; k < n; k++)
	  if (sp->params.range[k].length < r.length)
	    {
	      sp->params.range[k] = r;
	      break;
	    }
    }
  return SIZE_MAX;
}

/* Hook a shared object through the first entry of its DT_INIT_ARRAY
   (see stub/init_array.c), or set SP->refusal.  */
static void
choose_init_array (struct stub_plan *sp, const struct layout_plan *layout,
		   const struct elf_file *file)
{
  struct init_slot slot;
  sp->refusal = init_slot_find (file, sp->stub->relative_reloc, &slot);
  if (sp->refusal != NULL)
    return;
  sp->hook = STUB_HOOK_INIT_ARRAY;
  sp->old_target = slot.function;
  sp->init_word_old_offset = slot.word_offset;
  /* (a word of a PT_LOAD's file contents: where the map puts that byte) */
  sp->init_word_offset = layout_map_offset (layout, slot.word_offset);
  sp->init_word_size = slot.word_size;
  sp->init_word_relr = slot.relr;
}

/* Choose the hook: e_entry for programs; for shared objects DT_INIT, or
   the first entry of DT_INIT_ARRAY where the machine's ld.so calls no
   DT_INIT.  */
static int
choose_hook (struct stub_plan *sp, const struct layout_plan *layout, const struct elf_file *file,
	     struct diag *err)
{
  if (file->kind != OBJECT_SHARED)
    {
      sp->hook = STUB_HOOK_ENTRY;
      sp->old_target = file->ehdr.e_entry;
      sp->params.flags = STUB_FLAG_EXE;
      return 0;
    }
  if (sp->stub->library_hook == STUB_LIBRARY_INIT_ARRAY)
    {
      choose_init_array (sp, layout, file);
      return 0;
    }
  if (file->dynamic != SIZE_MAX)
    {
      size_t i = file->dynamic;
      const GElf_Phdr *ph = &file->phdrs[i];
      Elf_Data *data = file->dyn;
      size_t entsize = gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT);
      size_t n = file->ndyn;
      size_t first_null = SIZE_MAX;
      for (size_t k = 0; k < n; k++)
	{
	  GElf_Dyn dyn;
	  if (data == NULL || gelf_getdyn (data, (int) k, &dyn) == NULL)
	    break;
	  if (dyn.d_tag == DT_INIT && first_null == SIZE_MAX)
	    {
	      sp->hook = STUB_HOOK_INIT_CHAIN;
	      sp->old_target = dyn.d_un.d_val;
	      sp->dyn_offset = layout->segs[i].new_offset + k * entsize;
	      sp->dyn_old_offset = ph->p_offset + k * entsize;
	      return 0;
	    }
	  if (dyn.d_tag == DT_NULL)
	    {
	      if (first_null != SIZE_MAX)
		{
		  /* A spare slot: the first DT_NULL becomes DT_INIT, the
		     one right after it ends the array.  (Not a later one:
		     what lies between would become entries.)  */
		  sp->hook = STUB_HOOK_INIT_NEW;
		  sp->old_target = 0;
		  sp->dyn_offset = layout->segs[i].new_offset + first_null * entsize;
		  sp->dyn_old_offset = ph->p_offset + first_null * entsize;
		  return 0;
		}
	      first_null = k;
	    }
	  else if (first_null != SIZE_MAX)
	    break;
	}
      sp->refusal = "no DT_INIT to chain to and no spare .dynamic slot for one";
      return 0;
    }
  sp->refusal = "a shared object without PT_DYNAMIC cannot be hooked";
  return 0;
}

/* Whether program header PH covers exactly FILE's program header table.  */
static bool
describes_table (const struct elf_file *file, const GElf_Phdr *ph)
{
  return ph->p_offset == file->ehdr.e_phoff
	 && ph->p_filesz == (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
}

/* Whether old [OFF, OFF + LEN) overlaps the ELF header or a header table.  */
static bool
overlaps_headers (const struct elf_file *file, uint64_t off, uint64_t len)
{
  uint64_t ph = (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
  uint64_t sh = (uint64_t) file->shnum * elf_shdr_size (file->elfclass);
  return range_overlaps (off, len, 0, elf_ehdr_size (file->elfclass))
	 || range_overlaps (off, len, file->ehdr.e_phoff, file->ehdr.e_phoff + ph)
	 || (file->shnum != 0 && range_overlaps (off, len, file->ehdr.e_shoff, file->ehdr.e_shoff + sh));
}

/* Whether the word SP patches for a DT_INIT_ARRAY hook lies in anything
   else that the rewrite changes: the ELF header, a header table or
   PT_DYNAMIC of FILE, and once the table's place is decided (PLACED) what
   a growing table covers (the table grown, the old place of what moves)
   and the symbol table whose moved symbols follow.  Only a hostile file
   does that.  */
static bool
init_word_clashes (const struct stub_plan *sp, const struct elf_file *file, bool placed)
{
  uint64_t off = sp->init_word_old_offset, len = sp->init_word_size;
  if (overlaps_headers (file, off, len))
    return true;
  if (file->dynamic != SIZE_MAX
      && range_overlaps (off, len, file->phdrs[file->dynamic].p_offset,
		   file->phdrs[file->dynamic].p_offset + file->phdrs[file->dynamic].p_filesz))
    return true;
  if (!placed)
    return false;
  /* (the grown table lies in the first PT_LOAD: room_grow checked it) */
  uint64_t grown_end = file->ehdr.e_phoff
		       + (uint64_t) (file->phnum + 1) * elf_phdr_size (file->elfclass);
  if (sp->room.kind == ROOM_GROWN
      && range_overlaps (off, len, file->ehdr.e_phoff,
		   sp->room.moved_end > grown_end ? sp->room.moved_end : grown_end))
    return true;
  if (sp->room.nsyms_moved != 0 && sp->room.symtab_index < file->shnum)
    {
      const GElf_Shdr *sh = &file->shdrs[sp->room.symtab_index];
      if (range_overlaps (off, len, sh->sh_offset, sh->sh_offset + sh->sh_size))
	return true;
    }
  return false;
}

/* The highest address a relocation of an allocated REL or RELA section
   reaches, counting the size of its symbol, plus one: eu-elflint takes a
   relocation whose place plus that size reaches a read-only PT_LOAD for a
   text relocation, so the stub's segment goes above it.  0 if none.  */
static uint64_t
relocation_reach (const struct elf_file *file)
{
  uint64_t reach = 0;
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if ((sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL) || !(sh->sh_flags & SHF_ALLOC)
	  || sh->sh_size == 0)
	continue;
      Elf_Type type = sh->sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL;
      Elf_Data *rel = elf_file_section_data (file, i, type);
      Elf_Data *syms = NULL;
      size_t nsyms = 0, symsize = gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
      if (sh->sh_link != 0 && sh->sh_link < file->shnum)
	{
	  const GElf_Shdr *st = &file->shdrs[sh->sh_link];
	  if (st->sh_type == SHT_DYNSYM || st->sh_type == SHT_SYMTAB)
	    syms = elf_file_section_data (file, sh->sh_link, ELF_T_SYM);
	  nsyms = syms != NULL ? syms->d_size / symsize : 0;
	}
      if (rel == NULL)
	continue;
      size_t n = rel->d_size / gelf_fsize (file->elf, type, 1, EV_CURRENT);
      for (size_t k = 0; k < n; k++)
	{
	  GElf_Rela r;
	  GElf_Rel r0;
	  if (type == ELF_T_RELA ? gelf_getrela (rel, (int) k, &r) == NULL
	      : gelf_getrel (rel, (int) k, &r0) == NULL)
	    break;
	  if (type == ELF_T_REL)
	    r = (GElf_Rela) { .r_offset = r0.r_offset, .r_info = r0.r_info };
	  size_t symi = file->elfclass == ELFCLASS32 ? ELF32_R_SYM (r.r_info) : ELF64_R_SYM (r.r_info);
	  uint64_t size = 0;
	  GElf_Sym sym;
	  if (symi != 0 && symi < nsyms && gelf_getsym (syms, (int) symi, &sym) != NULL)
	    size = sym.st_size;
	  uint64_t end;
	  if (add_checked (r.r_offset, size, &end) && add_checked (end, 1, &end) && end > reach)
	    reach = end;
	}
    }
  return reach;
}

/* The largest base page size Linux has on the machines with a stub (arm64's
   64 KiB).  */
#define STUB_ALIGN_MAX ((uint64_t) 64 << 10)

/* The alignment of the stub's segment: the page size planned with, or more
   where every PT_LOAD of the output keeps its address congruent with its
   offset modulo more, up to the largest p_align among them and at most
   STUB_ALIGN_MAX.  An aarch64 file linked for 64 KiB pages runs on 4, 16
   and 64 KiB kernels; a stub segment congruent modulo 4 KiB only would not
   map on the latter two (and could share a page with the segment below
   it).  */
static uint64_t
segment_align (const struct layout_plan *layout, const struct elf_file *file, uint64_t page)
{
  uint64_t most = load_max_align (file, NULL);
  uint64_t align = page;
  while (align < STUB_ALIGN_MAX && align * 2 <= most)
    {
      uint64_t a = align * 2;
      for (size_t i = 0; i < file->phnum; i++)
	if (file->phdrs[i].p_type == PT_LOAD
	    && ((file->phdrs[i].p_vaddr - layout->segs[i].new_offset) & (a - 1)) != 0)
	  return align;
      align = a;
    }
  return align;
}

/* Place the new segment: in the file after everything else, in memory above
   every segment and every relocation's reach, page-congruent.  Only a table
   that moves into the segment needs its address minus offset equal to the
   first PT_LOAD's (AT_PHDR as kernels before 5.18 compute it).  HEAD bytes
   come before the code.  Return NULL, or why it cannot be placed.  */
static const char *
place_segment (struct stub_plan *sp, const struct layout_plan *layout,
	       const struct elf_file *file, uint64_t page)
{
  const GElf_Phdr *first = NULL;
  size_t first_index = 0;
  uint64_t max_end = relocation_reach (file);
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_LOAD)
	continue;
      if (first == NULL)
	{
	  first = ph;
	  first_index = i;
	}
      /* Above an empty PT_LOAD too, so that no two start at one address.
	 (p_vaddr + p_memsz cannot wrap: elf_file_open checked that.)  */
      uint64_t end = ph->p_vaddr + ph->p_memsz;
      if (ph->p_memsz == 0 && !add_checked (end, 1, &end))
	return "no address space left for the stub's segment";
      if (end > max_end)
	max_end = end;
      sp->new_load_index = i + 1;
    }
  uint64_t vmin, end_offset;
  if (!align_up_checked (max_end, page, &vmin) || !align_up_checked (layout->new_size, page, &end_offset))
    return "no address space left for the stub's segment";
  if (sp->room.kind == ROOM_MOVED)
    {
      uint64_t delta = first->p_vaddr - layout->segs[first_index].new_offset;
      if ((delta & (page - 1)) != 0)
	return "the first PT_LOAD's address and offset differ by less than a page";
      sp->seg_offset = end_offset;
      if (sp->seg_offset + delta < vmin)
	sp->seg_offset = vmin - delta;
      /* The file would get a hole as large as the memory above its end
	 (a large .bss): bound it.  */
      if (sp->seg_offset - end_offset > layout->opts.pmd)
	return "the program header table would have to move further than a PMD past the end "
	       "of the file (AT_PHDR as kernels before 5.18 compute it)";
      sp->seg_vaddr = sp->seg_offset + delta;
    }
  else
    {
      sp->seg_offset = end_offset;
      sp->seg_vaddr = vmin;
    }
  if (sp->seg_vaddr < vmin)
    return "no address space left for the stub's segment";
  return NULL;
}

/* Why a file of E_MACHINE and ELFCLASS gets no stub: the machine named,
   with the machines that have one (stub_arch_list), for the report's one
   line.  Each message is made once and kept.  */
static const char *
no_stub_reason (unsigned e_machine, int elfclass)
{
  static const struct
  {
    unsigned machine;
    int elfclass;		/* 0: either */
    const char *what;
  } machines[] = {
    { EM_PPC64, 0, "ppc64 yet" },
    { EM_S390, ELFCLASS64, "s390x yet" },
    { EM_S390, ELFCLASS32, "s390" },
    { EM_386, 0, "i386" },
    { EM_ARM, 0, "32-bit arm" },
    { EM_RISCV, 0, "riscv32" },
    { EM_LOONGARCH, 0, "loongarch yet" },
    { EM_X86_64, 0, "x32" },
    { EM_AARCH64, 0, "aarch64-ilp32" },
    { 0, 0, "this machine" },
  };
  static char *made[sizeof machines / sizeof machines[0]];
  size_t k = 0;
  while (machines[k].machine != 0
	 && (machines[k].machine != e_machine
	     || (machines[k].elfclass != 0 && machines[k].elfclass != elfclass)))
    k++;
  if (made[k] == NULL
      && asprintf (&made[k], "no startup stub for %s (%s have one)", machines[k].what,
		   stub_arch_list ()) < 0)
    made[k] = NULL;
  return made[k] != NULL ? made[k] : "no startup stub for this machine";
}

/* The rewritten file's entry point.  */
static uint64_t
new_entry (const struct stub_plan *sp, const struct elf_file *file)
{
  return sp->hook == STUB_HOOK_ENTRY ? sp->entry_vaddr : file->ehdr.e_entry;
}

/* The stub's PT_LOAD, as planned in SP.  */
static GElf_Phdr
stub_load (const struct stub_plan *sp)
{
  return (GElf_Phdr) {
    .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = sp->seg_offset,
    .p_vaddr = sp->seg_vaddr, .p_paddr = sp->seg_vaddr, .p_filesz = sp->seg_size,
    .p_memsz = sp->seg_size, .p_align = sp->page,
  };
}

/* What the stub's MiniDebugInfo describes of the file SP plans.  */
static struct minidebug_in
minidebug_of (const struct stub_plan *sp, const struct elf_file *file)
{
  bool moved = sp->room.kind == ROOM_MOVED;
  return (struct minidebug_in) {
    .stub = sp->stub, .shstrndx = sp->shstrndx, .code_vaddr = sp->code_vaddr,
    .load = stub_load (sp),
    .entry = new_entry (sp, file), .phdrs_vaddr = moved ? sp->seg_vaddr : 0,
    .phdrs_size = moved ? sp->code_offset - sp->seg_offset : 0,
  };
}

/* Whether FILE (its section names in section SHSTRNDX) has MiniDebugInfo
   already: a section named .gnu_debugdata, which gdb and libdwfl read
   first (one file cannot have two), so the stub's is not added.  */
static bool
has_debugdata (const struct elf_file *file, size_t shstrndx)
{
  Elf_Data *names = elf_file_section_data (file, shstrndx, ELF_T_BYTE);
  for (size_t i = 0; i < file->shnum; i++)
    {
      GElf_Word at = file->shdrs[i].sh_name;
      if (names != NULL && at < names->d_size && names->d_size - at >= sizeof STUB_DEBUGDATA_NAME
	  && memcmp ((const char *) names->d_buf + at, STUB_DEBUGDATA_NAME,
		     sizeof STUB_DEBUGDATA_NAME) == 0)
	return true;
    }
  return false;
}

/* Whether a symbol of symbol table INDEX of FILE lies in a section from
   FIRST on (below SHN_LORESERVE); true also where it cannot be read.  */
static bool
symbols_from (const struct elf_file *file, size_t index, size_t first)
{
  Elf_Data *data = elf_file_section_data (file, index, ELF_T_SYM);
  if (data == NULL)
    return true;
  size_t entsize = gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
  size_t count = entsize != 0 ? data->d_size / entsize : 0;
  for (size_t k = 0; k < count; k++)
    {
      GElf_Sym sym;
      if (gelf_getsym (data, (int) k, &sym) == NULL)
	return true;
      if (sym.st_shndx >= first && sym.st_shndx < SHN_LORESERVE)
	return true;
    }
  return false;
}

/* Where the stub's loaded sections' headers go in FILE (struct stub_plan,
   shdr_insert): after the last loaded section, unless a symbol (of the
   symbol table or the dynamic one) lies in a section after it, or the file
   has section groups or extended section indices, whose indices would
   have to move too (linkers put every loaded section first, and no
   symbol in a later one), or a section named past the end of the name
   table SHSTRNDX (where the checker tells the new sections, named there,
   from the input's); else after every section.  */
static size_t
shdr_insert_at (const struct elf_file *file, size_t shstrndx)
{
  for (size_t i = 1; i < file->shnum; i++)
    if (file->shdrs[i].sh_name >= file->shdrs[shstrndx].sh_size)
      return file->shnum;
  size_t at = 1;
  for (size_t i = 1; i < file->shnum; i++)
    if (file->shdrs[i].sh_flags & SHF_ALLOC)
      at = i + 1;
  if (at >= file->shnum)
    return file->shnum;
  for (size_t i = 1; i < file->shnum; i++)
    {
      GElf_Word type = file->shdrs[i].sh_type;
      if (type == SHT_GROUP || type == SHT_SYMTAB_SHNDX
	  || ((type == SHT_SYMTAB || type == SHT_DYNSYM) && symbols_from (file, i, at)))
	return file->shnum;
    }
  return at;
}

/* How many loaded sections the stub adds: its code, and the program
   header table where that moved into its segment (before the code).  */
static size_t
loaded_sections (const struct stub_plan *sp)
{
  return sp->room.kind == ROOM_MOVED ? 2 : 1;
}

/* The index in the output of FILE's section I, the stub's loaded sections
   inserted at SP->shdr_insert.  */
static size_t
new_section_index (const struct stub_plan *sp, const struct elf_file *file, size_t i)
{
  if (i < sp->shdr_insert || i >= file->shnum)
    return i;
  return i + loaded_sections (sp);
}

/* Whether the file can take the stub at all: a stub for its machine, none
   already, no text relocations, congruent segments, readable text with
   whole chunks (their ranges into SP).  A refusal in SP->refusal.  */
static void
fit_pass (struct stub_plan *sp, const struct layout_plan *layout, const struct elf_file *file,
	  const struct stub_options *opts)
{
  sp->stub = stub_arch_for (file->ehdr.e_machine, file->elfclass);
  if (sp->stub == NULL)
    {
      sp->no_arch = true;
      sp->refusal = no_stub_reason (file->ehdr.e_machine, file->elfclass);
      return;
    }
  if (stub_present (file))
    {
      sp->present = true;
      sp->refusal = "the file has an elfpmd stub already";
      return;
    }
  /* The stub evicts and refaults chunks of text: pages ld.so relocated
     would come back unrelocated.  */
  if (file->has_textrel)
    {
      sp->refusal = "the object has text relocations (TEXTREL), which the stub could discard";
      return;
    }
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD
	&& ((file->phdrs[i].p_vaddr - file->phdrs[i].p_offset) & (opts->page - 1)) != 0)
      {
	sp->refusal = "a PT_LOAD's address and offset are not congruent modulo the page size";
	return;
      }
  size_t exec_only = collect_ranges (sp, layout, file, opts->pmd);
  if (exec_only != SIZE_MAX)
    {
      sp->refusal = "its text is execute-only (PF_X without PF_R), and the stub reads the text";
      return;
    }
  if (sp->params.nranges == 0)
    {
      sp->refusal = "no whole PMD chunk of text can be PMD-mapped, so the stub would do nothing";
      return;
    }
}

/* How the stub is called (e_entry, DT_INIT, DT_INIT_ARRAY[0]), and what the
   hook must not overlap.  Return 0 (a refusal in SP->refusal), or -1.  */
static int
hook_pass (struct stub_plan *sp, const struct layout_plan *layout, const struct elf_file *file,
	   struct diag *err)
{
  if (choose_hook (sp, layout, file, err) != 0)
    return -1;
  if (sp->refusal != NULL)
    return 0;
  if ((sp->hook == STUB_HOOK_INIT_CHAIN || sp->hook == STUB_HOOK_INIT_NEW)
      && overlaps_headers (file, sp->dyn_old_offset, gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT)))
    {
      sp->refusal = "PT_DYNAMIC overlaps the ELF header or a header table";
      return 0;
    }
  if (sp->hook == STUB_HOOK_INIT_ARRAY && init_word_clashes (sp, file, false))
    {
      sp->refusal = "the relocation or entry of DT_INIT_ARRAY[0] overlaps the ELF header, a "
		    "header table or PT_DYNAMIC";
      return 0;
    }
  return 0;
}

/* Room for one more program header (a reusable slot, the table grown, or
   moved), and whether a section can be added (*SECTION_OK).  A refusal in
   SP->refusal.  */
static void
room_pass (struct stub_plan *sp, const struct layout_plan *layout, const struct elf_file *file,
	   const struct stub_options *opts, bool *section_ok_out)
{
  /* The section: only where the file has a plain section header table and
     a section name table to extend.  */
  size_t shstrndx = file->shstrndx;
  bool section_ok = file->shnum != 0 && file->shnum + 2 < SHN_LORESERVE && shstrndx != 0
		    && !overlaps_headers (file, file->shdrs[shstrndx].sh_offset,
					  file->shdrs[shstrndx].sh_size);
  sp->shstrndx = section_ok ? shstrndx : 0;
  *section_ok_out = section_ok;

  sp->room.slot = room_reusable_slot (file);
  if (sp->room.slot != SIZE_MAX)
    sp->room.kind = ROOM_SLOT;
  else if (file->phnum + 1 >= PN_XNUM)
    {
      sp->refusal = "the program header table is full";
      return;
    }
  else if (room_grow (&sp->room, layout, file, opts->page, section_ok || file->shnum == 0,
		      STUB_MOVED_MAX))
    sp->room.kind = ROOM_GROWN;
  /* (a table already outside the first PT_LOAD, as BOLT leaves it, is one
     GNU strip breaks already: moving it again costs nothing more) */
  else if (opts->req.move_table || !table_in_first_load (file))
    sp->room.kind = ROOM_MOVED;
  else
    {
      sp->refusal = "no room for one more program header (no entry can go, nothing after the "
		    "table can move) and moving the table breaks the file under GNU strip "
		    "(--move-table moves it)";
      return;
    }
  if (sp->hook == STUB_HOOK_INIT_ARRAY && init_word_clashes (sp, file, true))
    {
      sp->refusal = "the relocation or entry of DT_INIT_ARRAY[0] lies where the program header "
		    "table grows, or in a symbol table it changes";
      return;
    }
  /* ld.so takes a program's load bias from PT_PHDR's address and the table
     the kernel passes: a PT_PHDR must move with the table, and one that
     does not describe the table (a hostile input) cannot be moved right.  */
  if (sp->room.kind == ROOM_MOVED)
    for (size_t i = 0; i < file->phnum; i++)
      if (file->phdrs[i].p_type == PT_PHDR && !describes_table (file, &file->phdrs[i]))
	{
	  sp->refusal = "PT_PHDR does not describe the program header table, which would have to move";
	  return;
	}
}

/* The stub's segment: where it goes, what precedes the code in it, the
   code's and the entry's addresses.  A refusal in SP->refusal.  */
static void
segment_pass (struct stub_plan *sp, const struct layout_plan *layout, const struct elf_file *file,
	      const struct stub_options *opts)
{
  uint64_t seg_align = segment_align (layout, file, opts->page);
  const char *why = place_segment (sp, layout, file, seg_align);
  if (why != NULL)
    {
      sp->refusal = why;
      return;
    }
  sp->new_phnum = sp->room.kind == ROOM_SLOT ? file->phnum : file->phnum + 1;
  /* What comes before the code: the table, the moved objects, or nothing.  */
  uint64_t head = 0;
  if (sp->room.kind == ROOM_MOVED)
    head = (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  else
    head = room_place (&sp->room, file, sp->seg_offset, sp->seg_vaddr);
  /* (HEAD is below STUB_MOVED_MAX + PAGE, a table of fewer than PN_XNUM entries
     or what room_grow bounded) */
  uint64_t code_at = (head + 15) & ~(uint64_t) 15;
  sp->seg_size = code_at + sp->stub->size;
  uint64_t seg_end, file_end;
  if (!add_checked (sp->seg_vaddr, sp->seg_size, &seg_end)
      || !add_checked (sp->seg_offset, sp->seg_size, &file_end)
      || (file->elfclass == ELFCLASS32 && (seg_end > UINT32_MAX || file_end > UINT32_MAX)))
    {
      sp->refusal = "no address space left for the stub's segment";
      return;
    }
  sp->code_offset = sp->seg_offset + code_at;
  sp->code_vaddr = sp->seg_vaddr + code_at;
  sp->entry_vaddr = sp->code_vaddr + sp->stub->entry;
  sp->end_offset = file_end;
  /* Above every segment nothing of the program can be: an entry point,
     DT_INIT or DT_INIT_ARRAY[0] there would have the stub call itself.  */
  if (sp->old_target >= sp->seg_vaddr && sp->old_target < seg_end)
    {
      sp->refusal = "the entry point, DT_INIT or DT_INIT_ARRAY[0] lies where the stub's segment "
		    "would go, outside every PT_LOAD";
      return;
    }
  sp->page = seg_align;
}

/* The stub's section, its name, its MiniDebugInfo where the file has none,
   and where the file has a symbol table that table and its string table
   extended by the stub's symbols, after the end of the file: the new
   section name table, string table, symbol table, .gnu_debugdata, section
   header table.  Return 0 (a refusal in SP->refusal), or -1.  */
static int
section_pass (struct stub_plan *sp, const struct elf_file *file, struct diag *err)
{
  size_t shstrndx = file->shstrndx;
  uint64_t file_end = sp->end_offset;
  const GElf_Shdr *names = &file->shdrs[shstrndx];
  sp->add_section = true;
  /* (few enough sections that e_shnum and e_shstrndx are plain, in the
     output and in the MiniDebugInfo, which has at most SHNUM + 5) */
  sp->add_debugdata = !has_debugdata (file, shstrndx) && file->shnum + 6 < SHN_LORESERVE;
  sp->add_symtab = file->shnum + 6 < SHN_LORESERVE
		   && stub_symtab_plan (&sp->symtab, file, shstrndx, sp->stub);
  sp->new_shnum = file->shnum + loaded_sections (sp)
		  + (sp->add_debugdata ? 1 : 0);
  sp->shdr_insert = shdr_insert_at (file, shstrndx);
  sp->shstrtab_offset = file_end;
  sp->shstrtab_size = names->sh_size + sizeof STUB_SECTION_NAME + sizeof STUB_PHDR_SECTION_NAME
		      + (sp->add_debugdata ? sizeof STUB_DEBUGDATA_NAME : 0);
  uint64_t at = sp->shstrtab_offset + sp->shstrtab_size;
  if (sp->add_symtab)
    {
      const struct stub_symtab *st = &sp->symtab;
      sp->strtab_offset = at;
      at += st->old_strtab_size + st->names_size;
      sp->symtab_offset = (at + st->align - 1) & ~(st->align - 1);
      at = sp->symtab_offset + st->old_symtab_size + st->syms_size;
    }
  if (sp->add_debugdata)
    {
      /* Made here for its size, and again, the same, by stub_compose.  */
      unsigned char *dd;
      size_t len;
      struct minidebug_in m = minidebug_of (sp, file);
      if (stub_minidebug (&m, file, &dd, &len, err) != 0)
	return -1;
      free (dd);
      sp->debugdata_offset = at;
      sp->debugdata_size = len;
      at += len;
    }
  sp->shdr_offset = (at + 7) & ~(uint64_t) 7;
  sp->end_offset = sp->shdr_offset + (uint64_t) sp->new_shnum * elf_shdr_size (file->elfclass);
  if (file->elfclass == ELFCLASS32 && sp->end_offset > UINT32_MAX)
    {
      sp->refusal = "the file would grow past 4 GiB, which ELF32 cannot address";
      return 0;
    }
  return 0;
}

/* The stub's parameters: the PMD size, the sampling bound, the copy
   fallback, and its ranges relative to the entry point.  */
static void
params_pass (struct stub_plan *sp, const struct stub_options *opts)
{
  /* Addresses relative to the entry point, modulo 2^64 like the stub's own
     arithmetic.  */
  sp->params.target = sp->old_target != 0 ? (int64_t) (sp->old_target - sp->entry_vaddr) : 0;
  sp->params.magic = STUB_MAGIC;
  sp->params.pmd = opts->pmd;
  sp->params.populate_max = opts->req.populate_max;
  if (opts->req.copy)
    {
      /* The whole-chunk text, or less (--copy-max, whole chunks).  */
      uint64_t all = 0;
      for (size_t k = 0; k < sp->params.nranges; k++)
	all += sp->params.range[k].length;
      uint64_t max = opts->req.copy_max != 0 && opts->req.copy_max < all
		     ? opts->req.copy_max / opts->pmd * opts->pmd : all;
      sp->params.flags |= STUB_FLAG_COPY;
      sp->params.copy_max = max;
    }
  for (size_t k = 0; k < sp->params.nranges; k++)
    sp->params.range[k].start = (int64_t) ((uint64_t) sp->params.range[k].start - sp->entry_vaddr);
  sp->enabled = true;
}

int
stub_plan_build (struct stub_plan *sp, const struct layout_plan *layout,
		 const struct elf_file *file, const struct stub_options *opts, struct diag *err)
{
  *sp = (struct stub_plan) { .wanted = opts->req.wanted,
			     .room = { .slot = SIZE_MAX, .symtab_index = SIZE_MAX } };
  if (!sp->wanted || file->skip_reason != NULL)
    return 0;
  /* Each pass only when the one before neither failed nor refused.  */
  bool section_ok = false;
  fit_pass (sp, layout, file, opts);
  if (sp->refusal != NULL)
    return 0;
  if (hook_pass (sp, layout, file, err) != 0)
    return -1;
  if (sp->refusal != NULL)
    return 0;
  room_pass (sp, layout, file, opts, &section_ok);
  if (sp->refusal != NULL)
    return 0;
  segment_pass (sp, layout, file, opts);
  if (sp->refusal != NULL)
    return 0;
  if (section_ok && section_pass (sp, file, err) != 0)
    return -1;
  if (sp->refusal != NULL)
    return 0;
  params_pass (sp, opts);
  return 0;
}

/* The new program header table (SP->new_phnum entries) into OUT, from the
   layout's table IN (one entry per program header of FILE).  */
static void
new_phdrs (const struct stub_plan *sp, const struct elf_file *file, const GElf_Phdr *in,
	   GElf_Phdr *out)
{
  GElf_Phdr load = stub_load (sp);
  if (sp->room.kind == ROOM_SLOT)
    {
      /* The table keeps its size: drop the reused entry and put the new
	 PT_LOAD right after the last PT_LOAD, so the PT_LOADs stay sorted.  */
      size_t o = 0;
      for (size_t i = 0; i < file->phnum; i++)
	{
	  if (i != sp->room.slot)
	    out[o++] = in[i];
	  if (i + 1 == sp->new_load_index)
	    out[o++] = load;
	}
      return;
    }
  uint64_t table = (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  size_t o = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (i == sp->new_load_index)
	out[o++] = load;
      GElf_Phdr ph = in[i];
      const GElf_Phdr *old = &file->phdrs[i];
      /* Only a PT_PHDR that describes the table follows it.  */
      bool describes = old->p_type == PT_PHDR && describes_table (file, old);
      if (describes && sp->room.kind == ROOM_MOVED)
	{
	  ph.p_offset = sp->seg_offset;
	  ph.p_vaddr = ph.p_paddr = sp->seg_vaddr;
	  ph.p_filesz = ph.p_memsz = table;
	}
      else if (describes)
	ph.p_filesz = ph.p_memsz = table;
      else if (room_phdr_occupies (old) && room_is_moved (&sp->room, old->p_offset, old->p_filesz))
	{
	  uint64_t at = old->p_offset - sp->room.moved_start;
	  ph.p_offset = sp->room.moved_offset + at;
	  ph.p_vaddr = sp->room.moved_vaddr + at;
	  ph.p_paddr = old->p_paddr + (ph.p_vaddr - old->p_vaddr);
	}
      out[o++] = ph;
    }
  if (sp->new_load_index == file->phnum)
    out[o++] = load;
}

/* The new section header table (SP->new_shnum entries) into OUT, from the
   layout's table IN.  */
static void
new_shdrs (const struct stub_plan *sp, const struct elf_file *file, const GElf_Shdr *in,
	   GElf_Shdr *out)
{
  for (size_t i = 0; i < file->shnum; i++)
    {
      GElf_Shdr *o = &out[new_section_index (sp, file, i)];
      *o = in[i];
      const GElf_Shdr *old = &file->shdrs[i];
      if (i == sp->shstrndx)
	{
	  o->sh_offset = sp->shstrtab_offset;
	  o->sh_size = sp->shstrtab_size;
	}
      else if (room_section_moved (&sp->room, file, i))
	{
	  o->sh_offset = sp->room.moved_offset + (old->sh_offset - sp->room.moved_start);
	  o->sh_addr = sp->room.moved_vaddr + (old->sh_offset - sp->room.moved_start);
	}
      /* The indices that name a section: sh_link, and sh_info where the
	 flag or a relocation section's type says it is one.  */
      o->sh_link = (GElf_Word) new_section_index (sp, file, o->sh_link);
      if ((o->sh_flags & SHF_INFO_LINK) != 0 || o->sh_type == SHT_REL || o->sh_type == SHT_RELA)
	o->sh_info = (GElf_Word) new_section_index (sp, file, o->sh_info);
    }
  /* Every byte of the new segment belongs to a section, so that strip and
     eu-strip, which lay files out by sections, keep it as it is (but for
     padding between moved objects).  */
  GElf_Word name = (GElf_Word) file->shdrs[sp->shstrndx].sh_size;
  size_t k = sp->shdr_insert;
  if (sp->room.kind == ROOM_MOVED)
    out[k++] = (GElf_Shdr) {
      .sh_name = name + (GElf_Word) sizeof STUB_SECTION_NAME, .sh_type = SHT_PROGBITS,
      .sh_flags = SHF_ALLOC, .sh_addr = sp->seg_vaddr, .sh_offset = sp->seg_offset,
      .sh_size = sp->code_offset - sp->seg_offset, .sh_addralign = 8,
    };
  out[k] = (GElf_Shdr) {
    .sh_name = name, .sh_type = SHT_PROGBITS,
    .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = sp->code_vaddr,
    .sh_offset = sp->code_offset, .sh_size = sp->stub->size, .sh_addralign = 16,
  };
  if (sp->add_symtab)
    {
      GElf_Shdr *str = &out[new_section_index (sp, file, sp->symtab.strtab)];
      GElf_Shdr *sym = &out[new_section_index (sp, file, sp->symtab.symtab)];
      str->sh_offset = sp->strtab_offset;
      str->sh_size = sp->symtab.old_strtab_size + sp->symtab.names_size;
      sym->sh_offset = sp->symtab_offset;
      sym->sh_size = sp->symtab.old_symtab_size + sp->symtab.syms_size;
    }
  if (sp->add_debugdata)
    out[sp->new_shnum - 1] = (GElf_Shdr) {
      .sh_name = name + (GElf_Word) (sizeof STUB_SECTION_NAME + sizeof STUB_PHDR_SECTION_NAME),
      .sh_type = SHT_PROGBITS, .sh_offset = sp->debugdata_offset, .sh_size = sp->debugdata_size,
      .sh_addralign = 1,
    };
}

const char *
stub_hook_name (enum stub_hook hook)
{
  switch (hook)
    {
    case STUB_HOOK_ENTRY: return "e_entry";
    case STUB_HOOK_INIT_CHAIN: return "DT_INIT, chained to the old one";
    case STUB_HOOK_INIT_ARRAY: return "DT_INIT_ARRAY[0], chained to the old first entry";
    default: return "DT_INIT, in a spare .dynamic slot";
    }
}

uint64_t
stub_chunks (const struct stub_plan *sp)
{
  uint64_t chunks = 0;
  for (size_t k = 0; k < sp->params.nranges; k++)
    chunks += sp->params.range[k].length / sp->params.pmd;
  return chunks;
}

uint64_t
stub_sampled_chunks (const struct stub_plan *sp)
{
  uint64_t chunks = 0;
  for (size_t k = 0; k < sp->params.nranges; k++)
    {
      uint64_t n = sp->params.range[k].length / sp->params.pmd;
      if (stub_range_sampled (n, sp->params.populate_max))
	chunks += n;
    }
  return chunks;
}

uint64_t
stub_copy_max (const struct stub_plan *sp)
{
  return (sp->params.flags & STUB_FLAG_COPY) ? sp->params.copy_max : 0;
}

/* Store V as SIZE bytes in byte order DATA at P.  */
static void
put_word (unsigned char *p, uint64_t v, size_t size, int data)
{
  for (size_t k = 0; k < size; k++)
    p[data == ELFDATA2LSB ? k : size - 1 - k] = (unsigned char) (v >> (8 * k));
}

/* Store V as 8 bytes in byte order DATA at P.  */
static void
put64 (unsigned char *p, uint64_t v, int data)
{
  put_word (p, v, 8, data);
}

/* The stub's code with its parameters filled in, in the file's byte order:
   a new buffer of SP->stub->size bytes, or NULL.  */
static unsigned char *
stub_code (const struct stub_plan *sp, int data)
{
  unsigned char *code = malloc (sp->stub->size);
  if (code == NULL)
    return NULL;
  memcpy (code, sp->stub->code, sp->stub->size);
  unsigned char *p = code + sp->stub->params;
  const struct stub_params *v = &sp->params;
  put64 (p + offsetof (struct stub_params, target), (uint64_t) v->target, data);
  put64 (p + offsetof (struct stub_params, magic), v->magic, data);
  put64 (p + offsetof (struct stub_params, flags), v->flags, data);
  put64 (p + offsetof (struct stub_params, pmd), v->pmd, data);
  put64 (p + offsetof (struct stub_params, nranges), v->nranges, data);
  for (size_t k = 0; k < STUB_MAX_RANGES; k++)
    {
      size_t at = offsetof (struct stub_params, range) + k * sizeof (struct stub_range);
      put64 (p + at + offsetof (struct stub_range, start), (uint64_t) v->range[k].start, data);
      put64 (p + at + offsetof (struct stub_range, length), v->range[k].length, data);
      put64 (p + at + offsetof (struct stub_range, file_offset), v->range[k].file_offset, data);
    }
  put64 (p + offsetof (struct stub_params, populate_max), v->populate_max, data);
  put64 (p + offsetof (struct stub_params, copy_max), v->copy_max, data);
  return code;
}

/* Add the patch of one dynamic entry TAG, VALUE at OFFSET.  */
static int
patch_dyn (const struct elf_file *file, struct plan_pieces *pieces, int64_t tag, uint64_t value,
	   uint64_t offset, struct diag *err)
{
  GElf_Dyn dyn = { .d_tag = tag, .d_un.d_val = value };
  unsigned char *buf;
  size_t len;
  if (elf_encode (file->elfclass, file->data, ELF_T_DYN, &dyn, 1, &buf, &len, err) != 0)
    return -1;
  return pieces_add_patch (pieces, PATCH_DYNAMIC, offset, buf, len, err);
}

/* Add the patches of the symbols of SP->symtab_index defined in moved
   sections, their st_value moved as their section moved.  */
static int
patch_symbols (const struct stub_plan *sp, const struct layout_plan *layout,
	       const struct elf_file *file, struct plan_pieces *pieces, struct diag *err)
{
  Elf_Data *data = elf_file_section_data (file, sp->room.symtab_index, ELF_T_SYM);
  if (data == NULL)
    return diag_set (err, "cannot read the symbol table: %s", elf_errmsg (-1));
  size_t entsize = gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
  size_t count = data->d_size / entsize;
  /* (where the stub's symbols are appended, the table is at its copy) */
  uint64_t table = sp->add_symtab && sp->symtab.symtab == sp->room.symtab_index
		   ? sp->symtab_offset : layout->section_offsets[sp->room.symtab_index];
  for (size_t k = 0; k < count; k++)
    {
      GElf_Sym sym;
      if (gelf_getsym (data, (int) k, &sym) == NULL)
	return diag_set (err, "cannot read symbol %zu: %s", k, elf_errmsg (-1));
      if (sym.st_shndx >= SHN_LORESERVE || !room_section_moved (&sp->room, file, sym.st_shndx))
	continue;
      const GElf_Shdr *at = &file->shdrs[sym.st_shndx];
      sym.st_value += sp->room.moved_vaddr + (at->sh_offset - sp->room.moved_start) - at->sh_addr;
      unsigned char *buf;
      size_t len;
      if (elf_encode (file->elfclass, file->data, ELF_T_SYM, &sym, 1, &buf, &len, err) != 0
	  || pieces_add_patch (pieces, PATCH_SYMBOL, table + k * entsize, buf, len, err) != 0)
	return -1;
    }
  return 0;
}

/* Add the copy of the section name table, extended by the stub's names.  */
static int
patch_names (const struct stub_plan *sp, const struct elf_file *file, struct plan_pieces *pieces,
	     struct diag *err)
{
  const GElf_Shdr *names = &file->shdrs[sp->shstrndx];
  Elf_Data *old = elf_file_section_data (file, sp->shstrndx, ELF_T_BYTE);
  if (names->sh_size != 0 && old == NULL)
    return diag_set (err, "cannot read the section name table: %s", elf_errmsg (-1));
  unsigned char *buf = calloc (1, sp->shstrtab_size);
  if (buf == NULL)
    return diag_set (err, "out of memory");
  if (old != NULL)
    memcpy (buf, old->d_buf, names->sh_size);
  memcpy (buf + names->sh_size, STUB_SECTION_NAME, sizeof STUB_SECTION_NAME);
  memcpy (buf + names->sh_size + sizeof STUB_SECTION_NAME, STUB_PHDR_SECTION_NAME,
	  sizeof STUB_PHDR_SECTION_NAME);
  if (sp->add_debugdata)
    memcpy (buf + names->sh_size + sizeof STUB_SECTION_NAME + sizeof STUB_PHDR_SECTION_NAME,
	    STUB_DEBUGDATA_NAME, sizeof STUB_DEBUGDATA_NAME);
  return pieces_add_patch (pieces, PATCH_NAMES, sp->shstrtab_offset, buf, sp->shstrtab_size, err);
}

/* Add the copies of the symbol table and its string table, each extended
   by a patch: the stub's symbols and their names (SP->add_symtab).  */
static int
patch_symtab (const struct stub_plan *sp, const struct elf_file *file,
	      struct plan_pieces *pieces, struct diag *err)
{
  const struct stub_symtab *st = &sp->symtab;
  unsigned char *names, *syms;
  size_t section = sp->shdr_insert + loaded_sections (sp) - 1;
  if (stub_symtab_encode (st, file, sp->stub, section, sp->code_vaddr, &names, &syms, err) != 0)
    return -1;
  if (pieces_add_patch (pieces, PATCH_STUB_NAMES, sp->strtab_offset + st->old_strtab_size, names,
			st->names_size, err) != 0)
    {
      free (syms);
      return -1;
    }
  if (pieces_add_patch (pieces, PATCH_STUB_SYMBOLS, sp->symtab_offset + st->old_symtab_size,
			syms, st->syms_size, err) != 0)
    return -1;
  if (pieces_add_copy (pieces, file->shdrs[st->strtab].sh_offset, sp->strtab_offset,
		       st->old_strtab_size, err) != 0
      || pieces_add_copy (pieces, file->shdrs[st->symtab].sh_offset, sp->symtab_offset,
			  st->old_symtab_size, err) != 0)
    return -1;
  return 0;
}

/* Add the stub's MiniDebugInfo (SP->add_debugdata).  */
static int
patch_debugdata (const struct stub_plan *sp, const struct elf_file *file,
		 struct plan_pieces *pieces, struct diag *err)
{
  unsigned char *dd;
  size_t len;
  struct minidebug_in m = minidebug_of (sp, file);
  if (stub_minidebug (&m, file, &dd, &len, err) != 0)
    return -1;
  if (len != sp->debugdata_size)
    {
      free (dd);
      return diag_set (err, "internal error: the stub's MiniDebugInfo changed size");
    }
  return pieces_add_patch (pieces, PATCH_DEBUGDATA, sp->debugdata_offset, dd, len, err);
}

int
stub_compose (const struct stub_plan *sp, const struct layout_plan *layout,
	      const struct elf_file *file, struct plan_tables *tables,
	      struct plan_pieces *pieces, struct diag *err)
{
  GElf_Phdr *phdrs = calloc (sp->new_phnum, sizeof *phdrs);
  GElf_Shdr *shdrs = sp->add_section ? calloc (sp->new_shnum, sizeof *shdrs) : NULL;
  if (phdrs == NULL || (sp->add_section && shdrs == NULL))
    {
      free (phdrs);
      free (shdrs);
      return diag_set (err, "out of memory");
    }
  new_phdrs (sp, file, tables->phdrs, phdrs);
  free (tables->phdrs);
  tables->phdrs = phdrs;
  tables->phnum = sp->new_phnum;
  if (sp->add_section)
    {
      new_shdrs (sp, file, tables->shdrs, shdrs);
      free (tables->shdrs);
      tables->shdrs = shdrs;
      tables->shnum = sp->new_shnum;
      tables->ehdr.e_shoff = sp->shdr_offset;
      tables->ehdr.e_shstrndx = (GElf_Half) new_section_index (sp, file, sp->shstrndx);
    }
  if (sp->room.kind == ROOM_MOVED)
    tables->ehdr.e_phoff = sp->seg_offset;
  tables->ehdr.e_entry = new_entry (sp, file);
  tables->size = sp->end_offset;

  unsigned char *code = stub_code (sp, file->data);
  if (code == NULL)
    return diag_set (err, "out of memory");
  if (pieces_add_patch (pieces, PATCH_STUB, sp->code_offset, code, sp->stub->size, err) != 0)
    return -1;
  if (sp->add_section && patch_names (sp, file, pieces, err) != 0)
    return -1;
  if (sp->add_debugdata && patch_debugdata (sp, file, pieces, err) != 0)
    return -1;
  if (sp->add_symtab && patch_symtab (sp, file, pieces, err) != 0)
    return -1;
  if ((sp->hook == STUB_HOOK_INIT_CHAIN || sp->hook == STUB_HOOK_INIT_NEW)
      && patch_dyn (file, pieces, DT_INIT, sp->entry_vaddr, sp->dyn_offset, err) != 0)
    return -1;
  if (sp->hook == STUB_HOOK_INIT_ARRAY)
    {
      unsigned char *word = malloc (sp->init_word_size);
      if (word == NULL)
	return diag_set (err, "out of memory");
      put_word (word, sp->entry_vaddr, sp->init_word_size, file->data);
      if (pieces_add_patch (pieces, PATCH_INIT_ARRAY, sp->init_word_offset, word,
			    sp->init_word_size, err) != 0)
	return -1;
    }
  if (sp->room.kind != ROOM_GROWN)
    return 0;

  /* The moved objects: copied into the new segment, their dynamic entries
     pointed there, their symbols moved, and what is left of their old place
     after the grown table cleared.  */
  if (pieces_add_copy (pieces, sp->room.moved_start, sp->room.moved_offset,
		       sp->room.moved_end - sp->room.moved_start, err) != 0)
    return -1;
  for (size_t k = 0; k < sp->room.nmoved; k++)
    if (!sp->room.moved[k].segment
	&& patch_dyn (file, pieces, sp->room.moved[k].dyn_tag, sp->room.moved[k].dyn_value,
		      sp->room.moved[k].dyn_offset, err) != 0)
      return -1;
  if (sp->room.nsyms_moved != 0 && patch_symbols (sp, layout, file, pieces, err) != 0)
    return -1;
  uint64_t table_end = file->ehdr.e_phoff + (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  if (sp->room.moved_end > table_end)
    {
      size_t len = (size_t) (sp->room.moved_end - table_end);
      unsigned char *zeros = calloc (1, len);
      if (zeros == NULL)
	return diag_set (err, "out of memory");
      uint64_t shift = layout->new_phoff - file->ehdr.e_phoff;
      if (pieces_add_patch (pieces, PATCH_CLEAR, table_end + shift, zeros, len, err) != 0)
	return -1;
    }
  return 0;
}
