/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The first entry of a shared object's DT_INIT_ARRAY, where the stub is
   hooked on machines whose ld.so calls no DT_INIT (riscv64).  */
#ifndef ELFPMD_STUB_INIT_ARRAY_H
#define ELFPMD_STUB_INIT_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_file.h"

/* What ld.so calls first in DT_INIT_ARRAY, and the one word of the file
   that says so: the r_addend of the entry's relative RELA relocation, or,
   where DT_RELR relocates the entry (its addend implicit), the entry
   itself.  */
struct init_slot
{
  uint64_t addr;		/* the address of DT_INIT_ARRAY[0] */
  uint64_t function;		/* what ld.so calls there */
  bool relr;			/* the word is the entry itself (DT_RELR) */
  uint64_t word_offset;		/* the word's offset in the file, in a PT_LOAD's contents */
  size_t word_size;		/* its size: 8 in ELF64, 4 in ELF32 */
};

/* Find in FILE, a shared object, the first entry of its DT_INIT_ARRAY and
   the word that fills it through a relocation of type RELATIVE (the
   machine's R_*_RELATIVE), into *SLOT.  Everything is found through the
   dynamic section, not the section headers, and bounded by the PT_LOADs'
   file contents.  Return NULL, or why the stub cannot take the entry over
   (for the report: a refusal, never an error).  */
const char *init_slot_find (const struct elf_file *file, unsigned relative,
			    struct init_slot *slot);

#endif
