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
   Reading takes only what the writer writes (manifest_parse.c), one line
   of at most MANIFEST_LINE_MAX bytes at a time.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest_file.h"
#include "sha256.h"
#include "safe_open.h"
#include "place.h"
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

void
manifest_records_free (struct manifest_record *v, long n)
{
  for (long k = 0; k < n; k++)
    manifest_record_free (&v[k]);
  free (v);
}

/* The next line of F, its newline cut, into BUF (MANIFEST_LINE_MAX + 1
   bytes), its length into *LEN.  Return 1 for a line, 0 at the end, -1
   for a line longer than MANIFEST_LINE_MAX bytes, -2 for a read error
   (errno set).  */
static int
read_line (FILE *f, char *buf, size_t *len)
{
  size_t n = 0;
  int c;
  while ((c = getc (f)) != EOF && c != '\n')
    {
      if (n == MANIFEST_LINE_MAX)
	return -1;
      buf[n++] = (char) c;
    }
  if (c == EOF && ferror (f))
    return -2;
  if (c == EOF && n == 0)
    return 0;
  buf[n] = '\0';
  *len = n;
  return 1;
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
  size_t n = 0, at = 0, len;
  char *line = malloc (MANIFEST_LINE_MAX + 1);
  long ret = line == NULL ? diag_set (err, "out of memory") : 0;
  int got = 0;
  while (ret == 0 && (got = read_line (f, line, &len)) != 0)
    {
      at++;
      struct manifest_record r;
      if (got < 0)
	{
	  *lineno = got == -1 ? at : 0;
	  ret = got == -1 ? diag_set (err, "not an entry elfpmd wrote (longer than %d bytes)",
				      MANIFEST_LINE_MAX)
	    : diag_set (err, "cannot read it: %s", strerror (errno));
	  break;
	}
      if (manifest_parse_line (line, len, &r, err) != 0)
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

int
manifest_file_state (const char *path, struct place *pl, struct stat *st, char hex[65], bool *gone,
	 bool *elf, int *keep, uint64_t size_want, uint64_t max_size, struct diag *err)
{
  hex[0] = '\0';
  if (keep != NULL)
    *keep = -1;
  *gone = false;
  *elf = false;
  place_init (pl);
  if (place_resolve (pl, path, false, err) != 0)
    {
      *gone = errno == ENOENT;
      return -1;
    }
  int fd = open_regular (pl->dirfd, pl->base, false, st, err);
  if (fd < 0)
    {
      *gone = errno == ENOENT;
      return -1;
    }
  unsigned char d[32], magic[4];
  *elf = pread (fd, magic, 4, 0) == 4 && memcmp (magic, "\177ELF", 4) == 0;
  if (max_size != 0 && (uint64_t) st->st_size > max_size)
    {
      close (fd);
      return diag_set (err, "larger than --max-size (%jd bytes, %" PRIu64 " at most)",
		       (intmax_t) st->st_size, max_size);
    }
  if (size_want != 0 && (uint64_t) st->st_size != size_want)
    {
      if (keep != NULL)
	*keep = fd;
      else
	close (fd);
      return 0;
    }
  int r = sha256_fd (fd, d);
  int e = errno;
  if (r == 0 && keep != NULL)
    *keep = fd;
  else
    close (fd);
  if (r != 0)
    return diag_set (err, "cannot read it: %s", strerror (e));
  sha256_hex (d, hex);
  return 0;
}
