/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The startup stub that makes the kernel back the aligned text with huge
   pages, and its injection into a file.

   The stub itself is machine code generated from stub/ (see
   tools/gen-stub.sh); what it does at run time is described in stub/stub.c.
   Here is where it goes: a new read-only, executable PT_LOAD appended to the
   file, above every other segment, whose address minus its offset equals
   the first PT_LOAD's.  Its program header needs a place in the table
   (room.h: a slot that can go, the table grown in place, or the table moved
   into the new segment).

   Programs are hooked through e_entry; shared objects through DT_INIT,
   chaining to an existing one, or, on machines whose ld.so calls no
   DT_INIT (riscv64), through the first entry of DT_INIT_ARRAY, chaining to
   the function it held (stub/init_array.c).  */
#ifndef ELFPMD_STUB_STUB_H
#define ELFPMD_STUB_STUB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "elf_file.h"
#include "layout.h"
#include "pieces.h"
#include "room.h"
#include "arch.h"
#include "stub_params.h"
#include "symtab.h"

enum stub_hook
{
  STUB_HOOK_ENTRY,		/* e_entry of a program */
  STUB_HOOK_INIT_CHAIN,		/* DT_INIT of a shared object, chaining to the old one */
  STUB_HOOK_INIT_NEW,		/* DT_INIT put into a spare DT_NULL slot */
  STUB_HOOK_INIT_ARRAY,		/* DT_INIT_ARRAY[0] of a shared object, chaining to the old one */
};

/* What the stub is asked for.  */
/* What the user asked of the stub, one struct from the command line
   (run_options) through the plan (plan_options) to the stub's plan.  */
struct stub_request
{
  bool wanted;			/* --madvise was given */
  uint64_t populate_max;	/* the stub populates ranges of at most this many chunks whole */
  bool copy;			/* --madvise=copy */
  uint64_t copy_max;		/* --copy-max; 0: all the aligned text */
  bool move_table;		/* --move-table: the program header table may
				   move into the stub's segment */
};

struct stub_options
{
  struct stub_request req;
  uint64_t pmd, page;		/* the sizes the file is planned for */
};

/* Where the stub goes and how it is hooked.  */
struct stub_plan
{
  bool wanted;			/* --madvise was given */
  bool enabled;			/* the stub will be injected */
  bool present;			/* the file has an elfpmd stub already */
  bool no_arch;			/* refused: elfpmd has no stub for the file's machine */
  const char *refusal;		/* why not, when wanted but not enabled */
  const struct stub_arch *stub;

  uint64_t seg_offset, seg_vaddr, seg_size; /* the new PT_LOAD */
  size_t new_phnum;
  size_t new_load_index;	/* index of the new PT_LOAD in the new table */
  struct phdr_room room;		/* where its program header goes */
  uint64_t page;		/* the new PT_LOAD's alignment */
  uint64_t end_offset;		/* the output's end */

  uint64_t code_offset, code_vaddr; /* the stub's first byte */
  uint64_t entry_vaddr;		/* the stub's entry point */

  /* A section header for the stub (".elfpmd.stub"), so that eu-elflint and
     strip see its code: a new section header table and a copy of the
     section name table, after the segment, not loaded.  */
  bool add_section;
  size_t shstrndx;		/* the section name table */
  size_t new_shnum;
  /* Where the stub's loaded sections' headers go: after the input's last
     loaded one, so that a section keeps its index in the stripped file
     and in the debug file that objcopy --only-keep-debug or eu-strip -f
     make (gdb matches their symbols' sections by index); the input's
     sections from there on move up.  The input's number of sections (the
     new headers last) where a moved index would have to be rewritten in
     a symbol or a group (shdr_insert_at).  */
  size_t shdr_insert;
  uint64_t shstrtab_offset, shstrtab_size; /* the new name table */
  uint64_t shdr_offset;		/* the new section header table */
  /* In a file without MiniDebugInfo, a new section .gnu_debugdata naming
     the stub's functions ("elfpmd.stub_main": STUB_SYMBOL_PREFIX and the
     name in stub/; minidebug.c), before the new section header table, so
     that gdb, eu-stack and crash reporters name a frame in the stub, also
     once the file is stripped (GNU strip and dh_strip keep the section).  */
  bool add_debugdata;
  uint64_t debugdata_offset, debugdata_size;
  /* In a file with a symbol table, the same names appended to it
     (symtab.c): the symbol table and its string table copied after the
     new section name table, extended, so that the names reach the debug
     file a packaging step splits off.  */
  bool add_symtab;
  struct stub_symtab symtab;
  uint64_t strtab_offset, symtab_offset; /* the copies' new places */

  enum stub_hook hook;
  uint64_t old_target;		/* old e_entry, DT_INIT or DT_INIT_ARRAY[0], 0 when none */
  uint64_t dyn_offset;		/* new file offset of the dynamic entry to patch */
  uint64_t dyn_old_offset;	/* its offset in the input */
  /* STUB_HOOK_INIT_ARRAY: the word that decides what DT_INIT_ARRAY[0]
     holds (its relocation's r_addend, or with DT_RELR the entry itself)
     gets the stub's entry point.  */
  uint64_t init_word_offset;	/* its new file offset */
  uint64_t init_word_old_offset; /* its offset in the input */
  size_t init_word_size;
  bool init_word_relr;		/* it is the entry itself */
  struct stub_params params;
};

/* Plan the stub for FILE as LAYOUT lays it out, under OPTS, into *SP.
   Sets SP->enabled, or SP->refusal: a hostile or unsuitable file is a
   refusal, never an error.  Return 0, or -1 on a failure that is not a
   refusal (out of memory, an unreadable dynamic section).  */
int stub_plan_build (struct stub_plan *sp, const struct layout_plan *layout,
		     const struct elf_file *file, const struct stub_options *opts,
		     struct diag *err);

/* Add the stub planned in SP to the output: change the header tables in
   *TABLES (built from LAYOUT alone; their arrays are replaced) and append
   the copies and patches it needs to *PIECES.  Return 0, or -1.  */
int stub_compose (const struct stub_plan *sp, const struct layout_plan *layout,
		  const struct elf_file *file, struct plan_tables *tables,
		  struct plan_pieces *pieces, struct diag *err);

/* How the stub is hooked, in a few words, for the report.  */
const char *stub_hook_name (enum stub_hook hook);

/* Chunks of text the stub works on, and those of them in ranges it samples
   (--populate-max).  */
uint64_t stub_chunks (const struct stub_plan *sp);
uint64_t stub_sampled_chunks (const struct stub_plan *sp);

/* With --madvise=copy, the bytes of text the stub copies at most where
   the kernel cannot give the file huge page cache folios: --copy-max
   rounded down to whole chunks, and at most all of them; 0 without
   --madvise=copy.  */
uint64_t stub_copy_max (const struct stub_plan *sp);

#define STUB_SECTION_NAME ".elfpmd.stub"
#define STUB_SYMBOL_PREFIX "elfpmd."
#define STUB_PHDR_SECTION_NAME ".elfpmd.phdrs"

#endif
