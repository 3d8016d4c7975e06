/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* CRC-32 with zlib's polynomial (IEEE 802.3, reflected): what
   .gnu_debuglink records of a debug file.  */
#ifndef ELFPMD_CRC32_H
#define ELFPMD_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC carried over N more bytes at P; start with 0: crc32_update (0, p, n)
   is the CRC-32 of those bytes, and feeding them in pieces gives the same.  */
uint32_t crc32_update (uint32_t crc, const void *p, size_t n);

#endif
