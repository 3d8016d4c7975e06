/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The stub's MiniDebugInfo (.gnu_debugdata): its symbols for debuggers
   and crash reporters, in a stripped file (minidebug.c).  */
#ifndef ELFPMD_MINIDEBUG_H
#define ELFPMD_MINIDEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "diag.h"
#include "elf_file.h"

#define STUB_DEBUGDATA_NAME ".gnu_debugdata"

/* The contents of .gnu_debugdata for the stub M describes in FILE: an xz
   stream of a small ELF file of FILE's class, byte order and machine whose
   symbol table names each function of the stub (STUB_SYMBOL_PREFIX and its
   name in stub/), in a NOBITS section named like the stub's, with NOBITS
   copies of the rewritten file's other loaded sections (so that gdb finds
   each, and says nothing), empty copies of its PT_LOADs, and its entry
   point (gdb relocates a PIE's MiniDebugInfo by the two).  The same
   inputs give the same bytes.  Into a new buffer *OUT of *LEN bytes; return
   0, or -1.  */
struct minidebug_in
{
  const struct stub_arch *stub;
  size_t shstrndx;		/* the file's section name table */
  uint64_t code_vaddr;		/* the stub's first byte */
  GElf_Phdr load;		/* the stub's PT_LOAD */
  uint64_t entry;		/* the rewritten file's entry point */
  uint64_t phdrs_vaddr, phdrs_size; /* .elfpmd.phdrs, when the table moves (size not 0) */
};

int stub_minidebug (const struct minidebug_in *m, const struct elf_file *file,
		    unsigned char **out, size_t *len, struct diag *err);

#endif
