/* Raw Linux system calls on x86-64, for the freestanding stub.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

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
#define SYS_mincore 27
#define SYS_madvise 28
#define SYS_getpid 39
#define SYS_uname 63
#define SYS_fcntl 72
#define SYS_flock 73
#define SYS_statfs 137
#define SYS_prctl 157
#define SYS_fadvise64 221
#define SYS_clock_nanosleep 230
#define SYS_openat 257
#define SYS_sync_file_range 277
#define SYS_cachestat 451

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
