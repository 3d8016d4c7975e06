/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the stub's decision (stub/policy.c) for every kernel, file
   system and THP setting of the table in elfpmd-stub(7), BY KERNEL AND FILE
   SYSTEM (man/elfpmd-stub.7), against the fake kernel: the expected mode is
   written out here from that table, not computed by the stub's code.  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

#define NFS_SUPER_MAGIC 0x6969

static const struct stub_params program = { .pmd = 2 << 20, .flags = STUB_FLAG_EXE };

/* A stub for PARAMS at a made-up address.  */
static struct stub
stub_for (const struct stub_params *params)
{
  struct stub st = {
    .p = params, .self = 0x400000, .pmd = params->pmd, .page = 4096, .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1, .guard = -2, .secure = -1,
  };
  return st;
}

struct row
{
  const char *release;		/* uname's */
  uint64_t fs;			/* statfs of /proc/self/exe; 0: it fails */
  enum mode expected;		/* with THP enabled ("madvise") */
  int no_file_folios;		/* the kernel cannot give the file PMD folios */
};

/* The rows of elfpmd-stub(7)'s table, each kernel on each side of the
   versions the table names.  */
static const struct row rows[] = {
  { "4.19.0-27-amd64", EXT4_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.10.0-33-amd64", EXT4_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.10.0-33-amd64", XFS_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.17.15", BTRFS_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.17.15", NFS_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.18.0", EXT4_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.18.0", XFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "5.18.0", BTRFS_SUPER_MAGIC, MODE_HINT, 1 },
  { "5.18.0", NFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.0.19", EXT4_SUPER_MAGIC, MODE_HINT, 1 },
  { "6.1.0-18-amd64", EXT4_SUPER_MAGIC, MODE_COLLAPSE, 0 },
  { "6.1.0-18-amd64", XFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.1.0-18-amd64", BTRFS_SUPER_MAGIC, MODE_COLLAPSE, 0 },
  { "6.1.0-18-amd64", TMPFS_MAGIC, MODE_HINT, 0 },
  { "6.1.0-18-amd64", 0, MODE_REPAIR, 0 },
  { "6.12.57+deb13-amd64", EXT4_SUPER_MAGIC, MODE_COLLAPSE, 0 },
  { "6.12.57+deb13-amd64", XFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.15.11", EXT4_SUPER_MAGIC, MODE_COLLAPSE, 0 },
  { "6.16.0", EXT4_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.16.0", BTRFS_SUPER_MAGIC, MODE_COLLAPSE, 0 },
  { "6.17.1", BTRFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.18.0-1-amd64", EXT4_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6.18.0-1-amd64", TMPFS_MAGIC, MODE_HINT, 0 },
  { "7.2.0", EXT4_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "10.0.0", XFS_SUPER_MAGIC, MODE_REPAIR, 0 },
  /* A release the stub cannot read: the file system decides.  */
  { "unknown", EXT4_SUPER_MAGIC, MODE_REPAIR, 0 },
  { "6", XFS_SUPER_MAGIC, MODE_REPAIR, 0 },
};

static void
set_up (const struct row *r, long thp_disable, const char *enabled)
{
  fake_reset ();
  fake.release = r->release;
  fake.thp_disable = thp_disable;
  fake_file ("/proc/self/exe", "\177ELF", 0)->fs_magic = r->fs;
  fake_file ("/sys/kernel/mm/transparent_hugepage/enabled", enabled, 0);
}

/* THP enabled: the row's mode.  */
START_TEST (test_mode)
{
  const struct row *r = &rows[_i];
  set_up (r, 0, "always [madvise] never\n");
  struct stub st = stub_for (&program);
  enum mode got = choose_mode (&st);
  ck_assert_msg (got == r->expected, "%s, f_type %#llx: mode %d, expected %d", r->release,
		 (unsigned long long) r->fs, got, r->expected);
  ck_assert_msg (st.no_file_folios == r->no_file_folios,
		 "%s, f_type %#llx: no_file_folios %d, expected %d", r->release,
		 (unsigned long long) r->fs, st.no_file_folios, r->no_file_folios);
}
END_TEST

/* PR_SET_THP_DISABLE or "never": nothing where the stub would populate;
   the cheap decisions are made before THP's settings are read.  */
START_TEST (test_thp_off)
{
  const struct row *r = &rows[_i];
  for (int way = 0; way < 2; way++)
    {
      set_up (r, way == 0, way == 0 ? "always [madvise] never\n" : "always madvise [never]\n");
      struct stub st = stub_for (&program);
      enum mode got = choose_mode (&st);
      enum mode expected = r->expected == MODE_REPAIR ? MODE_NOTHING : r->expected;
      ck_assert_msg (got == expected, "%s, f_type %#llx, %s: mode %d, expected %d", r->release,
		     (unsigned long long) r->fs, way == 0 ? "PR_SET_THP_DISABLE" : "never", got,
		     expected);
    }
}
END_TEST

/* Where the kernel cannot help, the decision costs at most two system
   calls (uname, statfs): with stub_main's MADV_COLLAPSE, three.  */
START_TEST (test_cheap)
{
  const struct row *r = &rows[_i];
  if (r->expected == MODE_REPAIR)
    return;
  set_up (r, 0, "always [madvise] never\n");
  struct stub st = stub_for (&program);
  choose_mode (&st);
  ck_assert_msg (fake.ncalls <= 2, "%s, f_type %#llx: %d system calls to decide", r->release,
		 (unsigned long long) r->fs, fake.ncalls);
}
END_TEST

/* A shared object mapped as MAPS shows it (on a kernel RELEASE), its file
   at PATH on the file system MAGIC, with device DEV and inode INO.  */
static struct fake_file *
library_mapped (const char *release, const char *maps, const char *path, uint64_t magic,
		uint64_t dev, uint64_t ino)
{
  fake_reset ();
  fake.release = release;
  fake_file ("/proc/self/maps", maps, 0);
  struct fake_file *f = fake_file (path, "\177ELF", 0);
  f->fs_magic = magic;
  f->dev = dev;
  f->ino = ino;
  return f;
}

/* A shared object's file system is that of the file /proc/self/maps
   shows, asked of the descriptor matched to the mapping by device and
   inode (fstatfs), never of the path (statfs): the path is escaped, and
   may name another user's file.  */
START_TEST (test_library_fs)
{
  static const struct stub_params library = { .pmd = 2 << 20 };
  library_mapped ("6.12.57+deb13-amd64",
		  "00400000-00600000 r-xp 00000000 fd:01 1234 /usr/lib/libbig.so.1\n",
		  "/usr/lib/libbig.so.1", EXT4_SUPER_MAGIC, 0xfd01, 1234);
  struct stub st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_COLLAPSE);
  ck_assert_int_eq (fake_opened ("/proc/self/exe", 0), 0);
  ck_assert_int_eq (fake_calls (SYS_statfs), 0);
  ck_assert_int_eq (fake_calls (SYS_fstatfs), 1);
  fake.files[1].fs_magic = XFS_SUPER_MAGIC;
  st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_REPAIR);
  ck_assert_int_eq (fake_calls (SYS_statfs), 0);
}
END_TEST

/* A path in /proc/self/maps that names another file than the mapping's: a
   newline in the name reads \012 there, a name another user can make (on
   tmpfs, say, which would choose the cheapest mode).  The file does not
   match the mapping's device and inode: the file system is unknown, and
   nothing the other user made decides the mode.  */
START_TEST (test_library_decoy)
{
  static const struct stub_params library = { .pmd = 2 << 20 };
  struct fake_file *decoy
    = library_mapped ("6.12.57+deb13-amd64",
		      "00400000-00600000 r-xp 00000000 fd:01 1234 /opt/app/lib\\012big.so\n",
		      "/opt/app/lib\\012big.so", TMPFS_MAGIC, 0x1a, 99);
  struct stub st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_REPAIR);
  ck_assert_int_eq (st.fs, 0);
  ck_assert_int_eq (fake_calls (SYS_statfs), 0);
  ck_assert_int_eq (fake_open_fds (), 0);
  /* Sanity: the same file, matched, is tmpfs, and chooses the hint.  */
  decoy->dev = 0xfd01;
  decoy->ino = 1234;
  st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_HINT);
  /* A decoy on an overlay: the mapping's own device decides (here, a
     device no mount shows: unknown), never the decoy's.  */
  fake_file ("/proc/self/mountinfo", "22 1 8:1 / /host rw - xfs /dev/sda1 rw\n", 0);
  decoy->fs_magic = OVERLAYFS_SUPER_MAGIC;
  decoy->dev = 0x27;
  st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_REPAIR);
  ck_assert_int_eq (st.fs, 0);
  ck_assert_int_eq (st.no_repair, 1);
}
END_TEST

/* A shared object in a container on 6.1: /proc/self/maps shows the layer's
   device, stat the overlay's, so no descriptor matches; the path's file is
   on the overlay, and the layer's file system (mountinfo, by the maps
   device) decides, with nothing ever repaired.  */
START_TEST (test_library_overlay)
{
  static const struct stub_params library = { .pmd = 2 << 20 };
  library_mapped ("6.1.0-18-amd64",
		  "00400000-00600000 r-xp 00000000 08:01 1234 /usr/lib/libbig.so.1\n",
		  "/usr/lib/libbig.so.1", OVERLAYFS_SUPER_MAGIC, 0x27, 1234);
  fake_file ("/proc/self/mountinfo", "22 1 8:1 / /host rw - xfs /dev/sda1 rw\n", 0);
  struct stub st = stub_for (&library);
  ck_assert_int_eq (choose_mode (&st), MODE_REPAIR);
  ck_assert_int_eq (st.fs, XFS_SUPER_MAGIC);
  ck_assert_int_eq (st.no_repair, 1);
  ck_assert_int_eq (fake_calls (SYS_statfs), 0);
}
END_TEST

/* A program's file system is that of the name it was executed as
   (AT_EXECFN on its initial stack): no look at /proc, which costs a fresh
   process more than all the stub's other calls together; /proc/self/exe
   where that name cannot be had (no auxiliary vector at hand, AT_SECURE,
   statfs fails).  */
START_TEST (test_execfn)
{
  fake_reset ();
  fake.release = "6.1.0-18-amd64";
  fake_file ("/proc/self/exe", "\177ELF", 0)->fs_magic = XFS_SUPER_MAGIC;
  struct fake_file *named = fake_file ("/opt/app/bin/prog", "\177ELF", 0);
  named->fs_magic = EXT4_SUPER_MAGIC;
  static char name[] = "/opt/app/bin/prog", other[] = "/gone";
  uint64_t stack[] = { 1, (uint64_t) (uintptr_t) name, 0, 0x2000, 0,
		       AT_ENTRY, 0x401000, AT_EXECFN, (uint64_t) (uintptr_t) name, AT_SECURE, 0,
		       AT_NULL, 0 };
  struct stub st = stub_for (&program);
  st.execfn = initial_execfn (stack);
  ck_assert_ptr_eq (st.execfn, name);
  ck_assert_int_eq (choose_mode (&st), MODE_COLLAPSE);
  for (int i = 0; i < fake.ncalls; i++)
    ck_assert_msg (fake.calls[i].n != SYS_statfs
		   || strcmp ((const char *) fake.calls[i].a, "/proc/self/exe") != 0,
		   "statfs of /proc/self/exe although AT_EXECFN was at hand");
  ck_assert_int_eq (fake_calls (SYS_statfs), 1);
  /* AT_SECURE: the name is the invoking user's, not asked.  */
  stack[10] = 1;
  ck_assert_ptr_null (initial_execfn (stack));
  /* A name that cannot be looked at any more: /proc/self/exe.  */
  stack[10] = 0;
  stack[8] = (uint64_t) (uintptr_t) other;
  fake_reset ();
  fake.release = "6.1.0-18-amd64";
  fake_file ("/proc/self/exe", "\177ELF", 0)->fs_magic = XFS_SUPER_MAGIC;
  st = stub_for (&program);
  st.execfn = initial_execfn (stack);
  ck_assert_int_eq (choose_mode (&st), MODE_REPAIR);
  /* No vector (a null stack pointer), or none with the name.  */
  ck_assert_ptr_null (initial_execfn (NULL));
  stack[7] = 25;		/* AT_RANDOM */
  ck_assert_ptr_null (initial_execfn (stack));
  stack[0] = (uint64_t) 1 << 40;	/* no argc a kernel would pass */
  ck_assert_ptr_null (initial_execfn (stack));
}
END_TEST

/* overlayfs (a container's root): the layer's file system decides, where
   mountinfo names the device /proc/self/maps shows; nothing is ever
   dropped or repaired through the overlay.  */
START_TEST (test_overlay)
{
  static const struct
  {
    const char *release, *maps_dev, *mountinfo;
    enum mode expected;
  } cases[] = {
    { "6.12.57+deb13-amd64", "08:01", "22 1 8:1 / /host rw - ext4 /dev/sda1 rw\n", MODE_COLLAPSE },
    { "6.1.0-18-amd64", "08:01", "22 1 8:1 / /host rw - xfs /dev/sda1 rw\n", MODE_REPAIR },
    { "6.18.0-1-amd64", "08:01", "22 1 8:1 / /host rw - ext4 /dev/sda1 rw\n", MODE_REPAIR },
    /* The overlay's own device (kernels that show it in maps), or a device
       no mount of this namespace has: the layer cannot be told.  */
    { "6.12.57+deb13-amd64", "00:27", "26 1 0:39 / / rw - overlay overlay rw\n", MODE_REPAIR },
    { "6.12.57+deb13-amd64", "08:01", "26 1 0:39 / / rw - overlay overlay rw\n", MODE_REPAIR },
    { "6.12.57+deb13-amd64", "00:27", "26 1 0:27 / / rw - overlay overlay rw\n", MODE_REPAIR },
    { "5.10.0-33-amd64", "08:01", "22 1 8:1 / /host rw - xfs /dev/sda1 rw\n", MODE_HINT },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      static char maps[128];
      fake_reset ();
      fake.release = cases[k].release;
      snprintf (maps, sizeof maps, "00400000-00800000 r-xp 00000000 %s 1234 /usr/bin/prog\n",
		cases[k].maps_dev);
      fake_file ("/proc/self/exe", "\177ELF", 0)->fs_magic = OVERLAYFS_SUPER_MAGIC;
      fake_file ("/proc/self/maps", maps, 0);
      fake_file ("/proc/self/mountinfo", cases[k].mountinfo, 0);
      struct stub st = stub_for (&program);
      enum mode got = choose_mode (&st);
      ck_assert_msg (got == cases[k].expected, "%s, maps %s, %s: mode %d, expected %d",
		     cases[k].release, cases[k].maps_dev, cases[k].mountinfo, got,
		     cases[k].expected);
      ck_assert_int_eq (st.no_repair, cases[k].expected != MODE_HINT);
      ck_assert_int_eq (st.cachestat, cases[k].expected != MODE_HINT ? 0 : -1);
      ck_assert_int_eq (fake_open_fds (), 0);
    }
}
END_TEST

static Suite *
policy_suite (void)
{
  Suite *s = suite_create ("stub policy");
  TCase *tc = tcase_create ("modes");
  int n = (int) (sizeof rows / sizeof rows[0]);
  tcase_add_loop_test (tc, test_mode, 0, n);
  tcase_add_loop_test (tc, test_thp_off, 0, n);
  tcase_add_loop_test (tc, test_cheap, 0, n);
  tcase_add_test (tc, test_library_fs);
  tcase_add_test (tc, test_library_decoy);
  tcase_add_test (tc, test_library_overlay);
  tcase_add_test (tc, test_execfn);
  tcase_add_test (tc, test_overlay);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (policy_suite ());
}
