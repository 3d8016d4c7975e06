/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The table of startup stubs, one per architecture.  */
#include <config.h>

#include "arch.h"

#include <string.h>

extern const struct stub_arch stub_arch_x86_64;
extern const struct stub_arch stub_arch_aarch64;
extern const struct stub_arch stub_arch_riscv64;

static const struct stub_arch *const arches[] = {
  &stub_arch_x86_64,
  &stub_arch_aarch64,
  &stub_arch_riscv64,
};

const struct stub_arch *
stub_arch_for (unsigned e_machine, int elfclass)
{
  for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
    if (arches[i]->e_machine == e_machine && arches[i]->elfclass == elfclass)
      return arches[i];
  return NULL;
}

const char *
stub_arch_list (void)
{
  static char list[128];
  size_t n = sizeof arches / sizeof arches[0];
  if (list[0] == '\0')
    for (size_t i = 0; i < n; i++)
      {
	if (i > 0)
	  strncat (list, i + 1 < n ? ", " : " and ", sizeof list - strlen (list) - 1);
	strncat (list, arches[i]->name, sizeof list - strlen (list) - 1);
      }
  return list;
}

GElf_Sym
stub_symbol_elf (const struct stub_arch *stub, size_t j, uint64_t code_vaddr, size_t section,
		 unsigned char bind, unsigned char other, GElf_Word name)
{
  const struct stub_symbol *y = &stub->symbols[j];
  return (GElf_Sym) {
    .st_name = name, .st_info = GELF_ST_INFO (bind, y->function ? STT_FUNC : STT_OBJECT),
    .st_other = other, .st_shndx = (GElf_Section) section, .st_value = code_vaddr + y->value,
    .st_size = y->size,
  };
}
