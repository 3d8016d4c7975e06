/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the stub's readers of /proc and /sys (stub/proc.c,
   stub/facts.c): long lines, odd paths, reads cut short at any length,
   against the fake kernel.  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

static const struct stub_params library = { .pmd = 2 << 20 };

static struct stub
stub_at (uintptr_t self)
{
  struct stub st = {
    .p = &library, .self = self, .pmd = 2 << 20, .page = 4096, .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1, .guard = -2, .secure = -1,
  };
  return st;
}

/* find_mapping, and the path it found ("" when none).  */
static int
find (struct stub *st, const char **path)
{
  int got = find_mapping (st, st->self);
  *path = st->scratch != NULL ? st->scratch->line : "";
  return got;
}

/* How much one read returns, for the "cut short" variants of a test.  */
static const long read_sizes[] = { 0, 1, 2, 7, 63, 1023, 1024, 1025 };
#define NREAD (int) (sizeof read_sizes / sizeof read_sizes[0])

static const char maps[] =
  "00400000-00401000 r--p 00000000 08:01 131 /usr/bin/prog\n"
  "7f0000000000-7f0000200000 r-xp 00200000 fd:02 4711 /opt/a dir/with spaces/lib.so (deleted)\n"
  "7f0000200000-7f0000400000 r--p 00400000 103:0a 99 /opt/lib.so\n"
  "7f0000400000-7f0000600000 rw-p 00000000 00:00 0 \n"
  "7f0000600000-7f0000800000 r-xp 00000000 00:00 0 [anon:elfpmd copy of /x]\n"
  "garbage without a dash\n"
  "\n";

START_TEST (test_maps)
{
  fake_reset ();
  fake_file ("/proc/self/maps", maps, 0)->max_read = read_sizes[_i];
  const char *path;
  struct stub st = stub_at (0x7f0000000123);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_str_eq (path, "/opt/a dir/with spaces/lib.so (deleted)");
  ck_assert_uint_eq (st.map.dev_major, 0xfd);
  ck_assert_uint_eq (st.map.dev_minor, 2);
  ck_assert_uint_eq (st.map.ino, 4711);
  /* Hexadecimal devices past 255 (NVMe's 259, written 103).  */
  st = stub_at (0x7f00003fffff);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_str_eq (path, "/opt/lib.so");
  ck_assert_uint_eq (st.map.dev_major, 0x103);
  ck_assert_uint_eq (st.map.dev_minor, 0xa);
  /* No file (inode 0): not found; an address in no mapping: not found.  */
  st = stub_at (0x7f0000400000);
  ck_assert_int_eq (find (&st, &path), -1);
  st = stub_at (0x7f0000700000);
  ck_assert_int_eq (find (&st, &path), -1);
  st = stub_at (0x1000);
  ck_assert_int_eq (find (&st, &path), -1);
  ck_assert_str_eq (path, "");
  /* Every descriptor the stub opened is closed.  */
  ck_assert_int_eq (fake_open_fds (), 0);
}
END_TEST

/* A path too long for the line buffer is not opened in part: the mapping
   is found, with no path.  */
START_TEST (test_maps_long_line)
{
  static char text[3 * MAPS_LINE];
  int at = snprintf (text, sizeof text, "00400000-00600000 r-xp 00000000 08:01 77 /");
  memset (text + at, 'a', MAPS_LINE + 10);
  at += MAPS_LINE + 10;
  at += snprintf (text + at, sizeof text - (size_t) at,
		  "\n00600000-00800000 r-xp 00000000 08:01 78 /short\n");
  fake_reset ();
  fake_file ("/proc/self/maps", text, (size_t) at)->max_read = read_sizes[_i];
  const char *path;
  struct stub st = stub_at (0x500000);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_uint_eq (st.map.ino, 77);
  ck_assert_str_eq (path, "");
  st = stub_at (0x600000);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_str_eq (path, "/short");
  /* A line of exactly MAPS_LINE - 1 bytes keeps its path.  */
  at = snprintf (text, sizeof text, "00400000-00600000 r-xp 00000000 08:01 77 /");
  memset (text + at, 'b', (size_t) (MAPS_LINE - 1 - at));
  text[MAPS_LINE - 1] = '\n';
  fake_reset ();
  fake_file ("/proc/self/maps", text, MAPS_LINE)->max_read = read_sizes[_i];
  st = stub_at (0x400000);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_uint_eq (strlen (path), MAPS_LINE - 1 - 41);
}
END_TEST

/* /proc/self/maps that cannot be opened, or ends in the middle of a line.  */
START_TEST (test_maps_broken)
{
  const char *path;
  fake_reset ();
  struct stub st = stub_at (0x400000);
  ck_assert_int_eq (find (&st, &path), -1);
  fake_file ("/proc/self/maps", "00400000-00600000 r-xp 00000000 08:01 77 /cut", 0);
  ck_assert_int_eq (find (&st, &path), 0);
  ck_assert_str_eq (path, "/cut");
  fake_reset ();
  fake_file ("/proc/self/maps", "00400000-00600000 r-xp 00000000 08", 0);
  st = stub_at (0x400000);
  ck_assert_int_eq (find (&st, &path), -1);
  fake_reset ();
  fake_file ("/proc/self/maps", "00400000-00600000", 0);
  ck_assert_int_eq (find (&st, &path), -1);
}
END_TEST

static const char smaps[] =
  "00400000-00600000 r-xp 00000000 08:01 77 /prog\n"
  "Size:               2048 kB\n"
  "AnonHugePages:         0 kB\n"
  "VmFlags: rd ex mr mw me hg bt\n"
  "00600000-00800000 rw-p 00000000 00:00 0 \n"
  "Size:               2048 kB\n"
  "AnonHugePages:      2048 kB\n"
  "VmFlags: rd wr mr mw me ac\n";

START_TEST (test_smaps)
{
  fake_reset ();
  fake_file ("/proc/self/smaps", smaps, 0)->max_read = read_sizes[_i];
  char value[256];
  struct stub st = stub_at (0x400000);
  ck_assert_int_eq (smaps_value (&st, 0x600100, "AnonHugePages:", value, sizeof value), 0);
  ck_assert_str_eq (value, "      2048 kB");
  ck_assert_int_eq (smaps_value (&st, 0x400000, "AnonHugePages:", value, sizeof value), 0);
  ck_assert_str_eq (value, "         0 kB");
  ck_assert_int_eq (smaps_value (&st, 0x800000, "AnonHugePages:", value, sizeof value), -1);
  ck_assert_int_eq (smaps_value (&st, 0x400000, "Missing:", value, sizeof value), -1);
  /* The BTI guard: " bt" as a whole word, only in its own mapping.  */
  ck_assert_int_eq (text_prot (&st, 0x400000), PROT_READ | PROT_EXEC | STUB_PROT_BTI);
  st = stub_at (0x600000);
  ck_assert_int_eq (text_prot (&st, 0x600000), PROT_READ | PROT_EXEC);
}
END_TEST

/* A value cut by the line buffer; "bt" inside another word is no guard.  */
START_TEST (test_smaps_cut)
{
  static const char text[] = "00400000-00600000 r-xp 00000000 08:01 77 /prog\n"
    "VmFlags: rd ex btx xbt bt_ mr mw me\n"
    "00600000-00800000 r-xp 00200000 08:01 77 /prog\n"
    "VmFlags: rd ex btx xbt bt_ mr mw me bt\n";
  fake_reset ();
  fake_file ("/proc/self/smaps", text, 0)->max_read = read_sizes[_i];
  char value[32];
  struct stub st = stub_at (0x400000);
  ck_assert_int_eq (smaps_value (&st, 0x400000, "VmFlags:", value, sizeof value), 0);
  ck_assert_str_eq (value, " rd ex btx xbt bt_ mr m");
  ck_assert_int_eq (text_prot (&st, 0x400000), PROT_READ | PROT_EXEC);
  st = stub_at (0x600000);
  ck_assert_int_eq (text_prot (&st, 0x600000), PROT_READ | PROT_EXEC | STUB_PROT_BTI);
  /* No smaps: the protection cannot be told.  */
  fake_reset ();
  st = stub_at (0x400000);
  ck_assert_int_eq (text_prot (&st, 0x400000), -1);
}
END_TEST

static const char mountinfo[] =
  "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
  "23 22 8:2 / /data rw,relatime - ext4 /dev/sda2 rw,data=journal\n"
  "24 22 8:3 / /opt rw,relatime - ext4 /dev/sda3 rw,data=journal_checksum\n"
  "25 22 8:4 / /srv/data=journal rw - ext4 /dev/data=journal rw,data=ordered\n"
  "26 22 8:5 / /x rw - ext4 /dev/sda5 data=journal\n"
  "27 22 259:1 / /y rw - xfs /dev/nvme0n1p1 rw\n"
  "28 22 0:39 / /merged rw - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
  "29 22 0:40 / /n rw - nfs4 server:/ rw\n"
  "30 22 0:41 / /t rw - tmpfs tmpfs rw\n"
  "31 22 8:16 / /b rw - btrfs /dev/sdb rw\n"
  "32 22 8:17 / /e rw - ext4x /dev/sdb1 rw\n"
  "33 22 8:18 / /cut rw - ext4\n"
  "34 22 8:19 / /nosep rw ext4 /dev/sdb3 rw\n";

START_TEST (test_mountinfo)
{
  static const struct
  {
    uint64_t major, minor;
    uint64_t fs;
    int journal;
  } cases[] = {
    { 8, 1, EXT4_SUPER_MAGIC, 0 }, { 8, 2, EXT4_SUPER_MAGIC, 1 }, { 8, 3, EXT4_SUPER_MAGIC, 0 },
    { 8, 4, EXT4_SUPER_MAGIC, 0 }, { 8, 5, EXT4_SUPER_MAGIC, 1 }, { 8, 6, 0, 0 },
    { 259, 1, XFS_SUPER_MAGIC, 0 }, { 0, 39, OVERLAYFS_SUPER_MAGIC, 0 },
    { 0, 40, OTHER_FS_MAGIC, 0 }, { 0, 41, TMPFS_MAGIC, 0 }, { 8, 16, BTRFS_SUPER_MAGIC, 0 },
    { 8, 17, OTHER_FS_MAGIC, 0 }, { 8, 18, EXT4_SUPER_MAGIC, 0 }, { 8, 19, 0, 0 }, { 80, 1, 0, 0 },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      fake_reset ();
      fake_file ("/proc/self/mountinfo", mountinfo, 0)->max_read = read_sizes[_i];
      struct stub st = stub_at (0x400000);
      int journal = -1;
      uint64_t fs = mount_of (&st, cases[k].major, cases[k].minor, &journal);
      ck_assert_msg (fs == cases[k].fs && journal == cases[k].journal,
		     "%llu:%llu: type %#llx, data=journal %d; expected %#llx, %d",
		     (unsigned long long) cases[k].major, (unsigned long long) cases[k].minor,
		     (unsigned long long) fs, journal, (unsigned long long) cases[k].fs,
		     cases[k].journal);
      /* ext4_journals_data: only for ext4, once the mapping is known.  */
      st.map.found = 1;
      st.map.dev_major = cases[k].major;
      st.map.dev_minor = cases[k].minor;
      st.fs = EXT4_SUPER_MAGIC;
      ck_assert_int_eq (ext4_journals_data (&st), cases[k].journal);
      st.fs = XFS_SUPER_MAGIC;
      ck_assert_int_eq (ext4_journals_data (&st), 0);
      ck_assert_int_eq (fake_calls (SYS_openat), 2);
      ck_assert_int_eq (fake_calls (SYS_close), 2);
    }
}
END_TEST

static const char environ_set[] = "PATH=/bin\0ELFPMD_PERF_MAPX=1\0ELFPMD_PERF_MAP=1\0";
static const char environ_zero[] = "ELFPMD_PERF_MAP=0\0HOME=/\0";
static const char environ_empty[] = "ELFPMD_PERF_MAP=\0";
static const char environ_00[] = "ELFPMD_PERF_MAP=00\0";
static const char environ_prefix[] = "XELFPMD_PERF_MAP=1\0ELFPMD_PERF_MA=1\0";
static const char environ_cut[] = "ELFPMD_PERF_MAP=1";	/* no NUL at the end */

START_TEST (test_environ)
{
  static const struct
  {
    const char *text;
    size_t len;
    int want;
  } cases[] = {
    { environ_set, sizeof environ_set - 1, 1 },
    { environ_zero, sizeof environ_zero - 1, 0 },
    { environ_empty, sizeof environ_empty - 1, 0 },
    { environ_00, sizeof environ_00 - 1, 1 },
    { environ_prefix, sizeof environ_prefix - 1, 0 },
    { environ_cut, sizeof environ_cut - 1, 0 },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      fake_reset ();
      fake_file ("/proc/self/environ", cases[k].text, cases[k].len)->max_read = read_sizes[_i];
      ck_assert_msg (perf_map_wanted () == cases[k].want, "case %zu, reads of %ld: expected %d",
		     k, read_sizes[_i], cases[k].want);
    }
}
END_TEST

START_TEST (test_auxv)
{
  uint64_t auxv[] = { 6, 4096, 9, 0x401000, 23, 1, 0, 0 };
  fake_reset ();
  fake_file ("/proc/self/auxv", auxv, sizeof auxv)->max_read = read_sizes[_i];
  /* One read: a short one finds only what it got.  */
  long got = read_sizes[_i] == 0 ? (long) sizeof auxv : read_sizes[_i];
  struct stub st = stub_at (0x400000);
  ck_assert_int_eq (read_auxv (&st), got >= 48 ? 0 : -1);
  ck_assert_uint_eq (st.at_entry, got >= 32 ? 0x401000 : 0);
  ck_assert_int_eq (st.at_secure, got >= 48 ? 1 : -1);
  /* Once only.  */
  read_auxv (&st);
  ck_assert_int_eq (fake_calls (SYS_openat), 1);
  /* Nothing after AT_NULL counts; no file, no entry.  */
  uint64_t early[] = { 6, 4096, 0, 0, 9, 0x401000, 23, 0 };
  fake_reset ();
  fake_file ("/proc/self/auxv", early, sizeof early);
  st = stub_at (0x400000);
  ck_assert_int_eq (read_auxv (&st), -1);
  ck_assert_uint_eq (st.at_entry, 0);
  fake_reset ();
  st = stub_at (0x400000);
  ck_assert_int_eq (read_auxv (&st), -1);
  /* An odd length: the entry cut in half is not read.  */
  fake_reset ();
  fake_file ("/proc/self/auxv", auxv, 44);
  st = stub_at (0x400000);
  ck_assert_int_eq (read_auxv (&st), -1);
  ck_assert_uint_eq (st.at_entry, 0x401000);
}
END_TEST

START_TEST (test_release)
{
  static const struct
  {
    const char *release;
    unsigned kv;
  } cases[] = {
    { "6.1.0-18-amd64", KV (6, 1) }, { "6.12.57+deb13-arm64-16k", KV (6, 12) },
    { "5.10.0-33-amd64", KV (5, 10) }, { "2.6.78-1-amd64", 0 }, { "3.10.0", KV (3, 10) }, { "6", 0 },
    { "6.", KV (6, 0) }, { ".6", 0 }, { "", 0 }, { "0.1", 0 }, { "65536.1", 0 },
    { "1.65536", 0 }, { "99999999999999999999999.1", 0 }, { "7.65535", KV (7, 65535) },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      fake_reset ();
      fake.release = cases[k].release;
      ck_assert_msg (kernel_version () == cases[k].kv, "\"%s\": %#x, expected %#x",
		     cases[k].release, kernel_version (), cases[k].kv);
    }
  fake_reset ();
  fake.release = NULL;
  ck_assert_uint_eq (kernel_version (), 0);
}
END_TEST

START_TEST (test_sysfs)
{
  fake_reset ();
  fake_file ("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n", 0);
  fake_file ("/a", "8192\n", 0);
  fake_file ("/b", "x8192\n", 0);
  fake_file ("/c", "99999999999999999999999999\n", 0);
  fake_file ("/d", "", 0);
  ck_assert_int_eq (thp_never (), 1);
  fake.files[0].data = "[always] madvise never\n";
  fake.files[0].len = strlen (fake.files[0].data);
  ck_assert_int_eq (thp_never (), 0);
  fake.files[0].data = "always madvise [neve";
  fake.files[0].len = strlen (fake.files[0].data);
  ck_assert_int_eq (thp_never (), 0);
  ck_assert_int_eq (read_number ("/a"), 8192);
  ck_assert_int_eq (read_number ("/b"), -1);
  ck_assert_int_eq (read_number ("/c"), -1);
  ck_assert_int_eq (read_number ("/d"), -1);
  ck_assert_int_eq (read_number ("/missing"), -1);
}
END_TEST

static Suite *
proc_suite (void)
{
  Suite *s = suite_create ("stub /proc");
  TCase *tc = tcase_create ("parsers");
  tcase_add_loop_test (tc, test_maps, 0, NREAD);
  tcase_add_loop_test (tc, test_maps_long_line, 0, NREAD);
  tcase_add_test (tc, test_maps_broken);
  tcase_add_loop_test (tc, test_smaps, 0, NREAD);
  tcase_add_loop_test (tc, test_smaps_cut, 0, NREAD);
  tcase_add_loop_test (tc, test_mountinfo, 0, NREAD);
  tcase_add_loop_test (tc, test_environ, 0, NREAD);
  tcase_add_loop_test (tc, test_auxv, 0, NREAD);
  tcase_add_test (tc, test_release);
  tcase_add_test (tc, test_sysfs);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (proc_suite ());
}
