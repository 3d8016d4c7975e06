/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the running kernel offers huge pages for files: its PMD size and its
   transparent huge page mode, read from sysfs.  */
#ifndef ELFPMD_HOST_H
#define ELFPMD_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The running kernel's PMD size (hpage_pmd_size), or 0 when it has no
   transparent huge pages or says something that is not a power of two.  */
uint64_t host_pmd_size (void);

/* The THP mode in brackets in /sys/kernel/mm/transparent_hugepage/enabled
   ("madvise") into BUF (LEN bytes), or "unknown".  */
void host_thp_mode (char *buf, size_t len);

#endif
