/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The stub's symbols in the file's own symbol table (symtab.c): where a
   file has a .symtab, the stub's functions are named there too, so that
   they reach the debug file a packaging step splits off (objcopy
   --only-keep-debug, eu-strip -f) along with the file's other symbols.  */
#ifndef ELFPMD_STUB_SYMTAB_H
#define ELFPMD_STUB_SYMTAB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "diag.h"
#include "elf_file.h"

/* The binding and visibility of the symbols appended: global, so that
   they follow every local symbol as the ELF rules want without a symbol
   index changing, and hidden, so that no reader takes them for functions
   the file exports (libabigail's abidiff would report them as new
   interfaces); doc/design.md, "The stub's symbols".  */
#define STUB_SYMTAB_BIND STB_GLOBAL
#define STUB_SYMTAB_VISIBILITY STV_HIDDEN

/* The file's symbol table and its string table, each copied after the end
   of the file and extended: the old bytes, then the stub's symbols and
   their names.  */
struct stub_symtab
{
  size_t symtab, strtab;	/* section indices */
  uint64_t old_symtab_size, old_strtab_size;
  uint64_t align;		/* the symbol table's alignment in the file (at least 1) */
  bool lead_nul;		/* a NUL first, the old string table being empty or not
				   ending with one */
  uint64_t names_size;		/* bytes the names add */
  uint64_t syms_size;		/* bytes the symbols add */
};

/* Whether FILE (its section names in section SHSTRNDX) has one symbol
   table that can take STUB's symbols: SHT_SYMTAB, not loaded, whole
   entries of the right size, its own string table (SHT_STRTAB, not loaded,
   not the section name table), no SHT_SYMTAB_SHNDX beside it, alignments a
   power of two up to 4096.  If so fill *ST.  */
bool stub_symtab_plan (struct stub_symtab *st, const struct elf_file *file, size_t shstrndx,
		       const struct stub_arch *stub);

/* The bytes ST appends for STUB's code at CODE_VADDR in section SECTION:
   the names (elfpmd.NAME) into a new buffer *NAMES of ST->names_size
   bytes, the symbols (STUB_SYMTAB_BIND, STUB_SYMTAB_VISIBILITY, STT_FUNC
   or STT_OBJECT) into a new buffer *SYMS of ST->syms_size bytes, in FILE's
   class and byte order.  Return 0, or -1 (nothing to free).  */
int stub_symtab_encode (const struct stub_symtab *st, const struct elf_file *file,
			const struct stub_arch *stub, size_t section, uint64_t code_vaddr,
			unsigned char **names, unsigned char **syms, struct diag *err);

#endif
