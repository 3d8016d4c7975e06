/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* SHA-256 (FIPS 180-4), for the manifest's hashes of a file before and
   after a rewrite (the values sha256sum prints).  */
#ifndef ELFPMD_SHA256_H
#define ELFPMD_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256
{
  uint32_t h[8];
  uint64_t len;			/* bytes hashed so far */
  unsigned char buf[64];
  size_t used;			/* bytes in BUF */
};

void sha256_init (struct sha256 *s);
void sha256_update (struct sha256 *s, const void *data, size_t len);
void sha256_final (struct sha256 *s, unsigned char out[32]);

/* The SHA-256 of the whole contents of FD (read with pread from offset 0)
   into OUT.  Return 0, or -1 with errno set.  */
int sha256_fd (int fd, unsigned char out[32]);

/* DIGEST as 64 lowercase hexadecimal digits and a NUL, into HEX.  */
void sha256_hex (const unsigned char digest[32], char hex[65]);

#endif
