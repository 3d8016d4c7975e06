/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the smaps reader (src/core/proc.h) that status and prime
   share: heads, the two fields it reads, a head it cannot parse skipped
   with its fields, paths with spaces, an empty file.  */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stub/check_main.h"
#include "proc.h"

static char *
write_temp (const char *text)
{
  char *path = strdup ("/tmp/elfpmd-smaps-XXXXXX");
  ck_assert (path != NULL);
  int fd = mkstemp (path);
  ck_assert (fd >= 0);
  ck_assert (write (fd, text, strlen (text)) == (ssize_t) strlen (text));
  close (fd);
  return path;
}

START_TEST (test_mappings)
{
  char *path = write_temp (
    "55d0c8a00000-55d0c8e00000 r-xp 00200000 08:01 1234 /usr/bin/some program\n"
    "Size:               4096 kB\n"
    "AnonHugePages:         0 kB\n"
    "FilePmdMapped:      2048 kB\n"
    "VmFlags: rd ex mr mw me hg\n"
    "abcd-not-a-head\n"
    "FilePmdMapped:      9999 kB\n"
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "AnonHugePages:      4096 kB\n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
    "Rss:                  12 kB\n");
  struct smaps_reader r;
  ck_assert_int_eq (smaps_open (&r, path), 0);
  struct smaps_mapping m;
  ck_assert_int_eq (smaps_next (&r, &m), 1);
  ck_assert_uint_eq (m.start, 0x55d0c8a00000);
  ck_assert_uint_eq (m.end, 0x55d0c8e00000);
  ck_assert_uint_eq (m.offset, 0x200000);
  ck_assert (m.exec);
  ck_assert_uint_eq (m.major, 8);
  ck_assert_uint_eq (m.minor, 1);
  ck_assert_uint_eq (m.inode, 1234);
  ck_assert_str_eq (m.path, "/usr/bin/some program");
  ck_assert_uint_eq (m.file_pmd_kb, 2048);
  ck_assert_uint_eq (m.anon_huge_kb, 0);
  /* "abcd-not-a-head" looks like a head and does not parse: skipped with
     its FilePmdMapped */
  ck_assert_int_eq (smaps_next (&r, &m), 1);
  ck_assert_uint_eq (m.start, 0x7f0000000000);
  ck_assert (!m.exec);
  ck_assert_uint_eq (m.inode, 0);
  ck_assert_str_eq (m.path, "");
  ck_assert_uint_eq (m.anon_huge_kb, 4096);
  ck_assert_uint_eq (m.file_pmd_kb, 0);
  ck_assert_int_eq (smaps_next (&r, &m), 1);
  ck_assert_str_eq (m.path, "[stack]");
  ck_assert_int_eq (smaps_next (&r, &m), 0);
  smaps_close (&r);
  unlink (path);
  free (path);
}
END_TEST

/* A head that does not parse (end below start) is skipped with its
   fields; an empty file has no mapping; a missing one is an errno.  */
START_TEST (test_odd)
{
  char *path = write_temp (
    "2000-1000 r-xp 00000000 08:01 7 /bad\n"
    "FilePmdMapped:      2048 kB\n"
    "3000-4000 r-xp 00000000 08:01 8 /good\n");
  struct smaps_reader r;
  struct smaps_mapping m;
  ck_assert_int_eq (smaps_open (&r, path), 0);
  ck_assert_int_eq (smaps_next (&r, &m), 1);
  ck_assert_str_eq (m.path, "/good");
  ck_assert_uint_eq (m.file_pmd_kb, 0);
  ck_assert_int_eq (smaps_next (&r, &m), 0);
  smaps_close (&r);
  unlink (path);
  free (path);

  path = write_temp ("");
  ck_assert_int_eq (smaps_open (&r, path), 0);
  ck_assert_int_eq (smaps_next (&r, &m), 0);
  smaps_close (&r);
  unlink (path);
  free (path);

  ck_assert_int_ne (smaps_open (&r, "/nonexistent/smaps"), 0);
}
END_TEST

/* This process's own smaps: its stack is there, heads all parse.  */
START_TEST (test_self)
{
  struct smaps_reader r;
  struct smaps_mapping m;
  ck_assert_int_eq (smaps_open (&r, "/proc/self/smaps"), 0);
  int n = 0, stack = 0, got;
  while ((got = smaps_next (&r, &m)) > 0)
    {
      n++;
      stack += strcmp (m.path, "[stack]") == 0;
    }
  ck_assert_int_eq (got, 0);
  ck_assert_int_gt (n, 3);
  ck_assert_int_eq (stack, 1);
  smaps_close (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("smaps");
  TCase *tc = tcase_create ("smaps");
  tcase_add_test (tc, test_mappings);
  tcase_add_test (tc, test_odd);
  tcase_add_test (tc, test_self);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
