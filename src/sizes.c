/* Parsing and printing of byte sizes.  */
#include <config.h>

#include <ctype.h>
#include <errno.h>
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

  errno = 0;
  char *end;
  unsigned long long value = strtoull (text, &end, 0);
  if (errno == ERANGE)
    return "number too large";
  if (end == text)
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
