/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The stub's system layer on the build host, for its unit tests (tests/stub/):
   the runtime compiled for the host calls a fake kernel instead of the real
   one.  The test program defines syscall6, stub_page_size and
   stub_fake_touch (tests/stub/fake_kernel.c): a model of the files, the
   clock, the page cache and the page table that each test sets up and
   inspects.  The numbers are x86-64's, for the tests' messages.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#include <stdint.h>

/* Built with a C library: memset comes from it, not from libc.c.  */
#define STUB_HOST 1
/* touch() asks the fake kernel to fault a chunk in.  */
#define STUB_FAKE_TOUCH 1
/* arm64's BTI guard, so that the host build reads VmFlags too.  */
#define STUB_PROT_BTI 0x10

#include "x86_64-sysnr.h"

long syscall6 (long n, long a, long b, long c, long d, long e, long f);
uint64_t stub_page_size (void);
void stub_fake_touch (uintptr_t addr);

/* As on arm64: a page of 8-byte entries, each mapping a page.  */
#define STUB_KERNEL_PMD(page) ((page) * ((page) / 8))

/* The generic struct stat (asm-generic/stat.h), which the fake fills.  */
#define STAT_WORDS 16
#define STAT_DEV(s) ((s)[0])
#define STAT_INO(s) ((s)[1])
#define STAT_MODE(s) ((uint32_t) (s)[2])

static inline long
sys_fadvise (int fd, long offset, long len, int advice)
{
  return syscall6 (SYS_fadvise64, fd, offset, len, advice, 0, 0);
}

#endif
