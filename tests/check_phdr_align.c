/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the eligibility rules and the PMD sizes.  */
#include <check.h>
#include <elf.h>
#include <stdlib.h>

#include "stub/check_main.h"
#include "machine.h"
#include "phdr_align.h"

#define K ((uint64_t) 1024)
#define M (K * K)
#define PMD (2 * M)
#define R (PF_R)
#define RX (PF_R | PF_X)
#define RW (PF_R | PF_W)

struct rule_case
{
  const char *what;
  struct load_segment seg;
  uint64_t pmd;
  enum rule_verdict kernel, relaxed;
};

/* Each condition of both rules on and off; fields: offset, vaddr, filesz, memsz, align, flags.  */
static const struct rule_case rule_cases[] = {
  { "seed-001 case: text at 0, 4 MiB", { 0, 0, 4 * M, 4 * M, 4 * K, RX }, PMD, RULE_ELIGIBLE, RULE_ELIGIBLE },
  { "aligned, exactly one PMD", { 2 * M, 2 * M, 2 * M, 2 * M, 4 * K, R }, PMD, RULE_ELIGIBLE, RULE_ELIGIBLE },
  { "filesz one byte short", { 2 * M, 2 * M, 2 * M - 1, 2 * M - 1, 4 * K, RX }, PMD, RULE_FILESZ_BELOW_PMD, RULE_NO_WHOLE_CHUNK },
  { "writable", { 0, 0, 4 * M, 4 * M, 4 * K, RW }, PMD, RULE_WRITABLE, RULE_WRITABLE },
  { "writable and unaligned: kernel names alignment first", { 0x1000, 0x1000, 8 * M, 8 * M, 4 * K, RW }, PMD, RULE_NOT_PMD_ALIGNED, RULE_WRITABLE },
  { "gcc PIE: congruent, unaligned start", { 0x1000, 0x1000, 6 * M, 6 * M, 4 * K, RX }, PMD, RULE_NOT_PMD_ALIGNED, RULE_ELIGIBLE },
  { "vaddr aligned, offset not", { 0x1000, 2 * M, 4 * M, 4 * M, 4 * K, RX }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NOT_CONGRUENT },
  { "offset aligned, vaddr not", { 2 * M, 0x201000, 4 * M, 4 * M, 4 * K, RX }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NOT_CONGRUENT },
  { "lld: offset 4K apart from address", { 0x11bb980, 0x11bc980, 8 * M, 8 * M, 4 * K, RX }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NOT_CONGRUENT },
  { "already aligned", { 0, 0, 4 * M, 4 * M, 2 * M, RX }, PMD, RULE_ALREADY_ALIGNED, RULE_ALREADY_ALIGNED },
  { "align above PMD", { 0, 0, 4 * M, 4 * M, 4 * M, RX }, PMD, RULE_ALREADY_ALIGNED, RULE_ALREADY_ALIGNED },
  { "align not a power of two", { 0, 0, 4 * M, 4 * M, 3 * K, RX }, PMD, RULE_ALIGN_NOT_POWER_OF_2, RULE_ALIGN_NOT_POWER_OF_2 },
  { "align 0: kernel skips, relaxed accepts", { 0, 0, 4 * M, 4 * M, 0, RX }, PMD, RULE_ALIGN_NOT_POWER_OF_2, RULE_ELIGIBLE },
  { "align 1", { 0, 0, 4 * M, 4 * M, 1, RX }, PMD, RULE_ELIGIBLE, RULE_ELIGIBLE },
  { "PMD 32 MiB allowed", { 0, 0, 64 * M, 64 * M, 16 * K, RX }, 32 * M, RULE_ELIGIBLE, RULE_ELIGIBLE },
  { "PMD 512 MiB refused", { 0, 0, 1024 * M, 1024 * M, 64 * K, RX }, 512 * M, RULE_PMD_TOO_LARGE, RULE_PMD_TOO_LARGE },
  { "chunk must be file-backed (memsz larger)", { 0x1000, 0x1000, 5 * M, 8 * M, 4 * K, R }, PMD, RULE_NOT_PMD_ALIGNED, RULE_ELIGIBLE },
  { "filesz past chunk but memsz short", { 0x1000, 0x1000, 8 * M, 0x3fe000, 4 * K, R }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NO_WHOLE_CHUNK },
  { "chunk ends exactly at segment end", { 0x1000, 0x1000, 0x3ff000, 0x3ff000, 4 * K, R }, PMD, RULE_NOT_PMD_ALIGNED, RULE_ELIGIBLE },
  { "segment just short of a chunk", { 0x1000, 0x1000, 0x3fefff, 0x3fefff, 4 * K, R }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NO_WHOLE_CHUNK },
  { "4 MiB but straddling: no whole chunk", { 0x1000, 0x1000, 0x1ff000, 0x1ff000, 4 * K, RX }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NO_WHOLE_CHUNK },
  { "execute-only", { 0, 0, 4 * M, 4 * M, 4 * K, PF_X }, PMD, RULE_ELIGIBLE, RULE_ELIGIBLE },
  { "near the top of the address space", { 0x1000, UINT64_MAX - 4 * M + 1, 4 * M, 4 * M, 4 * K, R }, PMD, RULE_NOT_PMD_ALIGNED, RULE_NOT_CONGRUENT },
  { "s390x 1 MiB PMD", { 1 * M, 1 * M, 1 * M, 1 * M, 4 * K, RX }, 1 * M, RULE_ELIGIBLE, RULE_ELIGIBLE },
};

START_TEST (test_rules)
{
  const struct rule_case *c = &rule_cases[_i];
  ck_assert_msg (kernel_rule (&c->seg, c->pmd) == c->kernel, "%s: kernel rule gave '%s', expected '%s'",
		 c->what, rule_verdict_string (kernel_rule (&c->seg, c->pmd)), rule_verdict_string (c->kernel));
  ck_assert_msg (relaxed_rule (&c->seg, c->pmd) == c->relaxed, "%s: relaxed rule gave '%s', expected '%s'",
		 c->what, rule_verdict_string (relaxed_rule (&c->seg, c->pmd)), rule_verdict_string (c->relaxed));
}
END_TEST

/* The kernel rule implies the relaxed one wherever the kernel would align.  */
START_TEST (test_kernel_implies_relaxed)
{
  unsigned seed = 1;
  for (int n = 0; n < 100000; n++)
    {
      seed = seed * 1103515245u + 12345u;
      struct load_segment s = {
	.offset = (uint64_t) (seed >> 4) % 16 * M / 2,
	.vaddr = (uint64_t) (seed >> 8) % 16 * M / 2,
	.filesz = (uint64_t) (seed >> 12) % 12 * M / 2,
	.align = (uint64_t) 1 << ((seed >> 16) % 24),
	.flags = (seed & 1) ? RX : RW,
      };
      s.memsz = s.filesz + (seed >> 20) % 3 * M;
      if (kernel_rule (&s, PMD) == RULE_ELIGIBLE)
	ck_assert (relaxed_rule (&s, PMD) == RULE_ELIGIBLE);
    }
}
END_TEST

START_TEST (test_chunks_inside)
{
  struct load_segment s = { .vaddr = 0x1000, .filesz = 6 * M, .memsz = 6 * M };
  ck_assert_uint_eq (pmd_chunks_inside (&s, PMD), 2);
  s.vaddr = 0;
  ck_assert_uint_eq (pmd_chunks_inside (&s, PMD), 3);
  s.filesz = 0;
  ck_assert_uint_eq (pmd_chunks_inside (&s, PMD), 0);
  s = (struct load_segment) { .vaddr = UINT64_MAX - 2 * M + 1, .filesz = 2 * M, .memsz = 2 * M };
  ck_assert_uint_eq (pmd_chunks_inside (&s, PMD), 1);
  s.vaddr = UINT64_MAX - M;
  s.filesz = s.memsz = M + 1;
  ck_assert_uint_eq (pmd_chunks_inside (&s, PMD), 0);
}
END_TEST

/* The one computation behind the planner's, status's and prime's counts.  */
START_TEST (test_chunks_in_range)
{
  uint64_t first = 1;
  ck_assert_uint_eq (pmd_chunks_in_range (0x1000, 6 * M, PMD, &first), 2);
  ck_assert_uint_eq (first, 2 * M);
  ck_assert_uint_eq (pmd_chunks_in_range (0, 6 * M, PMD, &first), 3);
  ck_assert_uint_eq (first, 0);
  ck_assert_uint_eq (pmd_chunks_in_range (2 * M, 2 * M - 1, PMD, NULL), 0);
  ck_assert_uint_eq (pmd_chunks_in_range (2 * M - 1, 2 * M + 1, PMD, &first), 1);
  ck_assert_uint_eq (first, 2 * M);
  /* The last chunk of the address space counts; nothing wraps to 0.  */
  ck_assert_uint_eq (pmd_chunks_in_range (0 - 2 * M, 2 * M, PMD, &first), 1);
  ck_assert_uint_eq (first, 0 - 2 * M);
  ck_assert_uint_eq (pmd_chunks_in_range (UINT64_MAX, 8 * M, PMD, NULL), 0);
  ck_assert_uint_eq (pmd_chunks_in_range (0 - 3 * M, UINT64_MAX, PMD, &first), 1);
  ck_assert_uint_eq (first, 0 - 2 * M);
}
END_TEST

struct machine_case
{
  unsigned machine;
  int elfclass;
  uint64_t page;		/* asked for; 0 = default */
  uint64_t pmd;			/* expected, 0 = refused */
  uint64_t used_page;
};

#ifndef EM_LOONGARCH
# define EM_LOONGARCH 258
#endif

static const struct machine_case machine_cases[] = {
  { EM_X86_64, ELFCLASS64, 0, 2 * M, 4 * K },
  { EM_X86_64, ELFCLASS64, 64 * K, 0, 0 },
  { EM_386, ELFCLASS32, 0, 2 * M, 4 * K },
  { EM_ARM, ELFCLASS32, 0, 2 * M, 4 * K },
  { EM_AARCH64, ELFCLASS64, 0, 2 * M, 4 * K },
  { EM_AARCH64, ELFCLASS64, 4 * K, 2 * M, 4 * K },
  { EM_AARCH64, ELFCLASS64, 16 * K, 32 * M, 16 * K },
  { EM_AARCH64, ELFCLASS64, 64 * K, 512 * M, 64 * K },
  { EM_AARCH64, ELFCLASS64, 8 * K, 0, 0 },
  { EM_PPC64, ELFCLASS64, 0, 2 * M, 64 * K },
  { EM_PPC64, ELFCLASS64, 4 * K, 2 * M, 4 * K },
  { EM_RISCV, ELFCLASS64, 0, 2 * M, 4 * K },
  { EM_RISCV, ELFCLASS32, 0, 0, 0 },
  { EM_S390, ELFCLASS64, 0, 1 * M, 4 * K },
  { EM_S390, ELFCLASS32, 0, 0, 0 },
  { EM_LOONGARCH, ELFCLASS64, 0, 32 * M, 16 * K },
  { EM_LOONGARCH, ELFCLASS64, 4 * K, 2 * M, 4 * K },
  { EM_LOONGARCH, ELFCLASS64, 64 * K, 512 * M, 64 * K },
  { EM_MIPS, ELFCLASS64, 0, 0, 0 },
  { EM_PPC, ELFCLASS32, 0, 0, 0 },
  { 0xbeef, ELFCLASS64, 0, 0, 0 },
};

START_TEST (test_machine_pmd)
{
  const struct machine_case *c = &machine_cases[_i];
  struct machine_info info;
  const char *why = machine_pmd_size (c->machine, c->elfclass, c->page, &info);
  if (c->pmd == 0)
    {
      ck_assert_msg (why != NULL, "machine %u page %lu should be refused", c->machine,
		     (unsigned long) c->page);
      ck_assert_ptr_nonnull (info.name);
      return;
    }
  ck_assert_msg (why == NULL, "machine %u: %s", c->machine, why);
  ck_assert_uint_eq (info.pmd, c->pmd);
  ck_assert_uint_eq (info.page, c->used_page);
  ck_assert_ptr_nonnull (info.note);
}
END_TEST

START_TEST (test_verdict_strings)
{
  for (int v = RULE_ELIGIBLE; v <= RULE_ALREADY_ALIGNED; v++)
    {
      ck_assert_ptr_nonnull (rule_verdict_string ((enum rule_verdict) v));
      ck_assert_ptr_nonnull (rule_verdict_id ((enum rule_verdict) v));
      for (int w = RULE_ELIGIBLE; w < v; w++)
	ck_assert_str_ne (rule_verdict_id ((enum rule_verdict) v), rule_verdict_id ((enum rule_verdict) w));
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("phdr_align");
  TCase *tc = tcase_create ("rules");
  tcase_add_loop_test (tc, test_rules, 0, sizeof rule_cases / sizeof rule_cases[0]);
  tcase_add_test (tc, test_kernel_implies_relaxed);
  tcase_add_test (tc, test_chunks_inside);
  tcase_add_test (tc, test_chunks_in_range);
  tcase_add_test (tc, test_verdict_strings);
  suite_add_tcase (s, tc);
  TCase *tm = tcase_create ("machines");
  tcase_add_loop_test (tm, test_machine_pmd, 0, sizeof machine_cases / sizeof machine_cases[0]);
  suite_add_tcase (s, tm);
  return run_suite (s);
}
