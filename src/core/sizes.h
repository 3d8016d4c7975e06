/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Parsing and printing of byte sizes ("4K", "2M", "0x200000").  */
#ifndef ELFPMD_SIZES_H
#define ELFPMD_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse TEXT as a size: a decimal or 0x-hexadecimal number (never octal: a
   leading 0 is still decimal, "010" is ten), optionally followed by one of the
   binary suffixes K, M, G, T (with or without "iB" or "B", either case).
   Store it in *SIZE and return NULL, or return a static string saying why
   TEXT is not a size.  */
const char *parse_size (const char *text, uint64_t *size);

/* Print SIZE to BUF (of LEN bytes) in the shortest exact binary unit:
   "2 MiB", "64 KiB", "4096 B", "0x1234 B" for odd values.  Returns BUF.  */
char *format_size (uint64_t size, char *buf, size_t len);

static inline bool
is_power_of_2 (uint64_t x)
{
  return x != 0 && (x & (x - 1)) == 0;
}

/* Base-2 logarithm of a power of two X.  */
static inline unsigned
log2_exact (uint64_t x)
{
  return (unsigned) __builtin_ctzll (x);
}

#endif
