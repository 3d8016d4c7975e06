/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The manifest's file format (manifest_file.h).

   One line per file rewritten, appended with one write(2) so that runs at
   once do not interleave:
     {"action":"convert","file":"/usr/bin/x","file_hex":"2f7573...",
      "sha256_before":"...","sha256_after":"...","size_before":N,
      "size_after":N,"options":["--madvise"],"originals_hex":"2f7661...",
      "elfpmd":"VERSION"}
   and, for a file revert put back,
     {"action":"revert","file":...,"file_hex":...,"sha256":"..."}
   The last line of a file (by file_hex, its name's bytes) is its state.
   The readers here take only the keys they wrote, in that order.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest_file.h"
#include "report.h"
#include "trust.h"

/* --- Writing.  */

static void
put_hex (FILE *out, const char *key, const unsigned char *p, size_t n)
{
  fprintf (out, ",\"%s\":\"", key);
  for (size_t i = 0; i < n; i++)
    fprintf (out, "%02x", p[i]);
  fputc ('"', out);
}

int
manifest_record_format (const struct manifest_record *r, char **line, size_t *len)
{
  *line = NULL;
  *len = 0;
  FILE *out = open_memstream (line, len);
  if (out == NULL)
    return -1;
  /* The name as text (each byte that is not UTF-8 as U+FFFD), then its
     bytes, always: json_name would add a second file_hex for a name that
     is not UTF-8, as elfpmd 0.2.0 wrote it.  */
  fprintf (out, "{\"action\":\"%s\",\"file\":", r->revert ? "revert" : "convert");
  json_string (out, r->file);
  put_hex (out, "file_hex", (const unsigned char *) r->file, strlen (r->file));
  if (r->revert)
    fprintf (out, ",\"sha256\":\"%s\"", r->after);
  else
    {
      fprintf (out, ",\"sha256_before\":\"%s\",\"sha256_after\":\"%s\"", r->before, r->after);
      fprintf (out, ",\"size_before\":%" PRIu64 ",\"size_after\":%" PRIu64, r->size_before,
	       r->size_after);
      fputs (",\"options\":[", out);
      for (size_t i = 0; i < r->noptions; i++)
	{
	  if (i != 0)
	    fputc (',', out);
	  json_string (out, r->options[i]);
	}
      fputc (']', out);
      if (r->originals != NULL)
	put_hex (out, "originals_hex", (const unsigned char *) r->originals,
		 strlen (r->originals));
    }
  fputs (",\"elfpmd\":\"" PACKAGE_VERSION "\"}\n", out);
  if (fclose (out) != 0)
    {
      free (*line);
      *line = NULL;
      return -1;
    }
  return 0;
}

int
manifest_append (int fd, const char *line, size_t len, struct diag *err)
{
  for (size_t done = 0; done < len;)
    {
      ssize_t put = write (fd, line + done, len - done);
      if (put < 0 && errno == EINTR)
	continue;
      if (put <= 0)
	return diag_set (err, "%s", put < 0 ? strerror (errno) : "short write");
      done += (size_t) put;
    }
  return 0;
}

/* --- Reading.  */

/* The lowercase hexadecimal string value of KEY in LINE ("KEY":"..."):
   where it starts, its length into *LEN; NULL when KEY is missing or its
   value is not such a string.  */
static const char *
hex_value (const char *line, const char *key, size_t *len)
{
  char pat[64];
  snprintf (pat, sizeof pat, "\"%s\":\"", key);
  const char *p = strstr (line, pat);
  if (p == NULL)
    return NULL;
  p += strlen (pat);
  *len = strspn (p, "0123456789abcdef");
  return p[*len] == '"' ? p : NULL;
}

/* The bytes of the hexadecimal string value of KEY in LINE, NUL ended,
   or NULL (missing, malformed, or out of memory).  */
static char *
get_hex (const char *line, const char *key)
{
  size_t n;
  const char *p = hex_value (line, key, &n);
  if (p == NULL || n % 2 != 0 || n == 0)
    return NULL;
  char *s = malloc (n / 2 + 1);
  if (s == NULL)
    return NULL;
  for (size_t i = 0; i < n / 2; i++)
    {
      unsigned v;
      sscanf (p + 2 * i, "%2x", &v);
      s[i] = (char) v;
    }
  s[n / 2] = '\0';
  if (strlen (s) != n / 2)
    {
      free (s);
      return NULL;		/* a NUL inside: no name */
    }
  return s;
}

/* The 64-digit hash after "KEY":" into OUT; false if missing.  */
static bool
get_hash (const char *line, const char *key, char out[65])
{
  size_t n;
  const char *p = hex_value (line, key, &n);
  if (p == NULL || n != 64)
    return false;
  memcpy (out, p, 64);
  out[64] = '\0';
  return true;
}

/* The number after "KEY": in LINE; 0 when missing or malformed.  */
static uint64_t
get_size (const char *line, const char *key)
{
  char pat[64];
  snprintf (pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr (line, pat);
  if (p == NULL)
    return 0;
  p += strlen (pat);
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; p++)
    {
      if (v > (UINT64_MAX - 9) / 10)
	return 0;
      v = v * 10 + (uint64_t) (*p - '0');
    }
  return *p == ',' || *p == '}' ? v : 0;
}

bool
manifest_option_allowed (const char *opt)
{
  static const char *const plain[] = {
    "--rule=kernel", "--no-pad", "--madvise", "--madvise=copy", "--move-table", "-p", "--no-sync",
  };
  static const char *const sized[] = {
    "--pmd-size=", "--page-size=", "--populate-max=", "--copy-max=",
  };
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
    if (strcmp (opt, plain[i]) == 0)
      return true;
  for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++)
    {
      size_t n = strlen (sized[i]);
      const char *v = opt + n;
      if (strncmp (opt, sized[i], n) == 0 && v[0] >= '1' && v[0] <= '9' && strlen (v) <= 20
	  && strspn (v, "0123456789") == strlen (v))
	return true;
    }
  return false;
}

/* The options array of LINE (strings without quotes or backslashes, as
   elfpmd writes them, each one manifest_option_allowed accepts) into R;
   the first one refused into *BAD (NULL when the array is malformed).  */
static bool
get_options (const char *line, struct manifest_record *r, char **bad)
{
  const char *p = strstr (line, "\"options\":[");
  if (p == NULL)
    return false;
  p += strlen ("\"options\":[");
  while (*p == '"')
    {
      const char *end = strchr (p + 1, '"');
      if (end == NULL || memchr (p + 1, '\\', (size_t) (end - p - 1)) != NULL)
	return false;
      char **grown = realloc (r->options, (r->noptions + 1) * sizeof *grown);
      if (grown == NULL)
	return false;
      r->options = grown;
      r->options[r->noptions] = strndup (p + 1, (size_t) (end - p - 1));
      if (r->options[r->noptions] == NULL || !manifest_option_allowed (r->options[r->noptions]))
	{
	  *bad = r->options[r->noptions];
	  return false;
	}
      r->noptions++;
      p = end + 1;
      if (*p == ',')
	p++;
    }
  return *p == ']';
}

void
manifest_record_free (struct manifest_record *r)
{
  free (r->file);
  for (size_t i = 0; i < r->noptions; i++)
    free (r->options[i]);
  free (r->options);
  free (r->originals);
}

void
manifest_records_free (struct manifest_record *v, long n)
{
  for (long k = 0; k < n; k++)
    manifest_record_free (&v[k]);
  free (v);
}

/* LINE, a line of the manifest, into *R.  Return 0, or -1 with the
   reason in *ERR (and what R got freed).  */
static int
parse_line (const char *line, struct manifest_record *r, struct diag *err)
{
  *r = (struct manifest_record) { 0 };
  r->revert = strncmp (line, "{\"action\":\"revert\"", 18) == 0;
  bool ok = r->revert || strncmp (line, "{\"action\":\"convert\"", 19) == 0;
  r->file = ok ? get_hex (line, "file_hex") : NULL;
  char *bad = NULL;
  if (r->revert)
    ok = r->file != NULL && get_hash (line, "sha256", r->after);
  else
    ok = ok && r->file != NULL && get_hash (line, "sha256_before", r->before)
	 && get_hash (line, "sha256_after", r->after) && get_options (line, r, &bad);
  if (ok && !r->revert)
    r->size_after = get_size (line, "size_after");
  if (ok && !r->revert && strstr (line, "\"originals_hex\":\"") != NULL)
    ok = (r->originals = get_hex (line, "originals_hex")) != NULL;
  /* Absolute names only: a relative one would be resolved against
     whatever directory reapply runs in.  */
  if (ok && (r->file[0] != '/' || (r->originals != NULL && r->originals[0] != '/')))
    diag_set (err, "a name that is not absolute");
  else if (!ok && bad != NULL)
    diag_set (err, "the option '%s' is not one elfpmd records", bad);
  else if (!ok)
    diag_set (err, "not an entry elfpmd wrote");
  free (bad);
  if (err->msg[0] == '\0')
    return 0;
  manifest_record_free (r);
  return -1;
}

long
manifest_read (const char *path, struct manifest_record **records, size_t *lineno,
	       struct diag *err)
{
  *lineno = 0;
  struct stat st;
  int fd = trust_open_path (path, &st, err);
  FILE *f = fd >= 0 ? fdopen (fd, "r") : NULL;
  if (f == NULL)
    {
      if (fd >= 0)
	{
	  diag_set (err, "%s", strerror (errno));
	  close (fd);
	}
      return -1;
    }
  struct manifest_record *v = NULL;
  size_t n = 0, at = 0;
  char *line = NULL;
  size_t cap = 0;
  long ret = 0;
  while (getline (&line, &cap, f) > 0)
    {
      at++;
      struct manifest_record r;
      if (parse_line (line, &r, err) != 0)
	{
	  *lineno = at;
	  ret = -1;
	  break;
	}
      size_t k = 0;
      while (k < n && strcmp (v[k].file, r.file) != 0)
	k++;
      if (k < n)
	{
	  manifest_record_free (&v[k]);
	  v[k] = r;
	  continue;
	}
      struct manifest_record *grown = realloc (v, (n + 1) * sizeof *grown);
      if (grown == NULL)
	{
	  manifest_record_free (&r);
	  ret = diag_set (err, "out of memory");
	  break;
	}
      v = grown;
      v[n++] = r;
    }
  free (line);
  fclose (f);
  if (ret < 0)
    {
      manifest_records_free (v, (long) n);
      return -1;
    }
  *records = v;
  return (long) n;
}
