/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: the little of a C library it needs.  */
#include "runtime.h"

#ifndef STUB_HOST
/* The compiler may turn a zeroed structure into a call to memset; there is
   no libc to provide it.  (The host build for the unit tests has one.)  */
HIDDEN void *memset (void *dest, int c, unsigned long n);

void *
memset (void *dest, int c, unsigned long n)
{
  unsigned char *d = dest;
  while (n-- > 0)
    *d++ = (unsigned char) c;
  return dest;
}

#ifdef STUB_NEED_MEMCPY
/* And memcpy, where the compiler copies structures with it (SYSCALL_H
   says so).  */
HIDDEN void *memcpy (void *dest, const void *src, unsigned long n);

void *
memcpy (void *dest, const void *src, unsigned long n)
{
  unsigned char *d = dest;
  const unsigned char *s = src;
  while (n-- > 0)
    *d++ = *s++;
  return dest;
}
#endif
#endif
