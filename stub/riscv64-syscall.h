/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* Raw Linux system calls on riscv64, for the freestanding stub: ecall with
   the number in a7, arguments in a0-a5, the result (or -errno) in a0.  The
   numbers are the generic table's (asm-generic/unistd.h), as on aarch64:
   no open (openat); fstat 80, fadvise64 223.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#include "generic-syscall.h"

/* gcc for riscv64 copies some structures with a call to memcpy, which the
   stub defines then (there is no libc).  */
#define STUB_NEED_MEMCPY 1

static inline long
syscall6 (long n, long a, long b, long c, long d, long e, long f)
{
  register long a7 __asm__ ("a7") = n;
  register long a0 __asm__ ("a0") = a;
  register long a1 __asm__ ("a1") = b;
  register long a2 __asm__ ("a2") = c;
  register long a3 __asm__ ("a3") = d;
  register long a4 __asm__ ("a4") = e;
  register long a5 __asm__ ("a5") = f;
  __asm__ volatile ("ecall"
		    : "+r" (a0)
		    : "r" (a7), "r" (a1), "r" (a2), "r" (a3), "r" (a4), "r" (a5)
		    : "memory");
  return a0;
}

static inline long
sys_fadvise (int fd, long offset, long len, int advice)
{
  return syscall6 (SYS_fadvise64, fd, offset, len, advice, 0, 0);
}

/* The running kernel's base page size: 4 KiB on every riscv64 kernel
   (Sv39, Sv48 and Sv57 alike); and the PMD size with it.  */
static inline uint64_t
stub_page_size (void)
{
  return 4096;
}

#define STUB_KERNEL_PMD(page) ((uint64_t) 2 << 20)

#endif
