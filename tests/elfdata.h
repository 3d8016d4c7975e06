/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfdata.h -- the test side's one ELF decoder.

   Where each field of the ELF header, a program header, a section header, a
   dynamic entry and a symbol lies in either class, how big each structure
   is, and how a number of 1 to 8 bytes reads and writes in either byte
   order.  phdr-dump (the independent reader of elfpmd's output) and mutate
   (the maker of malformed and hand-edited inputs, and the tests' "set this
   field" tool) both decode through it, and nothing else on the test side
   decodes ELF structures.

   It depends on nothing of elfpmd, not even <elf.h>: the field positions are
   typed from the System V ABI here, so that a mistake in elfpmd's reading
   cannot hide itself by being shared with the code that checks it.  */

#ifndef ELFPMD_TESTS_ELFDATA_H
#define ELFPMD_TESTS_ELFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field: its name and its offset and width in each class.  */
struct elf_field
{
  const char *name;
  unsigned char off32, size32, off64, size64;
};

enum { E_TYPE, E_MACHINE, E_VERSION, E_ENTRY, E_PHOFF, E_SHOFF, E_FLAGS,
       E_EHSIZE, E_PHENTSIZE, E_PHNUM, E_SHENTSIZE, E_SHNUM, E_SHSTRNDX,
       E_NFIELDS };
enum { P_TYPE, P_FLAGS, P_OFFSET, P_VADDR, P_PADDR, P_FILESZ, P_MEMSZ, P_ALIGN,
       P_NFIELDS };
enum { SH_NAME, SH_TYPE, SH_FLAGS, SH_ADDR, SH_OFFSET, SH_SIZE, SH_LINK,
       SH_INFO, SH_ADDRALIGN, SH_ENTSIZE, SH_NFIELDS };
enum { D_TAG, D_VAL, D_NFIELDS };
enum { ST_NAME, ST_INFO, ST_OTHER, ST_SHNDX, ST_VALUE, ST_SIZE, ST_NFIELDS };

extern const struct elf_field elf_ehdr_fields[E_NFIELDS];
extern const struct elf_field elf_phdr_fields[P_NFIELDS];
extern const struct elf_field elf_shdr_fields[SH_NFIELDS];
extern const struct elf_field elf_dyn_fields[D_NFIELDS];
extern const struct elf_field elf_sym_fields[ST_NFIELDS];

/* The size of one structure in the class (IS64: ELFCLASS64).  */
static inline unsigned elf_ehdr_size (bool is64) { return is64 ? 64 : 52; }
static inline unsigned elf_phdr_size (bool is64) { return is64 ? 56 : 32; }
static inline unsigned elf_shdr_size (bool is64) { return is64 ? 64 : 40; }
static inline unsigned elf_dyn_size (bool is64) { return is64 ? 16 : 8; }
static inline unsigned elf_sym_size (bool is64) { return is64 ? 24 : 16; }
/* The width of an address, an offset or a dynamic entry's word.  */
static inline unsigned elf_word (bool is64) { return is64 ? 8 : 4; }

static inline unsigned
elf_field_off (const struct elf_field *f, bool is64)
{
  return is64 ? f->off64 : f->off32;
}

static inline unsigned
elf_field_size (const struct elf_field *f, bool is64)
{
  return is64 ? f->size64 : f->size32;
}

/* The largest number a field of WIDTH bytes holds.  */
static inline uint64_t
elf_ones (unsigned width)
{
  return width >= 8 ? UINT64_MAX : (UINT64_C (1) << (8 * width)) - 1;
}

/* The unsigned number of WIDTH (1..8) bytes at P, big-endian if MSB.  */
uint64_t elf_get (const unsigned char *p, unsigned width, bool msb);

/* Store V, cut to WIDTH bytes, at P.  */
void elf_put (unsigned char *p, unsigned width, bool msb, uint64_t v);

/* Decode the N fields F of the structure at P into OUT[0..N-1].  */
void elf_decode (const unsigned char *p, const struct elf_field *f, size_t n,
		 bool is64, bool msb, uint64_t *out);

/* The index of the field called NAME in F[0..N-1], or -1.  */
int elf_field_index (const struct elf_field *f, size_t n, const char *name);

#endif
