/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Arithmetic on numbers read from a file: every sum and rounding that could
   wrap is checked, so that a hostile value becomes a refusal with a reason
   instead of a wrapped offset.  */
#ifndef ELFPMD_ARITH_H
#define ELFPMD_ARITH_H

#include <stdbool.h>
#include <stdint.h>

/* *SUM = A + B; false if that wraps.  */
static inline bool
add_checked (uint64_t a, uint64_t b, uint64_t *sum)
{
  return !__builtin_add_overflow (a, b, sum);
}

/* *PRODUCT = A * B; false if that wraps.  */
static inline bool
mul_checked (uint64_t a, uint64_t b, uint64_t *product)
{
  return !__builtin_mul_overflow (a, b, product);
}

/* *UP = X rounded up to a multiple of ALIGN (a power of two); false if that
   wraps.  */
static inline bool
align_up_checked (uint64_t x, uint64_t align, uint64_t *up)
{
  uint64_t sum;
  if (!add_checked (x, align - 1, &sum))
    return false;
  *up = sum & ~(align - 1);
  return true;
}

/* The smallest power of two at or above X (X at most 2^63).  */
static inline uint64_t
pow2_at_least (uint64_t x)
{
  return x <= 1 ? 1 : (uint64_t) 1 << (64 - __builtin_clzll (x - 1));
}

/* Whether [OFF, OFF + LEN) and [START, END) overlap (an empty range
   overlaps nothing).  */
static inline bool
range_overlaps (uint64_t off, uint64_t len, uint64_t start, uint64_t end)
{
  return len != 0 && start < end && off < end && start < off + len;
}

/* Whether [OFF, OFF + LEN) lies inside [START, END).  */
static inline bool
range_within (uint64_t off, uint64_t len, uint64_t start, uint64_t end)
{
  return off >= start && off <= end && len <= end - off;
}

#endif
