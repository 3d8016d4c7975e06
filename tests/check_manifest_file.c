/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the manifest's file format (src/plan/manifest_file.h): a
   record written and read back; every line that is not exactly what
   elfpmd writes refused, with its reason; the file read as each file's
   last record, a line too long refused with its number.  */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stub/check_main.h"
#include "manifest_file.h"

#define H1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define H2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define X_HEX "2f7573722f62696e2f78"	/* /usr/bin/x */
#define HEAD "{\"action\":\"convert\",\"file\":\"/usr/bin/x\",\"file_hex\":\"" X_HEX "\""
#define HASHES ",\"sha256_before\":\"" H1 "\",\"sha256_after\":\"" H2 "\""
#define SIZES ",\"size_before\":10,\"size_after\":12"
#define TAIL ",\"options\":[\"--madvise\"],\"originals_hex\":\"2f6b\",\"elfpmd\":\"0.2.0\"}"
#define CONVERT HEAD HASHES SIZES TAIL
#define REVERT "{\"action\":\"revert\",\"file\":\"/usr/bin/x\",\"file_hex\":\"" X_HEX "\"," \
  "\"sha256\":\"" H1 "\",\"elfpmd\":\"0.2.0\"}"

/* Parse a copy of LINE into *R; return what manifest_parse_line did, its
   reason into ERR.  */
static int
parse (const char *line, size_t len, struct manifest_record *r, struct diag *err)
{
  char *copy = malloc (len + 1);
  ck_assert_ptr_nonnull (copy);
  memcpy (copy, line, len);
  copy[len] = '\0';
  diag_clear (err);
  int ret = manifest_parse_line (copy, len, r, err);
  free (copy);
  return ret;
}

struct refusal
{
  const char *what, *line, *reason;
};

static const struct refusal refusals[] = {
  { "empty", "", "not JSON" },
  { "cut short", "{\"action\":\"convert\"", "not JSON" },
  { "trailing text", CONVERT " x", "not JSON" },
  { "two objects", CONVERT CONVERT, "not JSON" },
  { "a trailing comma", HEAD HASHES SIZES ",\"options\":[\"-p\",],\"elfpmd\":\"0.2.0\"}", "not JSON" },
  { "an array", "[" CONVERT "]", "not a JSON object" },
  { "a string", "\"convert\"", "not JSON" },
  { "no action", "{\"file\":\"/usr/bin/x\"}", "no action it writes" },
  { "another action", "{\"action\":\"delete\",\"file\":\"/usr/bin/x\"}", "no action it writes" },
  { "an action that is no string", "{\"action\":1}", "no action it writes" },
  { "an unknown key", HEAD HASHES SIZES ",\"extra\":1" TAIL, "not its keys" },
  { "a key missing", HEAD ",\"sha256_before\":\"" H1 "\"" SIZES TAIL, "not its keys" },
  { "a size as a string", HEAD HASHES ",\"size_before\":10,\"size_after\":\"12\"" TAIL, "not its keys" },
  { "a size as a real", HEAD HASHES ",\"size_before\":10,\"size_after\":1.5" TAIL, "not its keys" },
  { "a size with an exponent", HEAD HASHES ",\"size_before\":10,\"size_after\":1e3" TAIL, "not its keys" },
  { "a hash as a number", HEAD ",\"sha256_before\":5,\"sha256_after\":\"" H2 "\"" SIZES TAIL,
    "not its keys" },
  { "options as a string", HEAD HASHES SIZES ",\"options\":\"--madvise\",\"elfpmd\":\"0.2.0\"}",
    "not its keys" },
  { "a revert line with options", "{\"action\":\"revert\",\"file\":\"/usr/bin/x\",\"file_hex\":\""
    X_HEX "\",\"sha256\":\"" H1 "\",\"options\":[],\"elfpmd\":\"0.2.0\"}", "not its keys" },
  { "a revert line's hash as a convert's", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\","
    "\"file_hex\":\"" X_HEX "\",\"sha256\":\"" H1 "\",\"elfpmd\":\"0.2.0\"}", "not its keys" },
  { "a key twice", HEAD HASHES ",\"sha256_after\":\"" H1 "\"" SIZES TAIL, "a key twice" },
  { "file_hex twice, apart", HEAD HASHES ",\"file_hex\":\"" X_HEX "\"" SIZES TAIL, "a key twice" },
  { "file_hex twice, at once, other bytes", HEAD ",\"file_hex\":\"2f79\"" HASHES SIZES TAIL,
    "a key twice" },
  { "a size too large", HEAD HASHES ",\"size_before\":10,\"size_after\":99999999999999999999" TAIL,
    "a number too large" },
  { "a size of 2^63", HEAD HASHES ",\"size_before\":10,\"size_after\":9223372036854775808" TAIL,
    "a number too large" },
  { "a negative size", HEAD HASHES ",\"size_before\":-1,\"size_after\":12" TAIL, "a negative size" },
  { "text that is not UTF-8", "{\"action\":\"convert\",\"file\":\"/usr/bin/\xe9\",\"file_hex\":\""
    X_HEX "\"" HASHES SIZES TAIL, "not UTF-8" },
  { "an overlong UTF-8 form", "{\"action\":\"convert\",\"file\":\"/usr/bin/\xc0\xaf\",\"file_hex\":\""
    X_HEX "\"" HASHES SIZES TAIL, "not UTF-8" },
  { "a NUL escaped", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\\u0000\",\"file_hex\":\""
    X_HEX "\"" HASHES SIZES TAIL, "a NUL character" },
  { "a lone surrogate", "{\"action\":\"convert\",\"file\":\"/usr/bin/\\ud800\",\"file_hex\":\""
    X_HEX "\"" HASHES SIZES TAIL, "not an entry elfpmd wrote" },
  { "file_hex in capitals", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\",\"file_hex\":"
    "\"2F7573722F62696E2F78\"" HASHES SIZES TAIL, "file_hex is not a name's bytes" },
  { "file_hex odd", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\",\"file_hex\":\"2f7573722f62696e2f7\""
    HASHES SIZES TAIL, "file_hex is not a name's bytes" },
  { "file_hex not hexadecimal", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\",\"file_hex\":"
    "\"2f7573722f62696e2fzz\"" HASHES SIZES TAIL, "file_hex is not a name's bytes" },
  { "file_hex with a NUL", "{\"action\":\"convert\",\"file\":\"/usr/bin/x\",\"file_hex\":"
    "\"2f7573722f62696e002f78\"" HASHES SIZES TAIL, "file_hex is not a name's bytes" },
  { "file_hex empty", "{\"action\":\"convert\",\"file\":\"\",\"file_hex\":\"\"" HASHES SIZES TAIL,
    "file_hex is not a name's bytes" },
  { "file not file_hex's text", "{\"action\":\"convert\",\"file\":\"/usr/bin/y\",\"file_hex\":\""
    X_HEX "\"" HASHES SIZES TAIL, "file is not the text of file_hex" },
  { "originals_hex odd", HEAD HASHES SIZES ",\"options\":[],\"originals_hex\":\"2f6\","
    "\"elfpmd\":\"0.2.0\"}", "originals_hex is not a name's bytes" },
  { "a relative name", "{\"action\":\"convert\",\"file\":\"x\",\"file_hex\":\"78\"" HASHES SIZES TAIL,
    "a name that is not absolute" },
  { "a relative originals directory", HEAD HASHES SIZES ",\"options\":[],\"originals_hex\":\"6b\","
    "\"elfpmd\":\"0.2.0\"}", "a name that is not absolute" },
  { "a hash too short", HEAD ",\"sha256_before\":\"0123\",\"sha256_after\":\"" H2 "\"" SIZES TAIL,
    "a SHA-256 that is not" },
  { "a hash in capitals", HEAD ",\"sha256_before\":\"" H1 "\",\"sha256_after\":"
    "\"FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210\"" SIZES TAIL,
    "a SHA-256 that is not" },
  { "an option elfpmd does not record", HEAD HASHES SIZES ",\"options\":[\"--json=/etc/x\"],"
    "\"elfpmd\":\"0.2.0\"}", "the option '--json=/etc/x' is not one elfpmd records" },
  { "an option with a newline", HEAD HASHES SIZES ",\"options\":[\"-p\\n--json=/etc/x\"],"
    "\"elfpmd\":\"0.2.0\"}", "an option that elfpmd does not record" },
  { "a size option of 0", HEAD HASHES SIZES ",\"options\":[\"--pmd-size=0\"],"
    "\"elfpmd\":\"0.2.0\"}", "the option '--pmd-size=0' is not one elfpmd records" },
  { "a build-id policy elfpmd has not", HEAD HASHES SIZES ",\"options\":[\"--build-id=none\"],"
    "\"elfpmd\":\"0.2.0\"}", "the option '--build-id=none' is not one elfpmd records" },
  { "an option that is no string", HEAD HASHES SIZES ",\"options\":[5],\"elfpmd\":\"0.2.0\"}",
    "an option that is not a string" },
  { "a version that is no string", HEAD HASHES SIZES ",\"options\":[],\"elfpmd\":2}",
    "not its keys" },
};

START_TEST (test_refused)
{
  const struct refusal *c = &refusals[_i];
  struct manifest_record r;
  struct diag err = { "" };
  int ret = parse (c->line, strlen (c->line), &r, &err);
  ck_assert_msg (ret == -1, "%s: accepted", c->what);
  ck_assert_msg (strstr (err.msg, c->reason) != NULL, "%s: the reason is \"%s\", not \"%s\"", c->what,
		 err.msg, c->reason);
  ck_assert_msg (strchr (err.msg, '\n') == NULL, "%s: the reason is more than one line", c->what);
}
END_TEST

/* Arrays nested deeper than Jansson's limit (2,048) inside a line
   MANIFEST_LINE_MAX allows.  */
START_TEST (test_deep)
{
  enum { DEPTH = 4000 };
  static char line[2 * DEPTH + 64];
  size_t n = (size_t) snprintf (line, sizeof line, "{\"action\":\"convert\",\"x\":");
  memset (line + n, '[', DEPTH);
  memset (line + n + DEPTH, ']', DEPTH);
  line[n + 2 * DEPTH] = '}';
  struct manifest_record r;
  struct diag err = { "" };
  ck_assert_int_eq (parse (line, n + 2 * DEPTH + 1, &r, &err), -1);
  ck_assert_msg (strstr (err.msg, "nested too deep") != NULL, "%s", err.msg);
}
END_TEST

/* What elfpmd writes, and wrote, is taken.  */
START_TEST (test_taken)
{
  struct manifest_record r;
  struct diag err = { "" };
  ck_assert_int_eq (parse (CONVERT, strlen (CONVERT), &r, &err), 0);
  ck_assert (!r.revert);
  ck_assert_str_eq (r.file, "/usr/bin/x");
  ck_assert_str_eq (r.before, H1);
  ck_assert_str_eq (r.after, H2);
  ck_assert_uint_eq (r.size_before, 10);
  ck_assert_uint_eq (r.size_after, 12);
  ck_assert_uint_eq (r.noptions, 1);
  ck_assert_str_eq (r.options[0], "--madvise");
  ck_assert_str_eq (r.originals, "/k");
  manifest_record_free (&r);

  ck_assert_int_eq (parse (REVERT, strlen (REVERT), &r, &err), 0);
  ck_assert (r.revert);
  ck_assert_str_eq (r.file, "/usr/bin/x");
  ck_assert_str_eq (r.after, H1);
  manifest_record_free (&r);

  /* The keys in another order: a JSON object.  */
  static const char other[] = "{\"elfpmd\":\"0.2.0\",\"options\":[],\"size_after\":12,\"size_before\":10,"
    "\"sha256_after\":\"" H2 "\",\"sha256_before\":\"" H1 "\",\"file_hex\":\"" X_HEX "\","
    "\"file\":\"/usr/bin/x\",\"action\":\"convert\"}";
  ck_assert_int_eq (parse (other, strlen (other), &r, &err), 0);
  ck_assert_ptr_null (r.originals);
  manifest_record_free (&r);

  /* elfpmd 0.2.0's line for a name that is not UTF-8: file_hex twice, the
     same, at once.  */
  static const char legacy[] = "{\"action\":\"convert\",\"file\":\"/caf\\ufffd\",\"file_hex\":\"2f636166e9\","
    "\"file_hex\":\"2f636166e9\"" HASHES SIZES ",\"options\":[],\"elfpmd\":\"0.2.0\"}";
  ck_assert_int_eq (parse (legacy, strlen (legacy), &r, &err), 0);
  ck_assert_str_eq (r.file, "/caf\xe9");
  manifest_record_free (&r);
}
END_TEST

/* A record written is read back as it was: a name that is not UTF-8 (and
   one with a quote, a backslash and a newline), every kind of option.  */
START_TEST (test_round_trip)
{
  static const char *const names[] = { "/caf\xe9/\xff\xfe prog", "/a\"b\\c\nd\te" };
  static char store[][24] = { "--rule=kernel", "--no-pad", "--pmd-size=2097152", "--page-size=4096",
			      "--madvise=copy", "--populate-max=3", "--copy-max=5", "--move-table", "-p",
			      "--no-sync", "--build-id=keep" };
  enum { NOPTS = sizeof store / sizeof store[0] };
  char *opts[NOPTS], originals[] = "/var/lib/\xe9";
  for (size_t i = 0; i < NOPTS; i++)
    opts[i] = store[i];
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    {
      struct manifest_record w = {
	.file = (char *) names[k], .size_before = 1, .size_after = UINT64_C (9223372036854775807),
	.options = opts, .noptions = NOPTS, .originals = originals,
      };
      memcpy (w.before, H1, 65);
      memcpy (w.after, H2, 65);
      for (int revert = 0; revert < 2; revert++)
	{
	  w.revert = revert;
	  char *line;
	  size_t len;
	  ck_assert_int_eq (manifest_record_format (&w, &line, &len), 0);
	  ck_assert (len > 0 && line[len - 1] == '\n');
	  ck_assert_ptr_null (memchr (line, '\n', len - 1));
	  struct manifest_record r;
	  struct diag err = { "" };
	  ck_assert_msg (parse (line, len - 1, &r, &err) == 0, "%.*s: %s", (int) len, line, err.msg);
	  ck_assert_int_eq (r.revert, revert);
	  ck_assert_str_eq (r.file, names[k]);
	  ck_assert_str_eq (r.after, H2);
	  if (!revert)
	    {
	      ck_assert_str_eq (r.before, H1);
	      ck_assert_uint_eq (r.size_before, 1);
	      ck_assert_uint_eq (r.size_after, w.size_after);
	      ck_assert_uint_eq (r.noptions, w.noptions);
	      for (size_t i = 0; i < r.noptions; i++)
		ck_assert_str_eq (r.options[i], opts[i]);
	      ck_assert_str_eq (r.originals, w.originals);
	    }
	  manifest_record_free (&r);
	  free (line);
	}
    }
}
END_TEST

/* A manifest of CONTENTS (LEN bytes) in a new file of mode 0600, read:
   manifest_read's result, its records into *V, the line into *LINENO.  */
static long
read_contents (const char *contents, size_t len, struct manifest_record **v, size_t *lineno,
	       struct diag *err)
{
  char path[] = "/tmp/check_manifest_file.XXXXXX";
  int fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (write (fd, contents, len), (ssize_t) len);
  close (fd);
  diag_clear (err);
  long n = manifest_read (path, v, lineno, err);
  unlink (path);
  return n;
}

START_TEST (test_read)
{
  struct manifest_record *v;
  size_t lineno;
  struct diag err = { "" };
  /* Each file's last line, in the order of their first; the last line
     without its newline.  */
  static const char two[] = CONVERT "\n"
    "{\"action\":\"convert\",\"file\":\"/y\",\"file_hex\":\"2f79\"" HASHES SIZES TAIL "\n" REVERT;
  ck_assert_int_eq (read_contents (two, sizeof two - 1, &v, &lineno, &err), 2);
  ck_assert_str_eq (v[0].file, "/usr/bin/x");
  ck_assert (v[0].revert);
  ck_assert_str_eq (v[1].file, "/y");
  manifest_records_free (v, 2);

  /* A blank line.  */
  static const char blank[] = CONVERT "\n\n" CONVERT "\n";
  ck_assert_int_eq (read_contents (blank, sizeof blank - 1, &v, &lineno, &err), -1);
  ck_assert_uint_eq (lineno, 2);
  ck_assert_ptr_nonnull (strstr (err.msg, "not JSON"));

  /* A line of MANIFEST_LINE_MAX bytes is read (and refused as not JSON);
     one byte more is refused unread.  */
  size_t big = strlen (CONVERT) + 1 + MANIFEST_LINE_MAX + 2;
  char *buf = malloc (big);
  ck_assert_ptr_nonnull (buf);
  for (size_t extra = 0; extra < 2; extra++)
    {
      size_t at = strlen (CONVERT);
      memcpy (buf, CONVERT "\n", at + 1);
      memset (buf + at + 1, ' ', MANIFEST_LINE_MAX + extra);
      buf[at + 1 + MANIFEST_LINE_MAX + extra] = '\n';
      ck_assert_int_eq (read_contents (buf, at + 2 + MANIFEST_LINE_MAX + extra, &v, &lineno, &err), -1);
      ck_assert_uint_eq (lineno, 2);
      ck_assert_ptr_nonnull (strstr (err.msg, extra == 0 ? "not JSON" : "longer than 65536 bytes"));
    }
  free (buf);

  /* A NUL byte in a line.  */
  static const char nul[] = "{\"action\":\0\"convert\"}\n";
  ck_assert_int_eq (read_contents (nul, sizeof nul - 1, &v, &lineno, &err), -1);
  ck_assert_uint_eq (lineno, 1);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("manifest_file");
  TCase *tc = tcase_create ("manifest_file");
  tcase_add_loop_test (tc, test_refused, 0, sizeof refusals / sizeof refusals[0]);
  tcase_add_test (tc, test_deep);
  tcase_add_test (tc, test_taken);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_read);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
