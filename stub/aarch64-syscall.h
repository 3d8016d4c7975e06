/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* Raw Linux system calls on aarch64, for the freestanding stub: svc #0 with
   the number in x8, arguments in x0-x5, the result (or -errno) in x0.
   The numbers are the generic table's (asm-generic/unistd.h): there is no
   open (openat), and fstat is 80, fadvise64 223 (the 64-bit
   fadvise64_64).  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#include "generic-syscall.h"

/* arm64's own open flag (asm/fcntl.h); the others are the generic ones.  */
#define O_NOFOLLOW 0100000

/* mmap's protection bit for a BTI-guarded mapping (asm/mman.h): a chunk
   mapped afresh keeps the guard its mapping had (stub.c, guarded).  */
#define STUB_PROT_BTI 0x10

static inline long
syscall6 (long n, long a, long b, long c, long d, long e, long f)
{
  register long x8 __asm__ ("x8") = n;
  register long x0 __asm__ ("x0") = a;
  register long x1 __asm__ ("x1") = b;
  register long x2 __asm__ ("x2") = c;
  register long x3 __asm__ ("x3") = d;
  register long x4 __asm__ ("x4") = e;
  register long x5 __asm__ ("x5") = f;
  __asm__ volatile ("svc #0"
		    : "+r" (x0)
		    : "r" (x8), "r" (x1), "r" (x2), "r" (x3), "r" (x4), "r" (x5)
		    : "memory");
  return x0;
}

static inline long
sys_fadvise (int fd, long offset, long len, int advice)
{
  return syscall6 (SYS_fadvise64, fd, offset, len, advice, 0, 0);
}

/* The running kernel's base page size (4, 16 or 64 KiB), 0 if unknown,
   without a file or a look at the auxiliary vector (which a DT_INIT
   cannot find): msync(2) checks that its address is page-aligned before
   anything else (EINVAL), and with MS_ASYNC alone an address with nothing
   mapped there fails after that check (ENOMEM), while a mapped page
   succeeds and is left as it is (MS_ASYNC does nothing since Linux
   2.6.19).  0x1000 is aligned only to 4 KiB pages, 0x4000 to 16 KiB ones.
   Any other answer (a seccomp filter's errno) leaves the size unknown.
   msync is in systemd's @system-service (@sync), the allow-list services
   run under, where mincore, which answers the same, is not.  */
#define STUB_EINVAL 22
#define STUB_ENOMEM 12
#define STUB_MS_ASYNC 1

/* Whether the page size is at most the alignment of ADDR (4 or 16 KiB):
   1, 0 (it is larger), or -1 (unknown).  */
static inline int
stub_page_fits (unsigned long addr)
{
  long err = syscall6 (SYS_msync, (long) addr, 1, STUB_MS_ASYNC, 0, 0, 0);
  if (err == 0 || err == -STUB_ENOMEM)
    return 1;
  return err == -STUB_EINVAL ? 0 : -1;
}

static inline uint64_t
stub_page_size (void)
{
  for (uint64_t page = 4096; page <= 16384; page *= 4)
    {
      int fits = stub_page_fits ((unsigned long) page);
      if (fits != 0)
	return fits > 0 ? page : 0;
    }
  return 65536;
}

/* The PMD size of a kernel with PAGE-sized pages: a page of 8-byte
   entries, each mapping a page (2 MiB with 4 KiB pages, 32 MiB with 16 KiB,
   512 MiB with 64 KiB).  */
#define STUB_KERNEL_PMD(page) ((page) * ((page) / 8))

#endif
