/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* SHA-256 of a whole file, and its hexadecimal form (sha256.h); the hash
   itself is GNU Nettle's.  */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "sha256.h"

int
sha256_fd (int fd, unsigned char out[SHA256_DIGEST_SIZE])
{
  enum { CHUNK = 1 << 20 };
  unsigned char *buf = malloc (CHUNK);
  if (buf == NULL)
    return -1;
  struct sha256_ctx s;
  sha256_init (&s);
  off_t at = 0;
  for (;;)
    {
      ssize_t got = pread (fd, buf, CHUNK, at);
      if (got < 0 && errno == EINTR)
	continue;
      if (got < 0)
	{
	  int e = errno;
	  free (buf);
	  errno = e;
	  return -1;
	}
      if (got == 0)
	break;
      sha256_update (&s, (size_t) got, buf);
      at += got;
    }
  free (buf);
  sha256_digest (&s, SHA256_DIGEST_SIZE, out);
  return 0;
}

void
sha256_hex (const unsigned char digest[SHA256_DIGEST_SIZE], char hex[65])
{
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
    {
      hex[2 * i] = digits[digest[i] >> 4];
      hex[2 * i + 1] = digits[digest[i] & 15];
    }
  hex[64] = '\0';
}
