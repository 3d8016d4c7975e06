/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The architectures elfpmd knows: names, base page and PMD sizes, and how
   every verb chooses them for a file.  */
#ifndef ELFPMD_MACHINE_H
#define ELFPMD_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* The architecture facts elfpmd needs about one e_machine.  */
struct machine_info
{
  const char *name;		/* "x86-64" */
  uint64_t default_page;	/* base page size of the usual kernel configuration */
  uint64_t pmd;			/* PMD size for PAGE (filled by machine_pmd_size) */
  uint64_t page;
  const char *note;		/* how PMD was derived, for the report */
};

/* Fill *INFO for E_MACHINE and ELFCLASS with the PMD size for base page size
   PAGE (0 for the architecture's usual one).  Return NULL, or a static string
   saying why no PMD size is known (unknown machine, page size not supported by
   that architecture).  */
const char *machine_pmd_size (unsigned e_machine, int elfclass, uint64_t page,
			      struct machine_info *info);

/* A printable name of E_MACHINE, for machines elfpmd knows and some it does not.  */
const char *machine_name (unsigned e_machine, int elfclass);

/* The machine of NAME, a name machine_name gives (x86-64, aarch64, ...) or
   "host" (the machine elfpmd was built for), into *E_MACHINE and
   *ELFCLASS (ELFCLASSNONE where the name fits both classes); false for a
   name it never gives.  */
bool machine_by_name (const char *name, unsigned *e_machine, int *elfclass);

/* The PMD and page size for a file of E_MACHINE and ELFCLASS under the
   options PMD_SIZE and PAGE_SIZE (--pmd-size, --page-size; 0 when not
   given), as every verb decides them, into *PMD and *PAGE, and where the
   PMD size came from in SOURCE (LEN bytes).  Return 0, or -1 with the
   reason in *ERR.  */
int choose_sizes (unsigned e_machine, int elfclass, uint64_t pmd_size, uint64_t page_size,
		  uint64_t *pmd, uint64_t *page, char *source, size_t len, struct diag *err);

#endif
