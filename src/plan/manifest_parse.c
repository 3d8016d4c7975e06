/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A manifest record's rules (manifest_option_allowed, manifest_record_free)
   and a line of the manifest read back (manifest_parse_line, all in
   manifest_file.h): parsed by Jansson, then taken only when it is exactly
   what manifest_record_format writes: the keys of its action
   and no other, each once, each of its type, the hexadecimal strings
   lowercase, the names absolute and without a NUL, "file" the text of
   "file_hex", the sizes integers from 0 to 2^63 - 1, the options those
   manifest_option_allowed accepts.  (Jansson's json_string is not
   report.h's: this file includes only the first.)  */
#include <config.h>

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "manifest_file.h"
#include "utf8.h"

/* The record: which options a line may hold, and freeing one.  */

bool
manifest_option_allowed (const char *opt)
{
  static const char *const plain[] = {
    "--rule=kernel", "--no-pad", "--madvise", "--madvise=copy", "--move-table", "-p", "--no-sync",
    "--build-id=keep", "--build-id=derive",
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

void
manifest_record_free (struct manifest_record *r)
{
  free (r->file);
  for (size_t i = 0; i < r->noptions; i++)
    free (r->options[i]);
  free (r->options);
  free (r->originals);
}

/* Jansson's hash tables seeded from getrandom(2), before its first use
   would seed them from /dev/urandom: elfpmd opens no device.  */
static void
seed_once (void)
{
  static bool seeded;
  size_t seed = 0;
  if (seeded)
    return;
  seeded = true;
  if (getrandom (&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t) sizeof seed || seed == 0)
    seed = (size_t) getpid () << 16 ^ (size_t) time (NULL);
  json_object_seed (seed != 0 ? seed : 1);
}

/* The hexadecimal string V (N digits) as bytes, NUL ended, into a new
   string *OUT.  Return 0, or -1 when V is not an even, non-empty number
   of lowercase hexadecimal digits, holds a NUL byte, or memory runs out
   (*OOM).  */
static int
from_hex (const char *v, size_t n, char **out, bool *oom)
{
  if (n == 0 || n % 2 != 0 || strspn (v, "0123456789abcdef") != n)
    return -1;
  char *s = malloc (n / 2 + 1);
  if (s == NULL)
    {
      *oom = true;
      return -1;
    }
  for (size_t i = 0; i < n / 2; i++)
    {
      int hi = v[2 * i] <= '9' ? v[2 * i] - '0' : v[2 * i] - 'a' + 10;
      int lo = v[2 * i + 1] <= '9' ? v[2 * i + 1] - '0' : v[2 * i + 1] - 'a' + 10;
      s[i] = (char) (hi << 4 | lo);
      if (s[i] == '\0')
	{
	  free (s);
	  return -1;		/* a NUL inside: no name */
	}
    }
  s[n / 2] = '\0';
  *out = s;
  return 0;
}

/* Whether TEXT (LEN bytes) is NAME as json_string writes it, unescaped:
   its valid UTF-8 as it is, each other byte as U+FFFD.  */
static bool
names_text (const char *text, size_t len, const char *name)
{
  static const char fffd[3] = { (char) 0xef, (char) 0xbf, (char) 0xbd };
  size_t at = 0;
  for (const unsigned char *c = (const unsigned char *) name; *c != '\0';)
    {
      size_t n = utf8_length (c);
      const char *want = n != 0 ? (const char *) c : fffd;
      size_t wn = n != 0 ? n : 3;
      if (len - at < wn || memcmp (text + at, want, wn) != 0)
	return false;
      at += wn;
      c += n != 0 ? n : 1;
    }
  return at == len;
}

/* The options array A into R: each one manifest_option_allowed accepts,
   else the first refused into *BAD (a copy, NULL when out of memory).  */
static int
get_options (const json_t *a, struct manifest_record *r, char **bad, bool *oom)
{
  size_t n = json_array_size (a);
  r->options = calloc (n + 1, sizeof *r->options);
  if (r->options == NULL)
    {
      *oom = true;
      return -1;
    }
  for (size_t i = 0; i < n; i++)
    {
      const json_t *o = json_array_get (a, i);
      if (!json_is_string (o))
	return -1;
      const char *v = json_string_value (o);
      if (strlen (v) != json_string_length (o) || !manifest_option_allowed (v))
	{
	  *bad = strdup (v);
	  *oom = *bad == NULL;
	  return -1;
	}
      if ((r->options[i] = strdup (v)) == NULL)
	{
	  *oom = true;
	  return -1;
	}
      r->noptions++;
    }
  return 0;
}

/* The keys of a convert line and of a revert line, each with its JSON
   type; originals_hex is the only one that may be missing.  */
struct key
{
  const char *name;
  json_type type;
};
static const struct key convert_keys[] = {
  { "action", JSON_STRING }, { "file", JSON_STRING }, { "file_hex", JSON_STRING },
  { "sha256_before", JSON_STRING }, { "sha256_after", JSON_STRING },
  { "size_before", JSON_INTEGER }, { "size_after", JSON_INTEGER }, { "options", JSON_ARRAY },
  { "originals_hex", JSON_STRING }, { "elfpmd", JSON_STRING },
};
static const struct key revert_keys[] = {
  { "action", JSON_STRING }, { "file", JSON_STRING }, { "file_hex", JSON_STRING },
  { "sha256", JSON_STRING }, { "elfpmd", JSON_STRING },
};

/* Whether the object O has exactly the keys of KEYS (N of them; OPTIONAL
   may be missing), each of its type.  */
static bool
has_keys (const json_t *o, const struct key *keys, size_t n, const char *optional)
{
  size_t present = 0;
  for (size_t i = 0; i < n; i++)
    {
      const json_t *v = json_object_get (o, keys[i].name);
      if (v == NULL && strcmp (keys[i].name, optional) == 0)
	continue;
      if (v == NULL || json_typeof (v) != keys[i].type)
	return false;
      present++;
    }
  return json_object_size (o) == present;
}

/* The 64 lowercase hexadecimal digits of the string V into OUT; false
   when it is not such a string.  */
static bool
get_hash (const json_t *v, char out[65])
{
  const char *s = json_string_value (v);
  if (json_string_length (v) != 64 || strspn (s, "0123456789abcdef") != 64)
    return false;
  memcpy (out, s, 65);
  return true;
}

/* What json_loadb's error E was, in words that quote nothing of the
   line.  */
static const char *
json_reason (const json_error_t *e)
{
  switch (json_error_code (e))
    {
    case json_error_duplicate_key:
      return "a key twice";
    case json_error_invalid_utf8:
      return "text that is not UTF-8";
    case json_error_numeric_overflow:
      return "a number too large";
    case json_error_null_character:
    case json_error_null_byte_in_key:
      return "a NUL character";
    case json_error_stack_overflow:
      return "nested too deep";
    case json_error_out_of_memory:
      return "out of memory";
    default:
      return "not JSON";
    }
}

/* elfpmd 0.2.0 wrote the key file_hex twice, the same value at once after
   the first, for a name that is not UTF-8 (json_name's and its own).
   Whether LINE (LEN bytes) has that: then the second copy is cut out of
   it, and *LEN is the new length.  */
static bool
cut_legacy_file_hex (char *line, size_t *len)
{
  static const char key[] = ",\"file_hex\":\"";
  char *p = memmem (line, *len, key, sizeof key - 1);
  if (p == NULL)
    return false;
  const char *v = p + sizeof key - 1, *end = line + *len;
  size_t digits = strspn (v, "0123456789abcdef");
  if (digits > (size_t) (end - v) || v[digits] != '"')
    return false;
  size_t n = (size_t) (v + digits + 1 - p);
  if ((size_t) (end - (p + n)) < n || memcmp (p, p + n, n) != 0)
    return false;
  memmove (p + n, p + 2 * n, (size_t) (end - (p + 2 * n)));
  *len -= n;
  line[*len] = '\0';
  return true;
}

/* The object O, a line parsed, into *R.  Return 0, or -1 with the
   reason in *ERR.  */
static int
take_record (const json_t *o, struct manifest_record *r, struct diag *err)
{
  const char *action = json_string_value (json_object_get (o, "action"));
  r->revert = action != NULL && strcmp (action, "revert") == 0;
  bool convert = action != NULL && strcmp (action, "convert") == 0;
  if (!r->revert && !convert)
    return diag_set (err, "not an entry elfpmd wrote (no action it writes)");
  if (r->revert ? !has_keys (o, revert_keys, sizeof revert_keys / sizeof revert_keys[0], "")
      : !has_keys (o, convert_keys, sizeof convert_keys / sizeof convert_keys[0], "originals_hex"))
    return diag_set (err, "not an entry elfpmd wrote (not its keys, each once, of their types)");
  bool oom = false;
  const json_t *file = json_object_get (o, "file"), *hex = json_object_get (o, "file_hex");
  const json_t *orig = json_object_get (o, "originals_hex");
  char *bad = NULL;
  const char *why = NULL;
  if (from_hex (json_string_value (hex), json_string_length (hex), &r->file, &oom) != 0)
    why = "file_hex is not a name's bytes";
  else if (!names_text (json_string_value (file), json_string_length (file), r->file))
    why = "file is not the text of file_hex";
  else if (r->revert ? !get_hash (json_object_get (o, "sha256"), r->after)
	   : !get_hash (json_object_get (o, "sha256_before"), r->before)
	   || !get_hash (json_object_get (o, "sha256_after"), r->after))
    why = "a SHA-256 that is not 64 lowercase hexadecimal digits";
  else if (!r->revert && (json_integer_value (json_object_get (o, "size_before")) < 0
			  || json_integer_value (json_object_get (o, "size_after")) < 0))
    why = "a negative size";
  else if (!r->revert && get_options (json_object_get (o, "options"), r, &bad, &oom) != 0)
    why = "an option that is not a string";
  else if (orig != NULL
	   && from_hex (json_string_value (orig), json_string_length (orig), &r->originals, &oom) != 0)
    why = "originals_hex is not a name's bytes";
  if (oom)
    return diag_set (err, "out of memory");
  if (bad != NULL)
    {
      /* Quoted only when it is a short line of printable ASCII.  */
      bool plain = strlen (bad) <= 64;
      for (const char *c = bad; *c != '\0' && plain; c++)
	plain = *c >= 0x20 && *c < 0x7f;
      if (plain)
	diag_set (err, "the option '%s' is not one elfpmd records", bad);
      else
	diag_set (err, "an option that elfpmd does not record");
      free (bad);
      return -1;
    }
  if (why != NULL)
    return diag_set (err, "not an entry elfpmd wrote (%s)", why);
  /* Absolute names only: a relative one would be resolved against
     whatever directory reapply runs in.  */
  if (r->file[0] != '/' || (r->originals != NULL && r->originals[0] != '/'))
    return diag_set (err, "a name that is not absolute");
  r->size_before = (uint64_t) json_integer_value (json_object_get (o, "size_before"));
  r->size_after = (uint64_t) json_integer_value (json_object_get (o, "size_after"));
  return 0;
}

int
manifest_parse_line (char *line, size_t len, struct manifest_record *r, struct diag *err)
{
  *r = (struct manifest_record) { 0 };
  seed_once ();
  json_error_t je;
  json_t *o = json_loadb (line, len, JSON_REJECT_DUPLICATES, &je);
  if (o == NULL && json_error_code (&je) == json_error_duplicate_key
      && cut_legacy_file_hex (line, &len))
    o = json_loadb (line, len, JSON_REJECT_DUPLICATES, &je);
  int ret;
  if (o == NULL)
    ret = json_error_code (&je) == json_error_out_of_memory ? diag_set (err, "out of memory")
      : diag_set (err, "not an entry elfpmd wrote (%s, at byte %d)", json_reason (&je),
		  je.position);
  else if (!json_is_object (o))
    ret = diag_set (err, "not an entry elfpmd wrote (not a JSON object)");
  else
    ret = take_record (o, r, err);
  json_decref (o);
  if (ret != 0)
    manifest_record_free (r);
  return ret;
}
