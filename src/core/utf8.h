/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Names from a file are bytes; what elfpmd prints must be text.  */
#ifndef ELFPMD_UTF8_H
#define ELFPMD_UTF8_H

#include <stddef.h>

/* The length of the UTF-8 sequence at S (1 to 4), or 0 if S does not start
   a valid one (a stray continuation byte, an overlong form, a surrogate, a
   code point past U+10FFFF, a sequence cut short).  */
static inline size_t
utf8_length (const unsigned char *s)
{
  if (s[0] < 0x80)
    return 1;
  size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
	     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
  for (size_t k = 1; k < n; k++)
    if ((s[k] & 0xc0) != 0x80)
      return 0;
  if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
      || (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
    return 0;
  return n;
}

#endif
