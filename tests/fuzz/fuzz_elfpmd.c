/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* fuzz_elfpmd.c: a libFuzzer target for elfpmd's per-file pipeline.

   Each input is written to a file in a private temporary directory and
   handed to process_file (src/verbs/process.h), the library's only entry point
   this harness uses, under several option sets:

     1. dry run, JSON report;
     2. dry run, full text report (for one input in four the one-line
        summary);
     3. dry run, JSON report, --madvise;
     4. -o OUT, JSON report, --no-sync;
     5. -o OUT, JSON report, --no-sync, --madvise;

   and, after each successful write, once more as a dry run with the same
   options on OUT.  The options the five calls share (PMD size, rule,
   --no-pad, page size, --populate-max) follow from a hash of the input, so
   that every input is processed the same way each time it runs.

   What is asserted (abort () with a message on stderr, which libFuzzer
   records as a crash):
     - the error text never says "internal error";
     - process_file returns 0 with no error text, or 1 with exactly one line
       "elfpmd: NAME: ..." of it;
     - a JSON report is exactly one line, which is one strict JSON object
       (RFC 8259, valid UTF-8, no lone surrogates) whose "status" is "error"
       exactly when process_file failed;
     - a failed -o leaves no output file; a successful one leaves a file of
       at most the input's size + 64 MiB, of the report's size_after;
     - the dry run and the write with the same options agree (both fail or
       neither; "would change" and "changed", the same status otherwise;
       the same size_after);
     - idempotence: the dry run on a written output neither fails nor
       reports "would change" ("changed":true);
     - the input file is byte-for-byte what was written, after every call;
     - no temporary file .elfpmd.* is left in the directory.

   AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer (with
   libFuzzer's -detect_leaks, the default) report the rest.  The harness
   never starts a process; inputs above FUZZ_MAX_INPUT are ignored, so that
   one run stays short (libFuzzer's -timeout catches hangs).

   The environment may name, in FUZZ_ELFPMD_KNOWN, a file of known findings
   to look past in a local run (see fail () below); the scripts never do.
   The directory is $TMPDIR/fuzz_elfpmd.XXXXXX (TMPDIR default /tmp),
   removed at a normal exit, left behind by a crash.

   Build: see Makefile.am (make fuzz); run: tests/run-fuzz.sh, bench/fuzz.sh.
   A reproducer runs alone with: fuzz_elfpmd FILE.  */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phdr_align.h"
#include "process.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Larger inputs are ignored: the seeds are a few hundred KiB.  */
#define FUZZ_MAX_INPUT ((size_t) 8 << 20)
/* How much a written output may be larger than its input.  */
#define FUZZ_MAX_GROWTH ((off_t) 64 << 20)

static char *dir_path;		/* the private directory */
static char *in_path;		/* DIR/in.elf: the input */
static char *out_path;		/* DIR/out.elf: the -o output */

/* The input of the current run, for the checks.  */
static const uint8_t *cur_data;
static size_t cur_size;

static void
cleanup_dir (void)
{
  if (dir_path == NULL)
    return;
  DIR *d = opendir (dir_path);
  if (d != NULL)
    {
      struct dirent *e;
      while ((e = readdir (d)) != NULL)
	if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
	  unlinkat (dirfd (d), e->d_name, 0);
      closedir (d);
    }
  rmdir (dir_path);
}

static void
die_errno (const char *what)
{
  fprintf (stderr, "fuzz_elfpmd: harness error: %s: %s\n", what, strerror (errno));
  abort ();
}

static char *
path_in_dir (const char *name)
{
  size_t len = strlen (dir_path) + 1 + strlen (name) + 1;
  char *p = malloc (len);
  if (p == NULL)
    die_errno ("malloc");
  snprintf (p, len, "%s/%s", dir_path, name);
  return p;
}

static void load_known (void);

static void
setup_once (void)
{
  if (dir_path != NULL)
    return;
  elf_version (EV_CURRENT);
  const char *tmp = getenv ("TMPDIR");
  if (tmp == NULL || *tmp == '\0')
    tmp = "/tmp";
  size_t len = strlen (tmp) + sizeof "/fuzz_elfpmd.XXXXXX";
  char *templ = malloc (len);
  if (templ == NULL)
    die_errno ("malloc");
  snprintf (templ, len, "%s/fuzz_elfpmd.XXXXXX", tmp);
  if (mkdtemp (templ) == NULL)
    die_errno ("mkdtemp");
  dir_path = templ;
  in_path = path_in_dir ("in.elf");
  out_path = path_in_dir ("out.elf");
  atexit (cleanup_dir);
  load_known ();
}

/* The failure of one check: print what failed, with the options, and abort;
   unless the message contains a line of the file FUZZ_ELFPMD_KNOWN (known
   findings, for a local run that should look past them; a line matches when
   the message and the options, as printed, contain each of its parts
   separated by " && "): then the rest of this input is skipped.  No
   committed script sets it.  */
static const struct run_options *cur_opts;
static const char *cur_call;
static char *known;		/* the file's contents, lines NUL-separated */
static size_t known_len;
static jmp_buf skip_input;
static bool skip_armed;
static char *cur_rep, *cur_err;	/* the memory streams' buffers of run () */

static void
load_known (void)
{
  const char *path = getenv ("FUZZ_ELFPMD_KNOWN");
  if (path == NULL || *path == '\0')
    return;
  FILE *f = fopen (path, "r");
  if (f == NULL)
    die_errno (path);
  char line[4096];
  while (fgets (line, sizeof line, f) != NULL)
    {
      line[strcspn (line, "\n")] = '\0';
      size_t n = strlen (line);
      if (n == 0 || line[0] == '#')
	continue;
      known = realloc (known, known_len + n + 1);
      if (known == NULL)
	die_errno ("realloc");
      memcpy (known + known_len, line, n + 1);
      known_len += n + 1;
    }
  fclose (f);
}

/* Whether TEXT contains every part of PATTERN, parts separated by " && ".  */
static bool
matches_known (const char *text, const char *pattern)
{
  char buf[4096];
  snprintf (buf, sizeof buf, "%s", pattern);
  for (char *part = buf, *next; part != NULL; part = next)
    {
      next = strstr (part, " && ");
      if (next != NULL)
	{
	  *next = '\0';
	  next += 4;
	}
      if (strstr (text, part) == NULL)
	return false;
    }
  return true;
}

static void __attribute__ ((noreturn, format (printf, 1, 2)))
fail (const char *fmt, ...)
{
  static char msg[16384];
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (msg, sizeof msg - 1024, fmt, ap);
  va_end (ap);
  size_t len = n < 0 ? 0 : (size_t) n < sizeof msg - 1024 ? (size_t) n : sizeof msg - 1025;
  if (cur_opts != NULL)
    snprintf (msg + len, sizeof msg - len,
	      "\nfuzz_elfpmd: options: rule=%s pmd_size=%llu page_size=%llu dry_run=%d "
	      "pad=%d madvise=%d populate_max=%llu output=%s format=%s; input %zu bytes",
	      cur_opts->rule == ALIGN_RULE_KERNEL ? "kernel" : "relaxed",
	      (unsigned long long) cur_opts->pmd_size, (unsigned long long) cur_opts->page_size,
	      cur_opts->dry_run, cur_opts->pad, cur_opts->stub.wanted,
	      (unsigned long long) cur_opts->stub.populate_max,
	      cur_opts->output != NULL ? "out.elf" : "(none)",
	      cur_opts->format == REPORT_JSON ? "json" : cur_opts->format == REPORT_FULL ? "full" : "summary",
	      cur_size);
  for (size_t k = 0; k < known_len; k += strlen (known + k) + 1)
    if (skip_armed && matches_known (msg, known + k))
      {
	free (cur_rep);
	free (cur_err);
	cur_rep = cur_err = NULL;
	longjmp (skip_input, 1);
      }
  fprintf (stderr, "\nfuzz_elfpmd: CHECK FAILED in call '%s': %s\n", cur_call, msg);
  abort ();
}

/* Strict JSON (RFC 8259), on a NUL-free buffer of known length.  */

struct json
{
  const char *p, *end;
  int depth;
  const char *why;		/* the first error */
  /* The value of the top-level key "status", when it is a string without
     escapes (NULL otherwise).  */
  const char *status;
  size_t status_len;
  /* The value of the top-level key "size_after", when it is one.  */
  bool has_size_after;
  uint64_t size_after;
};

#define JSON_MAX_DEPTH 64

static bool
json_error (struct json *j, const char *why)
{
  if (j->why == NULL)
    j->why = why;
  return false;
}

static void
json_ws (struct json *j)
{
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static bool
json_hex4 (struct json *j, unsigned *out)
{
  if (j->end - j->p < 4)
    return json_error (j, "truncated \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; i++)
    {
      int h = hex_value (j->p[i]);
      if (h < 0)
	return json_error (j, "bad hex digit in \\u escape");
      v = v << 4 | (unsigned) h;
    }
  j->p += 4;
  *out = v;
  return true;
}

/* One UTF-8 sequence starting at j->p (its first byte >= 0x80).  */
static bool
json_utf8 (struct json *j)
{
  const unsigned char *s = (const unsigned char *) j->p;
  size_t left = (size_t) (j->end - j->p);
  unsigned c = s[0];
  size_t n;
  unsigned cp, min;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07, min = 0x10000;
  else
    return json_error (j, "invalid UTF-8 lead byte");
  if (left < n)
    return json_error (j, "truncated UTF-8 sequence");
  for (size_t i = 1; i < n; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
	return json_error (j, "invalid UTF-8 continuation byte");
      cp = cp << 6 | (s[i] & 0x3f);
    }
  if (cp < min)
    return json_error (j, "overlong UTF-8 sequence");
  if (cp >= 0xd800 && cp <= 0xdfff)
    return json_error (j, "UTF-8-encoded surrogate");
  if (cp > 0x10ffff)
    return json_error (j, "UTF-8 code point above U+10FFFF");
  j->p += n;
  return true;
}

static bool
json_string (struct json *j, bool *escaped)
{
  if (j->p >= j->end || *j->p != '"')
    return json_error (j, "expected a string");
  j->p++;
  *escaped = false;
  while (j->p < j->end)
    {
      unsigned char c = (unsigned char) *j->p;
      if (c == '"')
	{
	  j->p++;
	  return true;
	}
      if (c < 0x20)
	return json_error (j, "unescaped control character in a string");
      if (c >= 0x80)
	{
	  if (!json_utf8 (j))
	    return false;
	  continue;
	}
      if (c != '\\')
	{
	  j->p++;
	  continue;
	}
      *escaped = true;
      j->p++;
      if (j->p >= j->end)
	return json_error (j, "truncated escape");
      char e = *j->p++;
      switch (e)
	{
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
	  break;
	case 'u':
	  {
	    unsigned u;
	    if (!json_hex4 (j, &u))
	      return false;
	    if (u >= 0xdc00 && u <= 0xdfff)
	      return json_error (j, "lone low surrogate escape");
	    if (u >= 0xd800 && u <= 0xdbff)
	      {
		unsigned lo;
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
		  return json_error (j, "high surrogate escape without a low one");
		j->p += 2;
		if (!json_hex4 (j, &lo))
		  return false;
		if (lo < 0xdc00 || lo > 0xdfff)
		  return json_error (j, "high surrogate escape without a low one");
	      }
	  }
	  break;
	default:
	  return json_error (j, "invalid escape");
	}
    }
  return json_error (j, "unterminated string");
}

static bool
json_digits (struct json *j)
{
  if (j->p >= j->end || *j->p < '0' || *j->p > '9')
    return json_error (j, "expected a digit");
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
    j->p++;
  return true;
}

static bool
json_number (struct json *j)
{
  if (j->p < j->end && *j->p == '-')
    j->p++;
  if (j->p < j->end && *j->p == '0')
    j->p++;
  else if (!json_digits (j))
    return false;
  if (j->p < j->end && *j->p == '.')
    {
      j->p++;
      if (!json_digits (j))
	return false;
    }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E'))
    {
      j->p++;
      if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
	j->p++;
      if (!json_digits (j))
	return false;
    }
  return true;
}

static bool
json_literal (struct json *j, const char *word)
{
  size_t n = strlen (word);
  if ((size_t) (j->end - j->p) < n || memcmp (j->p, word, n) != 0)
    return json_error (j, "invalid literal");
  j->p += n;
  return true;
}

static bool json_value (struct json *j, bool top);

static bool
json_object (struct json *j, bool top)
{
  j->p++;			/* '{' */
  json_ws (j);
  if (j->p < j->end && *j->p == '}')
    {
      j->p++;
      return true;
    }
  for (;;)
    {
      json_ws (j);
      const char *key = j->p;
      bool escaped;
      if (!json_string (j, &escaped))
	return false;
      bool is_status = top && !escaped && j->p - key == 8 && memcmp (key, "\"status\"", 8) == 0;
      bool is_size_after = top && !escaped && j->p - key == 12
			   && memcmp (key, "\"size_after\"", 12) == 0;
      json_ws (j);
      if (j->p >= j->end || *j->p != ':')
	return json_error (j, "expected ':' after a key");
      j->p++;
      json_ws (j);
      const char *value = j->p;
      if (!json_value (j, false))
	return false;
      if (is_status)
	{
	  if (j->status != NULL)
	    return json_error (j, "two \"status\" keys");
	  if (*value == '"')
	    {
	      j->status = value + 1;
	      j->status_len = (size_t) (j->p - value) - 2;
	    }
	}
      if (is_size_after)
	{
	  if (j->has_size_after)
	    return json_error (j, "two \"size_after\" keys");
	  uint64_t v = 0;
	  for (const char *d = value; d < j->p; d++)
	    {
	      if (*d < '0' || *d > '9' || v > (UINT64_MAX - 9) / 10)
		return json_error (j, "\"size_after\" is not a plain integer");
	      v = v * 10 + (uint64_t) (*d - '0');
	    }
	  j->has_size_after = true;
	  j->size_after = v;
	}
      json_ws (j);
      if (j->p < j->end && *j->p == ',')
	{
	  j->p++;
	  continue;
	}
      if (j->p < j->end && *j->p == '}')
	{
	  j->p++;
	  return true;
	}
      return json_error (j, "expected ',' or '}' in an object");
    }
}

static bool
json_array (struct json *j)
{
  j->p++;			/* '[' */
  json_ws (j);
  if (j->p < j->end && *j->p == ']')
    {
      j->p++;
      return true;
    }
  for (;;)
    {
      json_ws (j);
      if (!json_value (j, false))
	return false;
      json_ws (j);
      if (j->p < j->end && *j->p == ',')
	{
	  j->p++;
	  continue;
	}
      if (j->p < j->end && *j->p == ']')
	{
	  j->p++;
	  return true;
	}
      return json_error (j, "expected ',' or ']' in an array");
    }
}

static bool
json_value (struct json *j, bool top)
{
  if (j->p >= j->end)
    return json_error (j, "expected a value");
  bool ok, escaped;
  switch (*j->p)
    {
    case '{':
      if (++j->depth > JSON_MAX_DEPTH)
	return json_error (j, "nested too deeply");
      ok = json_object (j, top);
      j->depth--;
      return ok;
    case '[':
      if (++j->depth > JSON_MAX_DEPTH)
	return json_error (j, "nested too deeply");
      ok = json_array (j);
      j->depth--;
      return ok;
    case '"':
      return json_string (j, &escaped);
    case 't':
      return json_literal (j, "true");
    case 'f':
      return json_literal (j, "false");
    case 'n':
      return json_literal (j, "null");
    default:
      if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
	return json_number (j);
      return json_error (j, "unexpected character");
    }
}

/* Check that LINE (LEN bytes, no newline) is one JSON object; return its
   top-level "status" (NUL-terminated copy in BUF) and "size_after"
   (UINT64_MAX when absent).  */
static void
check_json_line (const char *line, size_t len, char *buf, size_t buflen, uint64_t *size_after)
{
  struct json j = { .p = line, .end = line + len };
  if (memchr (line, '\0', len) != NULL)
    fail ("JSON report contains a NUL byte");
  json_ws (&j);
  if (j.p >= j.end || *j.p != '{')
    fail ("JSON report line is not an object: %.*s", (int) len, line);
  if (!json_value (&j, true))
    fail ("JSON report does not parse (%s at byte %td): %.*s", j.why, j.p - line, (int) len,
	  line);
  json_ws (&j);
  if (j.p != j.end)
    fail ("JSON report has trailing bytes after the object at byte %td: %.*s", j.p - line,
	  (int) len, line);
  if (j.status == NULL)
    fail ("JSON report has no plain string \"status\": %.*s", (int) len, line);
  if (j.status_len >= buflen)
    fail ("JSON \"status\" is too long: %.*s", (int) len, line);
  memcpy (buf, j.status, j.status_len);
  buf[j.status_len] = '\0';
  *size_after = j.has_size_after ? j.size_after : UINT64_MAX;
}

/* One call of process_file and the checks that hold after every call.  */

struct result
{
  int rc;
  char status[64];		/* JSON "status", or "" for other formats */
  uint64_t size_after;		/* JSON "size_after", or UINT64_MAX */
  char error[512];		/* the error text, for the messages */
};

static bool
contains (const char *hay, size_t len, const char *needle)
{
  size_t n = strlen (needle);
  if (n > len)
    return false;
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp (hay + i, needle, n) == 0)
      return true;
  return false;
}

static void
check_input_unchanged (void)
{
  int fd = open (in_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail ("the input file is gone: %s", strerror (errno));
  struct stat st;
  if (fstat (fd, &st) != 0)
    die_errno ("fstat");
  if (!S_ISREG (st.st_mode))
    fail ("the input is no longer a regular file");
  if ((uint64_t) st.st_size != cur_size)
    fail ("the input's size changed from %zu to %lld", cur_size, (long long) st.st_size);
  static uint8_t *buf;
  static size_t buflen;
  if (buflen < cur_size)
    {
      free (buf);
      buf = malloc (cur_size);
      if (buf == NULL)
	die_errno ("malloc");
      buflen = cur_size;
    }
  size_t got = 0;
  while (got < cur_size)
    {
      ssize_t n = read (fd, buf + got, cur_size - got);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	die_errno ("read");
      if (n == 0)
	fail ("the input is shorter than written");
      got += (size_t) n;
    }
  close (fd);
  if (cur_size != 0 && memcmp (buf, cur_data, cur_size) != 0)
    {
      size_t i = 0;
      while (buf[i] == cur_data[i])
	i++;
      fail ("the input changed, first at byte %#zx", i);
    }
}

static void
check_no_temporaries (void)
{
  DIR *d = opendir (dir_path);
  if (d == NULL)
    die_errno ("opendir");
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    if (strncmp (e->d_name, ".elfpmd.", 8) == 0)
      {
	char name[256];
	snprintf (name, sizeof name, "%s", e->d_name);
	closedir (d);
	fail ("temporary file %s left behind", name);
      }
  closedir (d);
}

static void
run (const char *call, const char *name, const struct run_options *opts, struct result *res)
{
  size_t replen = 0, errlen = 0;
  FILE *report = open_memstream (&cur_rep, &replen);
  FILE *errors = open_memstream (&cur_err, &errlen);
  if (report == NULL || errors == NULL)
    die_errno ("open_memstream");

  cur_call = call;
  cur_opts = opts;
  res->rc = process_file (name, opts, report, errors);
  res->status[0] = '\0';
  res->size_after = UINT64_MAX;
  res->error[0] = '\0';
  if (fclose (report) != 0 || fclose (errors) != 0)
    die_errno ("fclose of a memory stream");

  snprintf (res->error, sizeof res->error, "%.*s", (int) (errlen != 0 ? errlen - 1 : 0), cur_err);
  /* (a) No internal error, ever.  */
  if (contains (cur_err, errlen, "internal error"))
    fail ("error text says internal error: %.*s", (int) errlen, cur_err);
  /* The error text: one line "elfpmd: NAME: reason" exactly when it failed.  */
  if (res->rc != 0 && res->rc != 1)
    fail ("process_file returned %d", res->rc);
  if (res->rc == 0 && errlen != 0)
    fail ("process_file succeeded with error text: %.*s", (int) errlen, cur_err);
  if (res->rc == 1)
    {
      char prefix[512];
      snprintf (prefix, sizeof prefix, "elfpmd: %s: ", name);
      if (errlen <= strlen (prefix) || strncmp (cur_err, prefix, strlen (prefix)) != 0)
	fail ("failed without the error line \"%s...\": %.*s", prefix, (int) errlen, cur_err);
      if (cur_err[errlen - 1] != '\n' || memchr (cur_err, '\n', errlen - 1) != NULL)
	fail ("error text is not exactly one line: %.*s", (int) errlen, cur_err);
    }

  /* (b) The JSON report: one line, one strict JSON object.  */
  if (opts->format == REPORT_JSON)
    {
      if (replen == 0 || cur_rep[replen - 1] != '\n')
	fail ("JSON report does not end with a newline: %.*s", (int) replen, cur_rep);
      if (memchr (cur_rep, '\n', replen - 1) != NULL)
	fail ("JSON report is more than one line: %.*s", (int) replen, cur_rep);
      check_json_line (cur_rep, replen - 1, res->status, sizeof res->status, &res->size_after);
      bool is_error = strcmp (res->status, "error") == 0;
      if (is_error != (res->rc == 1))
	fail ("JSON status \"%s\" but process_file returned %d", res->status, res->rc);
      if (contains (cur_rep, replen, "internal error"))
	fail ("JSON report says internal error: %.*s", (int) replen, cur_rep);
    }
  else if (contains (cur_rep, replen, "internal error"))
    fail ("report says internal error: %.*s", (int) replen, cur_rep);

  free (cur_rep);
  free (cur_err);
  cur_rep = cur_err = NULL;

  /* (e) and (f) after every call.  */
  check_input_unchanged ();
  check_no_temporaries ();
}

/* A written output: (c) its size, (d) a second run changes nothing.  */
static void
check_output (const char *call, const struct run_options *wopts, const struct result *wres)
{
  struct stat st;
  if (wres->rc != 0)
    {
      if (lstat (out_path, &st) == 0)
	fail ("a failed -o left an output file");
      return;
    }
  if (lstat (out_path, &st) != 0)
    fail ("-o succeeded but wrote no output: %s", strerror (errno));
  if (!S_ISREG (st.st_mode))
    fail ("-o wrote something other than a regular file");
  if (st.st_size > (off_t) cur_size + FUZZ_MAX_GROWTH)
    fail ("the output has %lld bytes, more than the input's %zu + 64 MiB", (long long) st.st_size,
	  cur_size);
  if (wres->size_after != UINT64_MAX && (uint64_t) st.st_size != wres->size_after)
    fail ("the output has %lld bytes, the report's size_after says %llu", (long long) st.st_size,
	  (unsigned long long) wres->size_after);

  struct run_options again = *wopts;
  again.dry_run = true;
  again.output = NULL;
  again.format = REPORT_JSON;
  struct result r;
  char name[64];
  snprintf (name, sizeof name, "%s, again", call);
  run (name, out_path, &again, &r);
  if (r.rc != 0)
    fail ("idempotence: the output of a successful write is rejected (status \"%s\")", r.status);
  if (strcmp (r.status, "would change") == 0 || strcmp (r.status, "changed") == 0)
    fail ("idempotence: a second run on the output %s (first run: \"%s\")", r.status,
	  wres->status);
}

/* A dry run and a write with the same options agree: both fail or neither,
   "would change" where the write says "changed", the same status otherwise,
   and the same size_after.  */
static void
check_agree (const char *call, const struct result *dry, const struct result *wr)
{
  cur_call = call;
  if (dry->rc != wr->rc)
    fail ("the dry run returned %d (\"%s\"), the write %d (\"%s\"): %s", dry->rc, dry->status,
	  wr->rc, wr->status, dry->rc != 0 ? dry->error : wr->error);
  const char *want = strcmp (wr->status, "changed") == 0 ? "would change" : wr->status;
  if (strcmp (dry->status, want) != 0)
    fail ("the dry run says \"%s\", the write \"%s\"", dry->status, wr->status);
  if (dry->size_after != wr->size_after)
    fail ("the dry run's size_after is %llu, the write's %llu",
	  (unsigned long long) dry->size_after, (unsigned long long) wr->size_after);
}

static uint64_t
fnv1a (const uint8_t *data, size_t size)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++)
    h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

static void
write_input (const uint8_t *data, size_t size)
{
  int fd = open (in_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0)
    die_errno ("open the input for writing");
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (fd, data + done, size - done);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	die_errno ("write the input");
      done += (size_t) n;
    }
  if (close (fd) != 0)
    die_errno ("close the input");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > FUZZ_MAX_INPUT)
    return 0;
  setup_once ();
  cur_data = data;
  cur_size = size;
  write_input (data, size);
  if (unlink (out_path) != 0 && errno != ENOENT)
    die_errno ("unlink the output");

  /* The options every call shares, from a hash of the input.  */
  uint64_t h = fnv1a (data, size);
  static const uint64_t pmd_sizes[] = { 0, 64 << 10, 64 << 10, 16 << 10 };
  static const uint64_t populate[] = { 64, 0, 1, 4096 };
  struct run_options base = {
    .rule = (h >> 2 & 3) == 3 ? ALIGN_RULE_KERNEL : ALIGN_RULE_RELAXED,
    .pmd_size = pmd_sizes[h & 3],
    .page_size = (h >> 4 & 15) == 15 ? 64 << 10 : 0,
    .dry_run = true,
    .sync = false,
    .pad = (h >> 8 & 3) != 3,
    .stub.wanted = false,
    .stub.populate_max = populate[h >> 10 & 3],
    .output = NULL,
    .format = REPORT_JSON,
  };
  /* The command line refuses --pmd-size below --page-size.  */
  if (base.pmd_size != 0 && base.pmd_size < base.page_size)
    base.page_size = 0;
  struct result r, dry, drymad;
  if (setjmp (skip_input) != 0)
    {
      /* A known finding (FUZZ_ELFPMD_KNOWN): skip the rest of this input.  */
      skip_armed = false;
      unlink (out_path);
      return 0;
    }
  skip_armed = true;

  run ("dry run, JSON", in_path, &base, &dry);

  /* The text reports: the full one, for one input in four the summary.  */
  struct run_options full = base;
  full.format = (h >> 12 & 3) == 3 ? REPORT_SUMMARY : REPORT_FULL;
  run (full.format == REPORT_FULL ? "dry run, full report" : "dry run, summary", in_path, &full, &r);

  struct run_options mad = base;
  mad.stub.wanted = true;
  run ("dry run, --madvise", in_path, &mad, &drymad);

  struct run_options wr = base;
  wr.dry_run = false;
  wr.output = out_path;
  run ("-o", in_path, &wr, &r);
  check_agree ("-o", &dry, &r);
  check_output ("-o", &wr, &r);
  if (unlink (out_path) != 0 && errno != ENOENT)
    die_errno ("unlink the output");

  struct run_options wrmad = wr;
  wrmad.stub.wanted = true;
  run ("-o --madvise", in_path, &wrmad, &r);
  check_agree ("-o --madvise", &drymad, &r);
  check_output ("-o --madvise", &wrmad, &r);
  if (unlink (out_path) != 0 && errno != ENOENT)
    die_errno ("unlink the output");

  skip_armed = false;
  cur_call = NULL;
  cur_opts = NULL;
  return 0;
}
