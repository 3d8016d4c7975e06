/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* vmtime.c: the guest's timing and kernel-probing helper of the VM harness
   (tests/vm/README).  Built on the host, run inside the guest.

     vmtime pairs N BATCH A B [ARG...]
       Time N pairs of batches: a batch is BATCH runs of one program, one
       after the other, timed from the first fork to the last wait
       (CLOCK_MONOTONIC); each pair is a batch of A and a batch of B (each
       with ARG..., stdin, stdout and stderr on /dev/null), alternating
       which goes first (A B, B A, A B, ...).  Print one line:
         a_us=MEDIAN b_us=MEDIAN ratio=MEDIAN_OF_B/A ci_lo=.. ci_hi=..
         min_ratio=.. max_ratio=.. status=SA/SB
       with the medians per run, ratio the median of the per-pair ratios
       B/A, ci_lo and ci_hi a 95% confidence interval of that median (the
       order statistics a sign test gives, distribution-free), and SA, SB
       the exit statuses of the last runs.  Exit 0, or 2 on
       an error.
     vmtime run N PROG [ARG...]
       Run PROG N times (output to /dev/null); print "status=S" of the last.
     vmtime once PROG [ARG...]
       Run PROG once (output to /dev/null), timed from fork to wait: print
       "us=MICROSECONDS status=S".
     vmtime hold FILE
       Hold FILE's flock(LOCK_EX) and grow an open file description read
       lock on bytes [0, N) of it by one byte every millisecond (what an
       elfpmd stub at work once showed the starts waiting for it, and what
       any reader of the file can show): print "held" once the flock is
       taken, then go on until killed (at most 600 s).  Exit 1 when the
       lock cannot be taken.
     vmtime probe FILE
       What this kernel offers the stub, tried on FILE (a file of at least
       4 MiB that nothing else maps, ideally not cached): print
         pagemap_scan=ok|ERRNO populate_read=ok|ERRNO collapse=ok|ERRNO
         collapse_pmd_kb=N
       PAGEMAP_SCAN is an ioctl of /proc/self/pagemap (6.7+);
       MADV_POPULATE_READ (5.14+) is tried on a private anonymous page;
       MADV_COLLAPSE (6.1+; on file text it needs CONFIG_READ_ONLY_THP_FOR_FS)
       is tried on the second 2 MiB chunk of FILE mapped read-only and
       executable at a 2 MiB-aligned address, after MADV_HUGEPAGE and a read
       of every page under MADV_RANDOM (so that the cache holds it in small
       folios); collapse_pmd_kb is the mapping's FilePmdMapped afterwards.
     vmtime calls FILE
       What the system calls of the stub's path where the kernel cannot
       give a file PMD folios cost here: print
         uname_us=.. statfs_us=.. collapse_us=.. getppid_us=..
       the mean of 2000 calls each: uname, statfs of /proc/self/exe,
       madvise(MADV_COLLAPSE) of a 2 MiB-aligned read-only executable
       mapping of FILE (at least 2 MiB; its result does not matter), and
       getppid, the cheapest call, for scale.
     call-WHAT (vmtime run under that name, a link)
       Make the stub's system calls WHAT once and exit 0: none, uname,
       statfs (of /proc/self/exe), collapse (MADV_COLLAPSE of the 2 MiB
       around vmtime's own code), or all: timed against call-none with
       vmtime pairs, what they cost a fresh process.
     vmtime break OFFSET PROG [ARG...]
       x86-64 only: run PROG (stdin, stdout and stderr its own) under
       ptrace with a software breakpoint at OFFSET from its load base (the
       lowest address PROG's file is mapped at: a PIE's st_value), written
       while it stops at its execve, before the dynamic loader and the
       startup stub run, the way gdb writes one (int3 through
       /proc/PID/mem, which makes a private copy of the page in the text
       mapping); at each hit the original byte is put back for one single
       step, then the int3 again.  Exit with PROG's exit status (128 +
       signal), after printing "vmtime break: hits=N" on stderr.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../fixtures/pmdmapped.h"

#define PMD ((size_t) 2 << 20)

#ifndef MADV_POPULATE_READ
# define MADV_POPULATE_READ 22
#endif
#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif

/* PAGEMAP_SCAN (linux/fs.h, 6.7): defined here so that the helper builds
   against older headers.  */
struct vm_page_region
{
  uint64_t start, end, categories;
};
struct vm_pm_scan_arg
{
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define VM_PAGEMAP_SCAN _IOWR ('f', 16, struct vm_pm_scan_arg)
#define VM_PAGE_IS_PRESENT (1 << 1)
#define VM_PAGE_IS_FILE (1 << 4)
#define VM_PAGE_IS_HUGE (1 << 6)

static double
now_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Run ARGV with stdio on /dev/null; its exit status (128 + signal when
   killed, 127 when it cannot be started) in *STATUS; the time it took in
   microseconds.  */
static double
run_once (char **argv, int *status)
{
  double t0 = now_us ();
  pid_t pid = fork ();
  if (pid < 0)
    {
      perror ("fork");
      exit (2);
    }
  if (pid == 0)
    {
      int fd = open ("/dev/null", O_RDWR);
      if (fd >= 0)
	{
	  dup2 (fd, 0);
	  dup2 (fd, 1);
	  dup2 (fd, 2);
	  if (fd > 2)
	    close (fd);
	}
      execv (argv[0], argv);
      _exit (127);
    }
  int ws;
  while (waitpid (pid, &ws, 0) < 0)
    if (errno != EINTR)
      {
	perror ("waitpid");
	exit (2);
      }
  double t = now_us () - t0;
  *status = WIFEXITED (ws) ? WEXITSTATUS (ws) : 128 + WTERMSIG (ws);
  return t;
}

/* vmtime hold FILE (see the top).  */
static int
hold (const char *file)
{
  int fd = open (file, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      perror (file);
      return 1;
    }
  printf ("held\n");
  fflush (stdout);
  alarm (600);
  for (off_t steps = 1;; steps++)
    {
      struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = steps };
      fcntl (fd, F_OFD_SETLK, &l);
      usleep (1000);
    }
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
pairs (int n, int batch, char *a, char *b, char **args, int nargs)
{
  char **av = calloc ((size_t) nargs + 2, sizeof *av);
  double *ta = calloc ((size_t) n, sizeof *ta), *tb = calloc ((size_t) n, sizeof *tb);
  double *ratio = calloc ((size_t) n, sizeof *ratio);
  if (av == NULL || ta == NULL || tb == NULL || ratio == NULL)
    {
      perror ("calloc");
      return 2;
    }
  memcpy (av + 1, args, (size_t) nargs * sizeof *av);
  int sa = -1, sb = -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      {
	int first_a = (i % 2 == 0) == (k == 0);
	av[0] = first_a ? a : b;
	double t = 0;
	for (int j = 0; j < batch; j++)
	  t += run_once (av, first_a ? &sa : &sb);
	if (first_a)
	  ta[i] = t / batch;
	else
	  tb[i] = t / batch;
      }
  for (int i = 0; i < n; i++)
    ratio[i] = tb[i] / ta[i];
  double r = median (ratio, n);
  /* The ranks around the median that hold it with 95% confidence: the
     binomial (n, 1/2) by its normal approximation, n/2 -+ 0.98 sqrt (n),
     the whole range for fewer than 6 pairs.  */
  int lo = 0, hi = n - 1;
  if (n >= 6)
    {
      double half = 0.98 * sqrt ((double) n);
      lo = (int) floor (n / 2.0 - half);
      hi = (int) ceil (n / 2.0 + half) - 1;
      if (lo < 0)
	lo = 0;
      if (hi > n - 1)
	hi = n - 1;
    }
  printf ("a_us=%.0f b_us=%.0f ratio=%.3f ci_lo=%.3f ci_hi=%.3f min_ratio=%.3f max_ratio=%.3f status=%d/%d\n",
	  median (ta, n), median (tb, n), r, ratio[lo], ratio[hi], ratio[0], ratio[n - 1], sa, sb);
  return 0;
}

static const char *
result (int rc)
{
  return rc == 0 ? "ok" : strerrorname_np (errno) ? strerrorname_np (errno) : "error";
}

static int
probe (const char *name)
{
  int fd = open (name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      perror (name);
      return 2;
    }
  char *res = mmap (NULL, 3 * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (res == MAP_FAILED)
    {
      perror ("mmap");
      return 2;
    }
  uintptr_t at = ((uintptr_t) res + PMD - 1) & ~(uintptr_t) (PMD - 1);
  char *map = mmap ((void *) at, 2 * PMD, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (map == MAP_FAILED)
    {
      perror ("mmap");
      return 2;
    }

  /* PAGEMAP_SCAN over the (still empty) mapping.  */
  struct vm_page_region vec[16];
  struct vm_pm_scan_arg arg = {
    .size = sizeof arg, .start = at, .end = at + 2 * PMD,
    .vec = (uintptr_t) vec, .vec_len = 16,
    .category_anyof_mask = VM_PAGE_IS_PRESENT | VM_PAGE_IS_FILE | VM_PAGE_IS_HUGE,
    .return_mask = VM_PAGE_IS_PRESENT | VM_PAGE_IS_FILE | VM_PAGE_IS_HUGE,
  };
  int pm = open ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  int rc = pm < 0 ? -1 : ioctl (pm, VM_PAGEMAP_SCAN, &arg) < 0 ? -1 : 0;
  printf ("pagemap_scan=%s", result (rc));
  if (pm >= 0)
    close (pm);

  /* MADV_POPULATE_READ on an anonymous page.  */
  char *anon = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  rc = anon == MAP_FAILED ? -1 : madvise (anon, 4096, MADV_POPULATE_READ);
  printf (" populate_read=%s", result (rc));

  /* MADV_COLLAPSE on the second chunk, cached in small folios.  */
  madvise (map, 2 * PMD, MADV_RANDOM);
  for (size_t off = PMD; off < 2 * PMD; off += 4096)
    (void) *(volatile const char *) (map + off);
  madvise (map, 2 * PMD, MADV_NORMAL);
  rc = madvise (map, 2 * PMD, MADV_HUGEPAGE);
  if (rc == 0)
    rc = madvise (map + PMD, PMD, MADV_COLLAPSE);
  printf (" collapse=%s", result (rc));
  printf (" collapse_pmd_kb=%ld\n", file_pmd_mapped (at));
  return 0;
}

#ifdef __x86_64__
# include <signal.h>
# include <sys/ptrace.h>
# include <sys/user.h>

/* The lowest address the executable of process PID is mapped at (its
   /proc/PID/maps lines are sorted), or 0.  */
static uintptr_t
load_base (pid_t pid)
{
  char name[64], line[4096];
  struct stat st;
  snprintf (name, sizeof name, "/proc/%d/exe", (int) pid);
  if (stat (name, &st) != 0)
    return 0;
  snprintf (name, sizeof name, "/proc/%d/maps", (int) pid);
  FILE *f = fopen (name, "r");
  if (f == NULL)
    return 0;
  uintptr_t base = 0;
  while (base == 0 && fgets (line, sizeof line, f) != NULL)
    {
      uintptr_t lo, hi;
      unsigned long long off, ino;
      unsigned maj, min;
      char perms[8];
      if (sscanf (line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu", &lo, &hi, perms, &off,
		  &maj, &min, &ino) == 7 && ino == (unsigned long long) st.st_ino)
	base = lo;
    }
  fclose (f);
  return base;
}

static int
breakpoint (uintptr_t offset, char **argv)
{
  pid_t pid = fork ();
  if (pid < 0)
    {
      perror ("fork");
      return 2;
    }
  if (pid == 0)
    {
      ptrace (PTRACE_TRACEME, 0, NULL, NULL);
      execv (argv[0], argv);
      _exit (127);
    }
  int ws, hits = 0, sig = 0, status = -1;
  /* Stopped at the execve (SIGTRAP): the kernel has mapped the program,
     nothing of it has run.  */
  if (waitpid (pid, &ws, 0) != pid || !WIFSTOPPED (ws))
    {
      fprintf (stderr, "vmtime break: %s did not stop at its execve\n", argv[0]);
      return 2;
    }
  ptrace (PTRACE_SETOPTIONS, pid, NULL, (void *) (long) PTRACE_O_EXITKILL);
  char name[64];
  snprintf (name, sizeof name, "/proc/%d/mem", (int) pid);
  int mem = open (name, O_RDWR | O_CLOEXEC);
  uintptr_t base = load_base (pid), addr = base + offset;
  unsigned char saved, trap = 0xcc;
  if (mem < 0 || base == 0 || pread (mem, &saved, 1, (off_t) addr) != 1
      || pwrite (mem, &trap, 1, (off_t) addr) != 1)
    {
      fprintf (stderr, "vmtime break: cannot set a breakpoint at %#" PRIxPTR "\n", addr);
      kill (pid, SIGKILL);
      waitpid (pid, &ws, 0);
      return 2;
    }
  for (;;)
    {
      ptrace (PTRACE_CONT, pid, NULL, (void *) (long) sig);
      sig = 0;
      if (waitpid (pid, &ws, 0) != pid)
	{
	  perror ("waitpid");
	  return 2;
	}
      if (WIFEXITED (ws) || WIFSIGNALED (ws))
	{
	  status = WIFEXITED (ws) ? WEXITSTATUS (ws) : 128 + WTERMSIG (ws);
	  break;
	}
      if (WSTOPSIG (ws) != SIGTRAP)
	{
	  sig = WSTOPSIG (ws);
	  continue;
	}
      struct user_regs_struct regs;
      if (ptrace (PTRACE_GETREGS, pid, NULL, &regs) != 0 || regs.rip - 1 != addr)
	{
	  sig = SIGTRAP;
	  continue;
	}
      hits++;
      /* Step over the breakpoint with the original byte, then set it
	 again.  */
      regs.rip = addr;
      if (pwrite (mem, &saved, 1, (off_t) addr) != 1
	  || ptrace (PTRACE_SETREGS, pid, NULL, &regs) != 0
	  || ptrace (PTRACE_SINGLESTEP, pid, NULL, NULL) != 0
	  || waitpid (pid, &ws, 0) != pid || !WIFSTOPPED (ws)
	  || pwrite (mem, &trap, 1, (off_t) addr) != 1)
	{
	  fprintf (stderr, "vmtime break: cannot step over the breakpoint\n");
	  kill (pid, SIGKILL);
	  waitpid (pid, &ws, 0);
	  return 2;
	}
    }
  close (mem);
  fprintf (stderr, "vmtime break: hits=%d\n", hits);
  return status;
}
#endif

/* vmtime calls FILE: see the top of this file.  */
static int
calls (const char *file)
{
  enum { N = 2000 };
  size_t pmd = 2 << 20;
  int fd = open (file, O_RDONLY);
  char *area = fd < 0 ? MAP_FAILED : mmap (NULL, 2 * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      perror (file);
      return 2;
    }
  char *chunk = (char *) (((uintptr_t) area + pmd - 1) & ~(uintptr_t) (pmd - 1));
  if (mmap (chunk, pmd, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0) != chunk)
    {
      perror ("mmap");
      return 2;
    }
  struct utsname u;
  struct statfs sf;
  double t[4];
  for (int k = 0; k < 4; k++)
    {
      double t0 = now_us ();
      for (int i = 0; i < N; i++)
	switch (k)
	  {
	  case 0: uname (&u); break;
	  case 1: statfs ("/proc/self/exe", &sf); break;
	  case 2: madvise (chunk, pmd, 25 /* MADV_COLLAPSE */); break;
	  case 3: getppid (); break;
	  }
      t[k] = (now_us () - t0) / N;
    }
  printf ("uname_us=%.2f statfs_us=%.2f collapse_us=%.2f getppid_us=%.2f\n", t[0], t[1], t[2], t[3]);
  return 0;
}

/* Run as call-WHAT (a link to vmtime): make the stub's system calls WHAT
   (none, uname, statfs, collapse, or all three) once, in a fresh process,
   and exit 0: timed against call-none, what they cost a start.  */
static int
call_once (const char *what)
{
  struct utsname u;
  struct statfs sf;
  int all = strcmp (what, "all") == 0;
  if (all || strcmp (what, "uname") == 0)
    uname (&u);
  if (all || strcmp (what, "statfs") == 0)
    statfs ("/proc/self/exe", &sf);
  if (all || strcmp (what, "collapse") == 0)
    madvise ((void *) ((uintptr_t) call_once & ~(uintptr_t) 0x1fffff), 2 << 20, 25);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *base = strrchr (argv[0], '/');
  base = base != NULL ? base + 1 : argv[0];
  if (strncmp (base, "call-", 5) == 0)
    return call_once (base + 5);
  if (argc >= 6 && strcmp (argv[1], "pairs") == 0)
    {
      int n = atoi (argv[2]), batch = atoi (argv[3]);
      if (n < 1)
	n = 1;
      if (batch < 1)
	batch = 1;
      return pairs (n, batch, argv[4], argv[5], argv + 6, argc - 6);
    }
  if (argc >= 4 && strcmp (argv[1], "run") == 0)
    {
      int n = atoi (argv[2]), status = -1;
      for (int i = 0; i < n; i++)
	run_once (argv + 3, &status);
      printf ("status=%d\n", status);
      return 0;
    }
  if (argc >= 3 && strcmp (argv[1], "once") == 0)
    {
      int status = -1;
      double us = run_once (argv + 2, &status);
      printf ("us=%.0f status=%d\n", us, status);
      return 0;
    }
  if (argc == 3 && strcmp (argv[1], "hold") == 0)
    return hold (argv[2]);
  if (argc == 3 && strcmp (argv[1], "probe") == 0)
    return probe (argv[2]);
  if (argc == 3 && strcmp (argv[1], "calls") == 0)
    return calls (argv[2]);
#ifdef __x86_64__
  if (argc >= 4 && strcmp (argv[1], "break") == 0)
    return breakpoint ((uintptr_t) strtoull (argv[2], NULL, 0), argv + 3);
#endif
  fprintf (stderr, "usage: vmtime pairs N BATCH A B [ARG...] | run N PROG [ARG...] | once PROG"
	   " [ARG...] | hold FILE | probe FILE | calls FILE"
#ifdef __x86_64__
	   " | break OFFSET PROG [ARG...]"
#endif
	   "\n");
  return 2;
}
