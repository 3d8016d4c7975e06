/* Raw Linux system calls on riscv64, for the freestanding stub: ecall with
   the number in a7, arguments in a0-a5, the result (or -errno) in a0.  The
   numbers are the generic table's (asm-generic/unistd.h), as on aarch64:
   no open (openat); fstat 80, fadvise64 223.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#define SYS_fcntl 25
#define SYS_ioctl 29
#define SYS_flock 32
#define SYS_statfs 43
#define SYS_openat 56
#define SYS_close 57
#define SYS_read 63
#define SYS_pread64 67
#define SYS_fstat 80
#define SYS_sync_file_range 84
#define SYS_clock_nanosleep 115
#define SYS_uname 160
#define SYS_prctl 167
#define SYS_mmap 222
#define SYS_fadvise64 223
#define SYS_mincore 232
#define SYS_madvise 233

/* gcc for riscv64 copies some structures with a call to memcpy, which the
   stub defines then (there is no libc).  */
#define STUB_NEED_MEMCPY 1

/* struct stat as the kernel's fstat fills it (asm-generic/stat.h): st_dev,
   st_ino (64-bit words), then the 32-bit st_mode; 128 bytes in all.  */
#define STAT_WORDS 16
#define STAT_DEV(s) ((s)[0])
#define STAT_INO(s) ((s)[1])
#define STAT_MODE(s) ((uint32_t) (s)[2])

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
