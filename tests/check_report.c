/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the report: the fields of the text and JSON forms.  */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "stub/check_main.h"
#include "process.h"
#include "report.h"
#include "synth.h"

#define M ((uint64_t) 1 << 20)

static char *
report_of (const struct synth_elf *s, struct run_options *o, int *status)
{
  char *path = synth_temp_path ("report");
  ck_assert (synth_write (path, s) == 0);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  FILE *devnull = fopen ("/dev/null", "w");
  *status = process_file (path, o, out, devnull);
  fclose (devnull);
  fclose (out);
  unlink (path);
  free (path);
  return text;
}

static void
assert_has (const char *text, const char *what)
{
  ck_assert_msg (strstr (text, what) != NULL, "report lacks %s:\n%s", what, text);
}

static struct synth_elf
pie64 (void)
{
  return (struct synth_elf) {
    .elfclass = 2, .data = 1, .type = ET_DYN, .machine = EM_X86_64, .phnum = 3,
    .phdr = {
      { PT_INTERP, PF_R, 0x200, 0x200, 0x1c, 0x1c, 1 },
      { PT_LOAD, PF_R | PF_X, 0, 0, 6 * M, 6 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x600000, 0x800000, 0x100, 0x100, 0x1000 },
    },
  };
}

START_TEST (test_json_fields)
{
  struct synth_elf s = pie64 ();
  struct run_options o = { .rule = ALIGN_RULE_RELAXED, .dry_run = true, .format = REPORT_JSON };
  int status;
  char *j = report_of (&s, &o, &status);
  ck_assert_int_eq (status, 0);
  ck_assert_ptr_nonnull (strchr (j, '\n'));
  ck_assert_ptr_eq (strchr (j, '\n') + 1, j + strlen (j));	/* exactly one line */
  assert_has (j, "\"machine\":\"x86-64\"");
  assert_has (j, "\"class\":\"ELF64\"");
  assert_has (j, "\"byte_order\":\"little-endian\"");
  assert_has (j, "\"type\":\"pie\"");
  assert_has (j, "\"pmd_size\":2097152");
  assert_has (j, "\"changed\":true");
  assert_has (j, "\"status\":\"would change\"");
  assert_has (j, "{\"index\":1,\"flags\":\"R-X\",\"offset\":0,\"vaddr\":0,\"filesz\":6291456");
  assert_has (j, "\"align\":4096,\"new_offset\":0,\"new_align\":2097152,\"kernel_rule\":true");
  assert_has (j, "{\"index\":2,\"flags\":\"RW-\"");
  assert_has (j, "\"kernel_reason\":\"filesz_below_pmd\"");
  assert_has (j, "\"relaxed_reason\":\"writable\"");
  assert_has (j, "\"reason\":\"writable\"");
  assert_has (j, "\"pmd_chunks_before\":0,\"pmd_chunks_after\":3");
  assert_has (j, "\"aslr_bits_lost\":9");
  ck_assert_ptr_null (strstr (j, "\"index\":0"));	/* PT_INTERP is not listed */
  free (j);

  /* Big-endian ELF32 under --pmd-size.  */
  s.elfclass = 1;
  s.data = 2;
  s.machine = EM_PPC;
  s.type = ET_EXEC;
  o.pmd_size = 2 * M;
  j = report_of (&s, &o, &status);
  ck_assert_int_eq (status, 0);
  assert_has (j, "\"class\":\"ELF32\"");
  assert_has (j, "\"byte_order\":\"big-endian\"");
  assert_has (j, "\"type\":\"executable\"");
  assert_has (j, "\"pmd_source\":\"--pmd-size\"");
  assert_has (j, "\"aslr_bits_lost\":0");
  free (j);
}
END_TEST

START_TEST (test_json_error)
{
  char *path = synth_temp_path ("notelf");
  FILE *f = fopen (path, "w");
  fputs ("#!/bin/sh\n\"quoted\"\n", f);
  fclose (f);
  struct run_options o = { .format = REPORT_JSON };
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  FILE *devnull = fopen ("/dev/null", "w");
  ck_assert_int_eq (process_file (path, &o, out, devnull), 1);
  fclose (devnull);
  fclose (out);
  assert_has (text, "\"status\":\"error\"");
  assert_has (text, "\"error\":\"not an ELF file\"");
  assert_has (text, "\"changed\":false");
  free (text);
  unlink (path);
  free (path);
}
END_TEST

START_TEST (test_text_report)
{
  struct synth_elf s = pie64 ();
  struct run_options o = { .rule = ALIGN_RULE_KERNEL, .dry_run = true, .format = REPORT_FULL };
  int status;
  char *t = report_of (&s, &o, &status);
  ck_assert_int_eq (status, 0);
  assert_has (t, "x86-64 ELF64 little-endian, pie (dynamic)");
  assert_has (t, "PMD size 2 MiB (x86-64, 4 KiB pages), page size 4 KiB, rule kernel");
  assert_has (t, "kernel rule: p_filesz smaller than PMD");
  assert_has (t, "0 before, 3 after");
  assert_has (t, "9 bits of address-space randomisation lost");
  assert_has (t, "result: would change");
  /* The kernel column reads as the file will be: the segment this run
     aligns says "aligned", and no kernel-rule reason follows it.  */
  assert_has (t, " 0x200000  aligned    yes\n");
  free (t);

  o.format = REPORT_SUMMARY;
  o.dry_run = false;
  s.phdr[1].align = 2 * M;	/* a second run finds it done */
  t = report_of (&s, &o, &status);
  ck_assert_int_eq (status, 0);
  assert_has (t, ": already aligned: 0 of 2 PT_LOADs aligned to 2 MiB; PMD-mappable chunks 3 -> 3\n");
  free (t);
}
END_TEST

/* REPORT (report_json, report_summary or report_text) of R, as a string.  */
static char *
report_string (void (*report) (FILE *, const struct file_report *), const struct file_report *r)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  report (out, r);
  fclose (out);
  return text;
}

/* What becomes of security.ima, in the three forms of the report: a report
   made by hand around a real plan, for each ima_plan.  */
START_TEST (test_ima_report)
{
  struct synth_elf s = pie64 ();
  char *path = synth_temp_path ("ima");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file file;
  struct diag err = { "" };
  ck_assert_int_eq (elf_file_open (&file, path, &err), 0);
  struct rewrite_plan plan = { 0 };
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4096, .pad = true },
  };
  ck_assert_int_eq (rewrite_plan_build (&plan, &file, &po, &err), 0);
  ck_assert (plan.changed);
  struct ima_plan ima = { .action = IMA_REHASH, .type = 0x04, .algo = 4, .alg = "sha256",
			  .digest_len = 32, .value_len = 34 };
  struct file_report r = { .name = "f", .file = &file, .plan = &plan, .pmd = 2 * M, .page = 4096,
			   .pmd_source = "test", .rule = ALIGN_RULE_RELAXED, .dry_run = true,
			   .ima = &ima };
  char *t = report_string (report_json, &r);
  assert_has (t, ",\"ima\":\"would-rehash-sha256\"");
  free (t);
  t = report_string (report_summary, &r);
  assert_has (t, "; IMA hash (security.ima, sha256) would be renewed\n");
  free (t);
  t = report_string (report_text, &r);
  assert_has (t, "  IMA hash (security.ima, sha256, type 0x04): would be renewed for the new contents\n");
  free (t);

  r.dry_run = false;
  r.has_written = true;
  ima.type = 0x01;
  ima.algo = 2;
  ima.alg = "sha1";
  t = report_string (report_json, &r);
  assert_has (t, ",\"ima\":\"rehashed-sha1\"");
  assert_has (t, "\"status\":\"changed\"");
  free (t);
  t = report_string (report_summary, &r);
  assert_has (t, "; IMA hash (security.ima, sha1) renewed\n");
  free (t);
  t = report_string (report_text, &r);
  assert_has (t, "  IMA hash (security.ima, sha1, type 0x01): renewed for the new contents\n");
  free (t);

  /* No attribute: nothing said.  */
  ima.action = IMA_NONE;
  t = report_string (report_json, &r);
  ck_assert_ptr_null (strstr (t, "\"ima\""));
  free (t);
  t = report_string (report_text, &r);
  ck_assert_ptr_null (strstr (t, "IMA"));
  free (t);

  /* A refusal is a failure; the error object says so.  */
  ima.action = IMA_REFUSED;
  struct file_report e = { .name = "f", .error = "carries an IMA/EVM signature", .ima = &ima };
  t = report_string (report_json, &e);
  assert_has (t, "\"status\":\"error\",\"error\":\"carries an IMA/EVM signature\",\"ima\":\"refused\","
	      "\"changed\":false}\n");
  free (t);
  ck_assert_int_eq (report_file_status (&e), STATUS_ERROR);

  rewrite_plan_free (&plan);
  elf_file_close (&file);

  /* Through process_file, where this user may set security.ima (root): a
     signature is refused in a dry run too, the file untouched.  */
  static const unsigned char sig[] = { 0x03, 0x02, 0x04, 1, 2, 3, 4, 0, 4, 9, 9, 9, 9 };
  if (setxattr (path, "security.ima", sig, sizeof sig, 0) == 0)
    {
      struct run_options o = { .rule = ALIGN_RULE_RELAXED, .dry_run = true, .format = REPORT_JSON };
      char *text = NULL;
      size_t len = 0;
      FILE *out = open_memstream (&text, &len);
      FILE *devnull = fopen ("/dev/null", "w");
      ck_assert_int_eq (process_file (path, &o, out, devnull), 1);
      fclose (devnull);
      fclose (out);
      assert_has (text, "\"status\":\"error\"");
      assert_has (text, "carries an IMA/EVM signature (security.ima) that a rewrite would invalidate");
      assert_has (text, "\"ima\":\"refused\"");
      free (text);
    }
  unlink (path);
  free (path);
}
END_TEST

/* A test that makes a temporary file and fails before it can remove it, as
   any test with a failing assertion does: its file must go with the
   fixture's directory all the same.  Its own memory is freed first, so that
   LeakSanitizer has nothing to say where the failure longjmps (CK_NOFORK).  */
START_TEST (probe_fail_with_a_temporary)
{
  char *path = synth_temp_path ("probe");
  bool made = path != NULL && access (path, F_OK) == 0;
  free (path);
  ck_assert_msg (made, "no temporary file made");
  ck_abort_msg ("deliberate failure, leaving a temporary file to the fixture");
}
END_TEST

/* Run the probe in both fork modes with TMPDIR set to a new empty directory;
   return whether the probe failed each time and left that directory empty.  */
static bool
temporaries_go_when_a_test_fails (void)
{
  const char *base = getenv ("TMPDIR");
  char *saved = base != NULL ? strdup (base) : NULL;
  char *box;
  if (asprintf (&box, "%s/elfpmd-probe-XXXXXX", base != NULL && *base != '\0' ? base : "/tmp") < 0
      || mkdtemp (box) == NULL)
    {
      perror ("cannot create a directory for the temporaries probe");
      return false;
    }
  setenv ("TMPDIR", box, 1);
  bool ok = true;
  static const enum fork_status modes[] = { CK_FORK, CK_NOFORK };
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    {
      Suite *s = suite_create ("temporaries");
      TCase *tc = tcase_create ("temporaries");
      tcase_add_unchecked_fixture (tc, synth_temp_dir_create, synth_temp_dir_remove);
      tcase_add_test (tc, probe_fail_with_a_temporary);
      suite_add_tcase (s, tc);
      SRunner *sr = srunner_create (s);
      srunner_set_fork_status (sr, modes[m]);
      srunner_run_all (sr, CK_SILENT);
      int failed = srunner_ntests_failed (sr);
      srunner_free (sr);
      const char *mode = modes[m] == CK_FORK ? "CK_FORK" : "CK_NOFORK";
      if (failed != 1)
	{
	  printf ("temporaries probe (%s): %d failures, expected 1\n", mode, failed);
	  ok = false;
	}
      DIR *d = opendir (box);
      struct dirent *e;
      while (d != NULL && (e = readdir (d)) != NULL)
	if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
	  {
	    printf ("temporaries probe (%s): a failed test left %s/%s behind\n", mode, box, e->d_name);
	    ok = false;
	  }
      if (d != NULL)
	closedir (d);
    }
  if (ok)
    printf ("temporaries probe: a failed test leaves nothing behind (CK_FORK, CK_NOFORK)\n");
  synth_remove_tree (box);
  free (box);
  if (saved != NULL)
    setenv ("TMPDIR", saved, 1);
  else
    unsetenv ("TMPDIR");
  free (saved);
  return ok;
}

START_TEST (test_json_string)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  json_string (out, "a\"b\\c\nd\te\001f\177");
  fclose (out);
  ck_assert_str_eq (text, "\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007f\"");
  free (text);
}
END_TEST

/* Names are bytes: "caf\xe9" (Latin-1) and "caf\xc3\xa9" (UTF-8 for café)
   are two files, and their JSON must say which; the first gets U+FFFD
   and its exact bytes in "file_hex", the second is text as it is.  */
START_TEST (test_json_name)
{
  static const struct
  {
    const char *name, *json;
  } cases[] = {
    { "caf\xe9", "\"file\":\"caf\\ufffd\",\"file_hex\":\"636166e9\"" },
    { "caf\xc3\xa9", "\"file\":\"caf\xc3\xa9\"" },
    { "caf\xef\xbf\xbd", "\"file\":\"caf\xef\xbf\xbd\"" },
    { "a\xc0\xaf" "b", "\"file\":\"a\\ufffd\\ufffdb\",\"file_hex\":\"61c0af62\"" },
    { "plain/x", "\"file\":\"plain/x\"" },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      char *text = NULL;
      size_t len = 0;
      FILE *out = open_memstream (&text, &len);
      json_name (out, "file", cases[k].name);
      fclose (out);
      ck_assert_str_eq (text, cases[k].json);
      free (text);
    }
}
END_TEST

int
main (void)
{
  elf_version (EV_CURRENT);
  bool temporaries_ok = temporaries_go_when_a_test_fails ();
  Suite *s = suite_create ("report");
  TCase *tc = tcase_create ("report");
  /* The tests' temporary files live in a directory this removes, also
     after a failed assertion.  */
  tcase_add_unchecked_fixture (tc, synth_temp_dir_create, synth_temp_dir_remove);
  tcase_add_test (tc, test_json_fields);
  tcase_add_test (tc, test_json_name);
  tcase_add_test (tc, test_json_error);
  tcase_add_test (tc, test_text_report);
  tcase_add_test (tc, test_json_string);
  tcase_add_test (tc, test_ima_report);
  suite_add_tcase (s, tc);
  int status = run_suite (s);
  return status == EXIT_SUCCESS && temporaries_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
