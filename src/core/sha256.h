/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* SHA-256 (FIPS 180-4), for the manifest's hashes of a file before and
   after a rewrite (the values sha256sum prints): GNU Nettle's (struct
   sha256_ctx, sha256_init, sha256_update (CTX, LENGTH, DATA),
   sha256_digest (CTX, SHA256_DIGEST_SIZE, OUT)), and what elfpmd adds to
   it (sha256.c).  */
#ifndef ELFPMD_SHA256_H
#define ELFPMD_SHA256_H

#include <nettle/sha2.h>

/* The SHA-256 of the whole contents of FD (read with pread from offset 0)
   into OUT.  Return 0, or -1 with errno set.  */
int sha256_fd (int fd, unsigned char out[SHA256_DIGEST_SIZE]);

/* DIGEST as 64 lowercase hexadecimal digits and a NUL, into HEX.  */
void sha256_hex (const unsigned char digest[SHA256_DIGEST_SIZE], char hex[65]);

#endif
