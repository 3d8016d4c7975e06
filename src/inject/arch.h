/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* One architecture's startup stub, behind one small interface: its machine
   code and where its entry point and parameters are in it.  Adding an
   architecture is one file defining a struct stub_arch and one entry in the
   table of stub/arch.c.  */
#ifndef ELFPMD_STUB_ARCH_H
#define ELFPMD_STUB_ARCH_H

#include <gelf.h>
#include <stddef.h>

/* How the stub is hooked into a shared object of a machine: the C
   library's loader calls DT_INIT on the older ports only.  */
enum stub_library_hook
{
  STUB_LIBRARY_DT_INIT,		/* DT_INIT, chained to an old one or in a spare slot */
  STUB_LIBRARY_INIT_ARRAY,	/* the first DT_INIT_ARRAY entry, chained to the old one */
};

/* A function of the stub (or its parameters), which elfpmd names in the
   file's MiniDebugInfo (minidebug.c) and symbol table (symtab.c), so that
   a debugger or a crash reporter names a frame in the stub.  */
struct stub_symbol
{
  const char *name;		/* as in stub/, without the prefix */
  size_t value, size;		/* offset in the code, and bytes */
  int function;			/* 1 a function, 0 the parameters */
};

struct stub_arch
{
  unsigned e_machine;		/* EM_* this stub runs on */
  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  const char *name;		/* "x86-64" */
  const unsigned char *code;	/* position-independent machine code */
  size_t size;
  size_t entry;			/* offset of the entry point in CODE */
  size_t params;		/* offset of struct stub_params in CODE */
  const struct stub_symbol *symbols; /* by offset (tools/gen-stub.sh) */
  size_t nsymbols;
  enum stub_library_hook library_hook;
  unsigned relative_reloc;	/* R_*_RELATIVE, for STUB_LIBRARY_INIT_ARRAY */
};

/* The stub for E_MACHINE and ELFCLASS, or NULL if there is none.  */
const struct stub_arch *stub_arch_for (unsigned e_machine, int elfclass);

/* The machines that have a stub, for messages: "x86-64, aarch64 and
   riscv64".  */
const char *stub_arch_list (void);

/* Symbol J of STUB as an ELF symbol of section SECTION (the stub's code at
   CODE_VADDR), bound BIND with visibility OTHER, its name at NAME in its
   string table: what the MiniDebugInfo and the symbol table both say.  */
GElf_Sym stub_symbol_elf (const struct stub_arch *stub, size_t j, uint64_t code_vaddr,
			  size_t section, unsigned char bind, unsigned char other, GElf_Word name);

#endif
