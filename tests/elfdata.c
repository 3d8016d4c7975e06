/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfdata.c -- the test side's one ELF decoder (see elfdata.h).  */

#include <string.h>

#include "elfdata.h"

const struct elf_field elf_ehdr_fields[E_NFIELDS] = {
  { "e_type", 16, 2, 16, 2 }, { "e_machine", 18, 2, 18, 2 },
  { "e_version", 20, 4, 20, 4 }, { "e_entry", 24, 4, 24, 8 },
  { "e_phoff", 28, 4, 32, 8 }, { "e_shoff", 32, 4, 40, 8 },
  { "e_flags", 36, 4, 48, 4 }, { "e_ehsize", 40, 2, 52, 2 },
  { "e_phentsize", 42, 2, 54, 2 }, { "e_phnum", 44, 2, 56, 2 },
  { "e_shentsize", 46, 2, 58, 2 }, { "e_shnum", 48, 2, 60, 2 },
  { "e_shstrndx", 50, 2, 62, 2 },
};

const struct elf_field elf_phdr_fields[P_NFIELDS] = {
  { "p_type", 0, 4, 0, 4 }, { "p_flags", 24, 4, 4, 4 },
  { "p_offset", 4, 4, 8, 8 }, { "p_vaddr", 8, 4, 16, 8 },
  { "p_paddr", 12, 4, 24, 8 }, { "p_filesz", 16, 4, 32, 8 },
  { "p_memsz", 20, 4, 40, 8 }, { "p_align", 28, 4, 48, 8 },
};

const struct elf_field elf_shdr_fields[SH_NFIELDS] = {
  { "sh_name", 0, 4, 0, 4 }, { "sh_type", 4, 4, 4, 4 },
  { "sh_flags", 8, 4, 8, 8 }, { "sh_addr", 12, 4, 16, 8 },
  { "sh_offset", 16, 4, 24, 8 }, { "sh_size", 20, 4, 32, 8 },
  { "sh_link", 24, 4, 40, 4 }, { "sh_info", 28, 4, 44, 4 },
  { "sh_addralign", 32, 4, 48, 8 }, { "sh_entsize", 36, 4, 56, 8 },
};

const struct elf_field elf_dyn_fields[D_NFIELDS] = {
  { "d_tag", 0, 4, 0, 8 }, { "d_val", 4, 4, 8, 8 },
};

const struct elf_field elf_sym_fields[ST_NFIELDS] = {
  { "st_name", 0, 4, 0, 4 }, { "st_info", 12, 1, 4, 1 },
  { "st_other", 13, 1, 5, 1 }, { "st_shndx", 14, 2, 6, 2 },
  { "st_value", 4, 4, 8, 8 }, { "st_size", 8, 4, 16, 8 },
};

uint64_t
elf_get (const unsigned char *p, unsigned width, bool msb)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++)
    v = (v << 8) | p[msb ? i : width - 1 - i];
  return v;
}

void
elf_put (unsigned char *p, unsigned width, bool msb, uint64_t v)
{
  for (unsigned i = 0; i < width; i++)
    p[msb ? width - 1 - i : i] = (unsigned char) (v >> (8 * i));
}

void
elf_decode (const unsigned char *p, const struct elf_field *f, size_t n,
	    bool is64, bool msb, uint64_t *out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = elf_get (p + elf_field_off (&f[i], is64), elf_field_size (&f[i], is64), msb);
}

int
elf_field_index (const struct elf_field *f, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (f[i].name, name) == 0)
      return (int) i;
  return -1;
}
