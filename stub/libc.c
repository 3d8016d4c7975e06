/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: the little of a C library it needs, memory for its
   buffers, and sets of chunks (one bit per chunk of a range).  */
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

/* The stub's buffers (struct scratch), mapped the first time they are
   needed; NULL when they cannot be (no memory, a seccomp filter): the
   caller then does without what it needed them for.  */
struct scratch *
scratch (struct stub *st)
{
  if (st->scratch == NULL && !st->no_scratch)
    {
      long got = syscall6 (SYS_mmap, 0, (long) sizeof (struct scratch), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (got < 0 && got > -4096)
	st->no_scratch = 1;
      else
	st->scratch = (struct scratch *) got;
    }
  return st->scratch;
}

void
scratch_free (struct stub *st)
{
  if (st->scratch != NULL)
    syscall6 (SYS_munmap, (long) st->scratch, (long) sizeof (struct scratch), 0, 0, 0, 0);
  st->scratch = NULL;
}

/* Make SET (one bit per chunk) hold exactly the chunks 0 to N - 1, with no
   bit set past them, so that a word-wide test of a set never sees them.  */
void
chunks_all (uint64_t *set, uint64_t n)
{
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    set[i] = n - i * 64 >= 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << (n - i * 64)) - 1;
}

void
chunks_none (uint64_t *set, uint64_t n)
{
  for (uint64_t i = 0; i < (n + 63) / 64; i++)
    set[i] = 0;
}

uint64_t
chunks_count (const uint64_t *set, uint64_t n)
{
  uint64_t count = 0;
  for (uint64_t i = 0; i < n; i++)
    count += (uint64_t) chunk_in (set, i);
  return count;
}
