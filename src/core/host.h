/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the running kernel offers huge pages for files: its PMD size, its
   transparent huge page mode (sysfs), whether this process may have them,
   and the file system a file is on.  */
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

/* Why this process cannot have huge pages at all (THP off, or disabled
   for it with PR_SET_THP_DISABLE), or NULL.  */
const char *host_thp_unavailable (void);

/* The file system type of FD, by name where it is one the kernel's large
   folios depend on, else in hexadecimal into BUF (LEN bytes).  */
const char *host_fs_name (int fd, char *buf, size_t len);

#endif
