/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The names of an object's functions: their address ranges and
   compilation units, from DWARF (in the file or its separate debug file)
   or the symbol table.  map attributes each chunk's bytes to them.  */
#ifndef ELFPMD_NAMES_H
#define ELFPMD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf_file.h"

/* No compilation unit: names from a symbol table.  */
#define NO_CU SIZE_MAX

/* One function: its name (and mangled name, when DWARF has one), its
   address range [LO, HI) and its compilation unit.  */
struct function
{
  char *name;
  char *linkage;
  uint64_t lo, hi;
  size_t cu;
};

/* Where the names come from.  */
enum name_source
{
  NAMES_NONE,
  NAMES_DWARF,
  NAMES_SYMTAB,
  NAMES_DYNSYM,
};

struct names
{
  struct function *funcs;
  size_t nfuncs, cap;
  char **cus;			/* compilation unit names, by index */
  size_t ncus, cucap;
  enum name_source source;
  char *file;			/* the file the names were read from */
  const char *found_by;		/* "file", "build-id", ".gnu_debuglink" */
  size_t from_symbols;		/* functions DWARF missed, added from symbols */
};

/* Find the names of FILE (named NAME) into *NAMES and its symbol table
   into *SYMBOLS (for names DWARF lacks): DWARF from the file, or from its
   separate debug file under DEBUG_ROOT, unless NO_DWARF or this build reads
   no DWARF; else (or when the DWARF cannot be read, said once on ERRORS)
   the symbol table.  Return 0, or -1 when out of memory.  */
int names_find (const struct elf_file *file, const char *name, const char *debug_root, bool no_dwarf,
		struct names *names, struct names *symbols, FILE *errors);

/* -C: the demangled names (names.c says how).  Return 0, or -1.  */
int names_demangle (struct names *n);

/* Whether this build can demangle (__cxa_demangle).  */
bool names_can_demangle (void);

/* Free everything N holds.  */
void names_free (struct names *n);

#endif
