/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of stub_main as a whole against the fake kernel: what it does
   in a process the user who started it may not influence (AT_SECURE, not
   dumpable, an auxiliary vector that cannot be read), what it costs where
   the kernel cannot help, the copy fallback refused by a security
   module (mprotect(PROT_EXEC) of anonymous memory: SELinux's execmem),
   and what it asks of the kernel under a seccomp filter.  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

HIDDEN void stub_main (uintptr_t self, const struct stub_params *p, const uint64_t *sp);

#define PMD ((uint64_t) 2 << 20)
#define SELF 0x40000000UL	/* the stub's address: the text's first chunk */
#define TEXT_CHUNKS 4

static struct stub_params params;
static char maps[256], smaps[256];
static uint64_t auxv[8];
static struct fake_file *auxv_file;

/* Answers beyond the model: madvise works (MADV_COLLAPSE as the row
   says), PAGEMAP_SCAN is missing (before 6.7), mincore shows every page
   cached, a touched chunk is never PMD-mapped (the pagemap file is zeros),
   anonymous memory made by the copy is huge, mprotect as the row says.  */
static long collapse_result;
static long mprotect_result;
static long mremap_result;	/* 0: mremap moves the copy */
static int text_huge;		/* the text is PMD-mapped once touched */

static int
kernel (const struct fake_call *c, long *ret)
{
  switch (c->n)
    {
    case SYS_madvise:
      *ret = c->c == MADV_COLLAPSE ? collapse_result : 0;
      return 1;
    case SYS_ioctl:
      {
	/* PAGEMAP_SCAN: the text is never PMD-mapped, anything else (the
	   copy's anonymous memory) always is.  */
	uint64_t *arg = (uint64_t *) c->c;
	uint64_t start = arg[2], end = arg[3], *regions = (uint64_t *) arg[5];
	arg[4] = end;
	if (start >= SELF && start < SELF + TEXT_CHUNKS * PMD && !text_huge)
	  *ret = 0;
	else
	  {
	    regions[0] = start;
	    regions[1] = end;
	    regions[2] = 1 << 6;	/* PAGE_IS_HUGE */
	    *ret = 1;
	  }
	return 1;
      }
    case SYS_mincore:
      memset ((void *) c->c, 1, (size_t) (c->b / 4096));
      *ret = 0;
      return 1;
    case SYS_fadvise64:
    case SYS_sync_file_range:
    case SYS_flock:
    case SYS_cachestat:
      *ret = 0;
      return 1;
    case SYS_mprotect:
      *ret = mprotect_result;
      return 1;
    case SYS_mremap:
      *ret = mremap_result != 0 ? mremap_result : c->e;
      return 1;
    case SYS_msync:
      /* A failed mremap unmapped the text (restore_text looks).  */
      *ret = -ENOMEM;
      return 1;
    }
  return 0;
}

/* A program of TEXT_CHUNKS whole chunks at SELF on RELEASE and FS_MAGIC,
   started by a user: dumpable, AT_SECURE 0.  */
static void
set_up (const char *release, uint64_t fs_magic, uint64_t flags)
{
  fake_reset ();
  fake.hook = kernel;
  fake.release = release;
  collapse_result = -EINVAL;
  mprotect_result = 0;
  mremap_result = 0;
  text_huge = 0;
  params = (struct stub_params) {
    .pmd = PMD, .flags = STUB_FLAG_EXE | flags, .nranges = 1, .populate_max = 64,
    .copy_max = (uint64_t) 1 << 30,
    .range = { { .start = 0, .length = TEXT_CHUNKS * PMD, .file_offset = 0 } },
  };
  snprintf (maps, sizeof maps, "%lx-%lx r-xp 00000000 08:01 42 /usr/bin/prog\n", SELF,
	    SELF + TEXT_CHUNKS * PMD);
  fake_file ("/proc/self/maps", maps, 0);
  snprintf (smaps, sizeof smaps, "%lx-%lx r-xp 00000000 08:01 42 /usr/bin/prog\n"
	    "VmFlags: rd ex mr mw me\n", SELF, SELF + TEXT_CHUNKS * PMD);
  fake_file ("/proc/self/smaps", smaps, 0);
  struct fake_file *exe = fake_file ("/proc/self/exe", NULL, TEXT_CHUNKS * PMD);
  exe->fs_magic = fs_magic;
  exe->dev = 0x801;
  exe->ino = 42;
  fake_file ("/proc/self/pagemap", NULL, (size_t) 1 << 40);
  fake_file ("/proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n", 0);
  fake_file ("/proc/self/environ", "HOME=/\0ELFPMD_PERF_MAP=1\0", 25);
  fake_file ("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n", 0);
  uint64_t v[] = { AT_ENTRY, SELF, AT_SECURE, 0, AT_NULL, 0 };
  memcpy (auxv, v, sizeof v);
  auxv_file = fake_file ("/proc/self/auxv", auxv, sizeof v);
}

/* Whether any madvise call asked for ADVICE.  */
static int
advised (long advice)
{
  for (int i = 0; i < fake.ncalls; i++)
    if (fake.calls[i].n == SYS_madvise && fake.calls[i].c == advice)
      return 1;
  return 0;
}

/* The three ways a process is one its starter may not influence.  */
enum way
{ USER, AT_SECURE_SET, NOT_DUMPABLE, NO_AUXV };

static const char *const way_names[] = { "a user's own", "AT_SECURE", "not dumpable",
  "no auxv" };

static void
make (enum way way)
{
  if (way == AT_SECURE_SET)
    auxv[3] = 1;
  else if (way == NOT_DUMPABLE)
    fake.dumpable = 0;
  else if (way == NO_AUXV)
    auxv_file->open_errno = EACCES;
}

/* Populate and repair (Linux 6.18, ext4), with every chunk cached in
   small folios: a user's process drops and repairs them; a secure one only
   advises and touches.  */
START_TEST (test_secure_repair)
{
  enum way way = (enum way) _i;
  set_up ("6.18.0-1-amd64", EXT4_SUPER_MAGIC, 0);
  make (way);
  stub_main (SELF, &params, NULL);
  int dropped = advised (MADV_DONTNEED);
  long evicted = fake_calls (SYS_fadvise64), locked = fake_calls (SYS_flock);
  long synced = fake_calls (SYS_sync_file_range), slept = fake_calls (SYS_clock_nanosleep);
  ck_assert_msg (advised (MADV_HUGEPAGE) && fake.ntouched >= TEXT_CHUNKS,
		 "%s: the text was not advised and touched", way_names[way]);
  if (way == USER)
    ck_assert_msg (dropped && evicted > 0 && locked > 0 && synced > 0,
		   "a user's own process: dropped %d, evicted %ld, locked %ld, synced %ld",
		   dropped, evicted, locked, synced);
  else
    ck_assert_msg (!dropped && evicted == 0 && locked == 0 && synced == 0 && slept == 0,
		   "%s: dropped %d, evicted %ld, locked %ld, synced %ld, slept %ld",
		   way_names[way], dropped, evicted, locked, synced, slept);
  ck_assert_msg (!fake_opened ("/proc/self/environ", 0), "%s: read the environment",
		 way_names[way]);
  ck_assert_msg (!fake_created (), "%s: created a file", way_names[way]);
  ck_assert_int_eq (fake.anon_bytes, 0);
  ck_assert_int_eq (fake_open_fds (), 0);
}
END_TEST

/* Every chunk cached as one PMD folio (an earlier start read it so): each
   is touched, seen PMD-mapped and let go again (MADV_DONTNEED of exactly
   that chunk), so that the program's resident set counts only the chunks
   it runs; nothing is evicted, locked or read back; in a secure process
   too, where letting go of its own mapping is all the stub drops.  */
START_TEST (test_let_go)
{
  enum way way = (enum way) _i;
  set_up ("6.18.0-1-amd64", EXT4_SUPER_MAGIC, 0);
  make (way);
  text_huge = 1;
  stub_main (SELF, &params, NULL);
  int let_go = 0;
  for (int i = 0; i < fake.ncalls; i++)
    if (fake.calls[i].n == SYS_madvise && fake.calls[i].c == MADV_DONTNEED)
      {
	ck_assert_uint_eq ((uint64_t) fake.calls[i].b, PMD);
	ck_assert_uint_eq (((uint64_t) fake.calls[i].a - SELF) % PMD, 0);
	let_go++;
      }
  ck_assert_int_eq (fake.ntouched, TEXT_CHUNKS);
  ck_assert_msg (let_go == TEXT_CHUNKS, "%s: %d chunks let go of %d touched",
		 way_names[way], let_go, TEXT_CHUNKS);
  ck_assert_int_eq (fake_calls (SYS_fadvise64), 0);
  ck_assert_int_eq (fake_calls (SYS_flock), 0);
}
END_TEST

/* The copy fallback (--madvise=copy) where the kernel cannot give the
   file PMD folios (Linux 6.1, ext4, no CONFIG_READ_ONLY_THP_FOR_FS): with
   ELFPMD_PERF_MAP=1 a user's process reads the environment; a secure one
   never does, and creates nothing.  */
START_TEST (test_secure_copy)
{
  enum way way = (enum way) _i;
  set_up ("6.1.0-18-amd64", EXT4_SUPER_MAGIC, STUB_FLAG_COPY);
  make (way);
  stub_main (SELF, &params, NULL);
  int environ_read = fake_opened ("/proc/self/environ", 0);
  ck_assert_msg (fake_calls (SYS_mremap) == 1, "%s: %ld copies moved over the text",
		 way_names[way], fake_calls (SYS_mremap));
  if (way == USER)
    ck_assert_msg (environ_read, "a user's own process did not read ELFPMD_PERF_MAP");
  else
    ck_assert_msg (!environ_read, "%s: read the environment", way_names[way]);
  ck_assert_msg (way == USER || !fake_created (), "%s: created a file", way_names[way]);
  /* What stays mapped is the copy, moved over the text (the fake's mremap
     moves nothing); the scratch buffers are gone.  */
  ck_assert_int_eq (fake.anon_bytes, (long) (TEXT_CHUNKS * PMD));
}
END_TEST

/* Where the kernel cannot help (ext4 before 6.16, MADV_COLLAPSE refused),
   a program's stub makes three system calls: uname, statfs, madvise.  */
START_TEST (test_cheap_program)
{
  set_up ("6.12.57+deb13-amd64", EXT4_SUPER_MAGIC, 0);
  stub_main (SELF, &params, NULL);
  ck_assert_msg (fake.ncalls == 3 && fake_calls (SYS_uname) == 1 && fake_calls (SYS_statfs) == 1
		 && fake_calls (SYS_madvise) == 1, "%d system calls", fake.ncalls);
  /* Before 5.18: uname and one madvise.  */
  set_up ("5.10.0-33-amd64", EXT4_SUPER_MAGIC, 0);
  stub_main (SELF, &params, NULL);
  ck_assert_msg (fake.ncalls == 2 && advised (MADV_HUGEPAGE), "%d system calls", fake.ncalls);
}
END_TEST

/* A security module refusing executable anonymous memory (SELinux's
   execmem): mprotect(PROT_EXEC) fails, once; the copy is unmapped, the text
   stays the file's (no mremap), and nothing more is tried.  */
START_TEST (test_copy_refused)
{
  set_up ("6.1.0-18-amd64", EXT4_SUPER_MAGIC, STUB_FLAG_COPY);
  mprotect_result = -EACCES;
  stub_main (SELF, &params, NULL);
  ck_assert_int_eq (fake_calls (SYS_mprotect), 1);
  ck_assert_int_eq (fake_calls (SYS_mremap), 0);
  ck_assert_int_eq (fake.anon_bytes, 0);
}
END_TEST

/* How many times prctl was asked PR_OPTION.  */
static long
prctl_calls (long option)
{
  long n = 0;
  for (int i = 0; i < fake.ncalls; i++)
    n += fake.calls[i].n == SYS_prctl && fake.calls[i].a == option;
  return n;
}

/* A seccomp filter (PR_GET_SECCOMP 2, or a filter refusing that prctl
   with EPERM; systemd's SystemCallFilter=@system-service kills the process
   on mincore and cachestat): the stub asks once, and looks at the page
   cache with neither, whether the text is cached as PMD folios (touched
   and let go), or in small folios (dropped, one chunk evicted and read
   back, which shows nothing more can be told: no more repairs).  Without
   a filter (and with a kernel without seccomp, EINVAL) it does look.  */
static const long seccomp_modes[] = { 0, -EINVAL, 2, -EPERM };

START_TEST (test_seccomp)
{
  long mode = seccomp_modes[_i];
  int filter = mode != 0 && mode != -EINVAL;
  for (int huge = 0; huge <= 1; huge++)
    {
      set_up ("6.18.0-1-amd64", EXT4_SUPER_MAGIC, 0);
      fake.seccomp = mode;
      text_huge = huge;
      stub_main (SELF, &params, NULL);
      long looks = fake_calls (SYS_mincore) + fake_calls (SYS_cachestat);
      ck_assert_msg (filter ? looks == 0 : looks > 0,
		     "PR_GET_SECCOMP %ld, text %s: %ld mincore, %ld cachestat", mode,
		     huge ? "huge" : "small", fake_calls (SYS_mincore), fake_calls (SYS_cachestat));
      ck_assert_int_eq (prctl_calls (PR_GET_SECCOMP), 1);
      ck_assert_msg (advised (MADV_HUGEPAGE) && fake.ntouched >= TEXT_CHUNKS,
		     "PR_GET_SECCOMP %ld: the text was not advised and touched", mode);
      if (huge)
	ck_assert_int_eq (fake_calls (SYS_fadvise64), 0);
      else if (filter)
	ck_assert_msg (fake_calls (SYS_fadvise64) == 1 && fake_calls (SYS_flock) > 0,
		       "PR_GET_SECCOMP %ld: %ld chunks evicted, %ld flock", mode,
		       fake_calls (SYS_fadvise64), fake_calls (SYS_flock));
      ck_assert_int_eq (fake.anon_bytes, 0);
      ck_assert_int_eq (fake_open_fds (), 0);
    }
  /* The copy fallback whose mremap fails after unmapping the text: the
     text is mapped back (restore_text finds the hole with msync, not
     mincore), filter or not; the copy path never asks about seccomp.  */
  set_up ("6.1.0-18-amd64", EXT4_SUPER_MAGIC, STUB_FLAG_COPY);
  fake.seccomp = mode;
  mremap_result = -ENOMEM;
  stub_main (SELF, &params, NULL);
  ck_assert_int_eq (fake_calls (SYS_mremap), 1);
  ck_assert_int_eq (fake_calls (SYS_mincore), 0);
  ck_assert_int_eq (fake_calls (SYS_msync), 1);
  int restored = 0;
  for (int i = 0; i < fake.ncalls; i++)
    restored += fake.calls[i].n == SYS_mmap && fake.calls[i].a == (long) SELF
		&& (fake.calls[i].d & MAP_FIXED) && fake.calls[i].b == (long) (TEXT_CHUNKS * PMD);
  ck_assert_int_eq (restored, 1);
  ck_assert_int_eq (fake.anon_bytes, 0);
}
END_TEST

static Suite *
main_suite (void)
{
  Suite *s = suite_create ("stub_main");
  TCase *tc = tcase_create ("boundaries");
  tcase_add_loop_test (tc, test_secure_repair, USER, NO_AUXV + 1);
  tcase_add_loop_test (tc, test_let_go, USER, NO_AUXV + 1);
  tcase_add_loop_test (tc, test_secure_copy, USER, NO_AUXV + 1);
  tcase_add_test (tc, test_cheap_program);
  tcase_add_test (tc, test_copy_refused);
  tcase_add_loop_test (tc, test_seccomp, 0, (int) (sizeof seccomp_modes / sizeof seccomp_modes[0]));
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (main_suite ());
}
