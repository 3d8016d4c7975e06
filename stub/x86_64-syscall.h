/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* Raw Linux system calls on x86-64, for the freestanding stub.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#include "x86_64-sysnr.h"

/* The running kernel's base page size, 0 if unknown: 4 KiB on every
   x86-64 kernel; and the PMD size with it.  */
static inline uint64_t
stub_page_size (void)
{
  return 4096;
}

#define STUB_KERNEL_PMD(page) ((uint64_t) 2 << 20)

/* struct stat as the kernel's fstat fills it: st_dev, st_ino, st_nlink
   (64-bit words), then st_mode.  */
#define STAT_WORDS 18
#define STAT_DEV(s) ((s)[0])
#define STAT_INO(s) ((s)[1])
#define STAT_MODE(s) ((uint32_t) (s)[3])

static inline long
syscall6 (long n, long a, long b, long c, long d, long e, long f)
{
  long ret;
  register long r10 __asm__ ("r10") = d;
  register long r8 __asm__ ("r8") = e;
  register long r9 __asm__ ("r9") = f;
  __asm__ volatile ("syscall"
		    : "=a" (ret)
		    : "a" (n), "D" (a), "S" (b), "d" (c), "r" (r10), "r" (r8), "r" (r9)
		    : "rcx", "r11", "memory");
  return ret;
}

static inline long
sys_fadvise (int fd, long offset, long len, int advice)
{
  return syscall6 (SYS_fadvise64, fd, offset, len, advice, 0, 0);
}

#endif
