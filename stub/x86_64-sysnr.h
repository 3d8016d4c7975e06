/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* x86-64's system call numbers, for the stub (x86_64-syscall.h) and for
   its host build (host-syscall.h: the unit tests name calls by them).  */
#ifndef STUB_X86_64_SYSNR_H
#define STUB_X86_64_SYSNR_H

#define SYS_read 0
#define SYS_write 1
#define SYS_close 3
#define SYS_fstat 5
#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_munmap 11
#define SYS_ioctl 16
#define SYS_pread64 17
#define SYS_mremap 25
#define SYS_msync 26
#define SYS_mincore 27
#define SYS_madvise 28
#define SYS_getpid 39
#define SYS_uname 63
#define SYS_fcntl 72
#define SYS_flock 73
#define SYS_statfs 137
#define SYS_fstatfs 138
#define SYS_prctl 157
#define SYS_fadvise64 221
#define SYS_clock_gettime 228
#define SYS_clock_nanosleep 230
#define SYS_openat 257
#define SYS_sync_file_range 277
#define SYS_cachestat 451

#endif
