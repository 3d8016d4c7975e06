/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The architectures elfpmd knows (machine.h).  */
#include <config.h>

#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "sizes.h"

/* PMD size of a 64-bit page table with PAGE-sized pages: one page of 8-byte
   entries, each mapping a page (arm64, loongarch64).  */
static uint64_t
pmd_of_64bit_table (uint64_t page)
{
  return page * (page / 8);
}

const char *
machine_pmd_size (unsigned e_machine, int elfclass, uint64_t page,
		  struct machine_info *info)
{
  const uint64_t K = 1024, M = K * K;
  info->name = machine_name (e_machine, elfclass);
  info->note = NULL;
  switch (e_machine)
    {
    case EM_X86_64:
      info->default_page = 4 * K;
      info->pmd = 2 * M;
      info->note = "x86-64";
      break;
    case EM_386:
      info->default_page = 4 * K;
      info->pmd = 2 * M;
      info->note = "i386 with PAE (4 MiB without PAE)";
      break;
    case EM_ARM:
      /* THP on 32-bit Arm needs LPAE, whose PMD covers 2 MiB.  */
      info->default_page = 4 * K;
      info->pmd = 2 * M;
      info->note = "arm with LPAE";
      break;
    case EM_AARCH64:
      info->default_page = 4 * K;
      if (page != 0 && page != 4 * K && page != 16 * K && page != 64 * K)
	return "aarch64 supports 4K, 16K and 64K pages only";
      info->pmd = pmd_of_64bit_table (page != 0 ? page : info->default_page);
      info->note = "aarch64";
      break;
    case EM_PPC64:
      info->default_page = 64 * K;
      if (page != 0 && page != 4 * K && page != 64 * K)
	return "ppc64 supports 4K and 64K pages only";
      info->pmd = 2 * M;
      info->note = "ppc64 radix MMU (16 MiB with the hash MMU)";
      break;
    case EM_RISCV:
      if (elfclass != ELFCLASS64)
	return "32-bit RISC-V kernels have no transparent huge pages";
      info->default_page = 4 * K;
      info->pmd = 2 * M;
      info->note = "riscv64";
      break;
    case EM_S390:
      if (elfclass != ELFCLASS64)
	return "31-bit s390 kernels have no transparent huge pages";
      info->default_page = 4 * K;
      info->pmd = 1 * M;
      info->note = "s390x";
      break;
    case EM_LOONGARCH:
      if (elfclass != ELFCLASS64)
	return "32-bit LoongArch kernels have no transparent huge pages";
      info->default_page = 16 * K;
      if (page != 0 && page != 4 * K && page != 16 * K && page != 64 * K)
	return "loongarch64 supports 4K, 16K and 64K pages only";
      info->pmd = pmd_of_64bit_table (page != 0 ? page : info->default_page);
      info->note = "loongarch64";
      break;
    default:
      return "no PMD size known for this machine (use --pmd-size)";
    }
  info->page = page != 0 ? page : info->default_page;
  if ((e_machine == EM_X86_64 || e_machine == EM_386 || e_machine == EM_ARM
       || e_machine == EM_RISCV || e_machine == EM_S390)
      && info->page != 4 * K)
    return "this machine has 4K pages only";
  return NULL;
}

const char *
machine_name (unsigned e_machine, int elfclass)
{
  switch (e_machine)
    {
    case EM_X86_64: return elfclass == ELFCLASS32 ? "x32" : "x86-64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_AARCH64: return elfclass == ELFCLASS32 ? "aarch64-ilp32" : "aarch64";
    case EM_PPC64: return "ppc64";
    case EM_PPC: return "ppc";
    case EM_RISCV: return elfclass == ELFCLASS32 ? "riscv32" : "riscv64";
    case EM_S390: return elfclass == ELFCLASS32 ? "s390" : "s390x";
    case EM_LOONGARCH: return elfclass == ELFCLASS32 ? "loongarch32" : "loongarch64";
    case EM_MIPS: return "mips";
    case EM_SPARCV9: return "sparcv9";
    case EM_SPARC: return "sparc";
    case EM_IA_64: return "ia64";
    case EM_NONE: return "none";
    default: return "unknown";
    }
}

bool
machine_by_name (const char *name, unsigned *e_machine, int *elfclass)
{
  static const unsigned machines[] = {
    EM_X86_64, EM_386, EM_ARM, EM_AARCH64, EM_PPC64, EM_PPC, EM_RISCV, EM_S390,
    EM_LOONGARCH, EM_MIPS, EM_SPARCV9, EM_SPARC, EM_IA_64,
  };
  if (strcmp (name, "host") == 0)
    {
      /* The machine and class of this program's own ELF header.  */
      extern const unsigned char __ehdr_start[] __attribute__ ((visibility ("hidden")));
      const Elf32_Ehdr *self = (const Elf32_Ehdr *) (const void *) __ehdr_start;
      *e_machine = self->e_machine;	/* (at the same place in ELF64) */
      *elfclass = self->e_ident[EI_CLASS];
      return true;
    }
  for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
    for (int cls = ELFCLASS32; cls <= ELFCLASS64; cls++)
      if (strcmp (machine_name (machines[i], cls), name) == 0)
	{
	  *e_machine = machines[i];
	  /* (a name that does not tell the class: either) */
	  *elfclass = strcmp (machine_name (machines[i], ELFCLASS32),
			      machine_name (machines[i], ELFCLASS64)) != 0 ? cls : ELFCLASSNONE;
	  return true;
	}
  return false;
}

int
choose_sizes (unsigned e_machine, int elfclass, uint64_t pmd_size, uint64_t page_size,
	      uint64_t *pmd, uint64_t *page, char *source, size_t len, struct diag *err)
{
  struct machine_info info;
  const char *why = machine_pmd_size (e_machine, elfclass, page_size, &info);
  char pagebuf[32];
  if (pmd_size != 0)
    {
      /* A page size the machine does not have is refused also with
	 --pmd-size; an unknown machine needs --page-size only to name the
	 load-base loss.  */
      struct machine_info known;
      if (why != NULL && page_size != 0 && machine_pmd_size (e_machine, elfclass, 0, &known) == NULL)
	return diag_set (err, "%s: %s", machine_name (e_machine, elfclass), why);
      *pmd = pmd_size;
      *page = why == NULL ? info.page : page_size != 0 ? page_size : 4096;
      snprintf (source, len, "--pmd-size");
    }
  else if (why != NULL)
    return diag_set (err, "%s: %s", machine_name (e_machine, elfclass), why);
  else
    {
      *pmd = info.pmd;
      *page = info.page;
      snprintf (source, len, "%s, %s pages%s", info.note, format_size (info.page, pagebuf, sizeof pagebuf),
		page_size != 0 ? " (--page-size)" : "");
    }
  if (*pmd < *page)
    return diag_set (err, "PMD size smaller than the page size");
  return 0;
}
