/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: sets of chunks, one bit per chunk of a range.  */
#include "runtime.h"

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
