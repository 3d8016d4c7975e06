/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Parsing and printing of byte sizes.  */
#include <config.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sizes.h"

const char *
parse_size (const char *text, uint64_t *size)
{
  if (text == NULL || *text == '\0')
    return "empty size";
  /* strtoull accepts a sign and leading blanks; a size has neither.  */
  if (!isdigit ((unsigned char) text[0]))
    return "not a number";

  /* Decimal, or hexadecimal after 0x: never octal, so "010" is ten, as it
     reads.  strtoull would take a leading 0 for octal and a second "0x"
     after the first, hence the digits by hand.  */
  unsigned base = 10;
  const char *digits = text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    {
      base = 16;
      digits += 2;
    }
  uint64_t value = 0;
  const char *end = digits;
  for (;; end++)
    {
      unsigned d;
      if (*end >= '0' && *end <= '9')
	d = (unsigned) (*end - '0');
      else if (base == 16 && isxdigit ((unsigned char) *end))
	d = (unsigned) (tolower ((unsigned char) *end) - 'a' + 10);
      else
	break;
      if (value > (UINT64_MAX - d) / base)
	return "number too large";
      value = value * base + d;
    }
  if (end == digits)
    return "not a number";

  unsigned shift = 0;
  switch (*end)
    {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return "unknown unit (use K, M, G or T)";
    }
  if (shift != 0 && (strcasecmp (end, "iB") == 0 || strcasecmp (end, "B") == 0))
    end += strlen (end);
  if (*end != '\0')
    return "trailing characters after the size";
  if (shift != 0 && value > (UINT64_MAX >> shift))
    return "number too large";
  *size = (uint64_t) value << shift;
  return NULL;
}

char *
format_size (uint64_t size, char *buf, size_t len)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  unsigned u = 0;
  uint64_t v = size;
  while (v != 0 && (v & 1023) == 0 && u + 1 < sizeof units / sizeof units[0])
    {
      v >>= 10;
      u++;
    }
  if (u == 0 && size >= 1024)
    snprintf (buf, len, "%#" PRIx64 " B", size);
  else
    snprintf (buf, len, "%" PRIu64 " %s", v, units[u]);
  return buf;
}
