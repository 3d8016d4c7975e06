/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* What aarch64 and riscv64 share, for the freestanding stub: the generic
   system call table (asm-generic/unistd.h: no open, only openat; fstat 80,
   fadvise64 223, the 64-bit fadvise64_64) and the generic struct stat
   (asm-generic/stat.h).  Included by aarch64-syscall.h and
   riscv64-syscall.h, which add the instruction that makes the call.  */
#ifndef STUB_GENERIC_SYSCALL_H
#define STUB_GENERIC_SYSCALL_H

#define SYS_fcntl 25
#define SYS_ioctl 29
#define SYS_flock 32
#define SYS_statfs 43
#define SYS_fstatfs 44
#define SYS_openat 56
#define SYS_close 57
#define SYS_read 63
#define SYS_write 64
#define SYS_pread64 67
#define SYS_fstat 80
#define SYS_sync_file_range 84
#define SYS_clock_gettime 113
#define SYS_clock_nanosleep 115
#define SYS_uname 160
#define SYS_prctl 167
#define SYS_getpid 172
#define SYS_munmap 215
#define SYS_mremap 216
#define SYS_mmap 222
#define SYS_fadvise64 223
#define SYS_mprotect 226
#define SYS_msync 227
#define SYS_mincore 232
#define SYS_madvise 233
#define SYS_cachestat 451

/* struct stat as the kernel's fstat fills it: st_dev, st_ino (64-bit
   words), then the 32-bit st_mode; 128 bytes in all.  */
#define STAT_WORDS 16
#define STAT_DEV(s) ((s)[0])
#define STAT_INO(s) ((s)[1])
#define STAT_MODE(s) ((uint32_t) (s)[2])

#endif
