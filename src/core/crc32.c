/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* CRC-32, zlib's polynomial (crc32.h).  */
#include <config.h>

#include "crc32.h"

uint32_t
crc32_update (uint32_t crc, const void *p, size_t n)
{
  static uint32_t table[256];
  if (table[1] == 0)
    for (uint32_t i = 0; i < 256; i++)
      {
	uint32_t c = i;
	for (int k = 0; k < 8; k++)
	  c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	table[i] = c;
      }
  const unsigned char *b = p;
  uint32_t c = ~crc;
  for (size_t i = 0; i < n; i++)
    c = table[(c ^ b[i]) & 0xff] ^ (c >> 8);
  return ~c;
}
