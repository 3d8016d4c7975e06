/* Raw Linux system calls on x86-64, for the freestanding stub.  */
#ifndef STUB_SYSCALL_H
#define STUB_SYSCALL_H

#define SYS_read 0
#define SYS_open 2
#define SYS_close 3
#define SYS_madvise 28
#define SYS_nanosleep 35
#define SYS_flock 73
#define SYS_fdatasync 75
#define SYS_ioctl 16
#define SYS_prctl 157
#define SYS_fadvise64 221

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
