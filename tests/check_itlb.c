/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of bench/itlb's instruction-TLB models: N pages visited round
   robin, K rounds, against the closed formula.  With least recently used
   replacement a set that receives m <= ways distinct pages misses m times
   (the first round); one that receives more misses on every access (the
   cyclic order always evicts the page needed next): m * K times.  The
   second level sees what the first missed; when every first-level set
   thrashes it sees the whole round-robin stream, when none does only the
   first round.  */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stub/check_main.h"
#include "../bench/itlb/tlb.h"

#define K 10

/* Misses of an array of SETS sets of WAYS ways over pages FIRST..FIRST+N-1
   visited round robin K times.  */
static uint64_t
formula (uint64_t first, uint64_t n, unsigned sets, unsigned ways, uint64_t rounds)
{
  uint64_t misses = 0;
  for (unsigned s = 0; s < sets; s++)
    {
      /* the pages p in [first, first + n) with p % sets == s */
      uint64_t lo = first + ((s + sets - first % sets) % sets);
      uint64_t m = lo < first + n ? (first + n - 1 - lo) / sets + 1 : 0;
      misses += m <= ways ? m : m * rounds;
    }
  return misses;
}

static const struct tlb_array_spec *
array_for (const struct tlb_level_spec *l, unsigned size)
{
  for (int i = 0; i < 2; i++)
    if (l->array[i].entries != 0 && (l->array[i].sizes & TLB_HOLDS (size)))
      return &l->array[i];
  return NULL;
}

static void
run (struct tlb *t, uint64_t first, uint64_t n, unsigned size)
{
  tlb_reset (t);
  for (int k = 0; k < K; k++)
    for (uint64_t p = first; p < first + n; p++)
      tlb_access (t, p, size);
}

/* Three working sets for each model and page size: half the first level,
   twice the first level (within the second), twice the second level.  */
START_TEST (round_robin)
{
  for (size_t c = 0; c < tlb_ncpus; c++)
    for (unsigned size = 0; size < TLB_NSIZES; size++)
      {
	const struct tlb_cpu_spec *spec = &tlb_cpus[c];
	const struct tlb_array_spec *a1 = array_for (&spec->l1, size), *a2 = array_for (&spec->l2, size);
	ck_assert_msg (a1 != NULL && a2 != NULL, "%s: no array for size %u", spec->name, size);
	unsigned s1 = a1->entries / a1->ways, s2 = a2->entries / a2->ways;
	uint64_t cases[3] = { a1->entries / 2, 2 * (uint64_t) a1->entries, 2 * (uint64_t) a2->entries };
	struct tlb t;
	ck_assert (tlb_init (&t, spec) == 0);
	for (int i = 0; i < 3; i++)
	  {
	    uint64_t n = cases[i], first = 0x12345 * (i + 1);
	    run (&t, first, n, size);
	    uint64_t l1 = formula (first, n, s1, a1->ways, K);
	    /* all first-level sets thrash or none does, in these cases */
	    bool thrash = l1 == n * K;
	    ck_assert_msg (thrash || l1 == n, "%s: case %d mixes", spec->name, i);
	    uint64_t walks = thrash ? formula (first, n, s2, a2->ways, K) : n;
	    ck_assert_msg (t.lookups == n * K, "%s size %u N %llu: %llu lookups", spec->name, size,
			   (unsigned long long) n, (unsigned long long) t.lookups);
	    ck_assert_msg (t.l1_misses == l1, "%s size %u N %llu: first-level misses %llu, formula %llu",
			   spec->name, size, (unsigned long long) n, (unsigned long long) t.l1_misses,
			   (unsigned long long) l1);
	    ck_assert_msg (t.walks == walks, "%s size %u N %llu: walks %llu, formula %llu", spec->name,
			   size, (unsigned long long) n, (unsigned long long) t.walks,
			   (unsigned long long) walks);
	  }
	tlb_free (&t);
      }
}
END_TEST

/* One set-associative first level with one set over its ways (Golden
   Cove's 4K iTLB, 32 sets of 8: 257 pages put 9 in one set), the second
   level holding them all: the formula set by set.  */
START_TEST (one_set_over)
{
  const struct tlb_cpu_spec *spec = tlb_cpu_find ("goldencove");
  ck_assert (spec != NULL);
  const struct tlb_array_spec *a1 = array_for (&spec->l1, TLB_4K);
  ck_assert_uint_eq (a1->entries, 256);
  uint64_t n = a1->entries + 1, first = 4096;
  struct tlb t;
  ck_assert (tlb_init (&t, spec) == 0);
  run (&t, first, n, TLB_4K);
  ck_assert_uint_eq (t.l1_misses, formula (first, n, a1->entries / a1->ways, a1->ways, K));
  ck_assert_uint_eq (t.l1_misses, 9 * K + 248);
  /* the second level holds the nine: each is walked once */
  ck_assert_uint_eq (t.walks, n);
  tlb_free (&t);
}
END_TEST

/* 40 pages of 4 KiB and 40 of 2 MiB, alternating: one array for both
   (Zen 4's 64 entries) thrashes; Golden Cove's separate arrays keep the 4K
   pages (256 entries) and lose the 2M pages (32 entries, 4 sets of 8: 10
   pages a set).  */
START_TEST (mixed_sizes)
{
  struct tlb z, g;
  ck_assert (tlb_init (&z, tlb_cpu_find ("zen4")) == 0);
  ck_assert (tlb_init (&g, tlb_cpu_find ("goldencove")) == 0);
  for (int k = 0; k < K; k++)
    for (uint64_t p = 0; p < 40; p++)
      {
	tlb_access (&z, 0x1000 + p, TLB_4K);
	tlb_access (&z, 0x800 + p, TLB_2M);
	tlb_access (&g, 0x1000 + p, TLB_4K);
	tlb_access (&g, 0x800 + p, TLB_2M);
      }
  ck_assert_uint_eq (z.l1_misses, 80 * K);
  ck_assert_uint_eq (z.walks, 80);
  ck_assert_uint_eq (g.l1_misses, 40 + 40 * K);
  ck_assert_uint_eq (g.walks, 80);
  tlb_free (&z);
  tlb_free (&g);
}
END_TEST

/* The same page again is a hit and changes nothing; a page of the same
   number and the other size is another page.  */
START_TEST (same_page)
{
  struct tlb t;
  ck_assert (tlb_init (&t, tlb_cpu_find ("n1")) == 0);
  for (int i = 0; i < 5; i++)
    tlb_access (&t, 7, TLB_4K);
  tlb_access (&t, 7, TLB_2M);
  ck_assert_uint_eq (t.lookups, 6);
  ck_assert_uint_eq (t.l1_misses, 2);
  ck_assert_uint_eq (t.walks, 2);
  ck_assert (tlb_cpu_find ("no-such-cpu") == NULL);
  tlb_free (&t);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("itlb");
  TCase *tc = tcase_create ("model");
  tcase_add_test (tc, round_robin);
  tcase_add_test (tc, one_set_over);
  tcase_add_test (tc, mixed_sizes);
  tcase_add_test (tc, same_page);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
