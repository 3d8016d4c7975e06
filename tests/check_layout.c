/* Unit tests of reading, planning and writing, on synthetic ELF files.  */
#include <check.h>
#include <elf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "layout.h"
#include "process.h"
#include "synth.h"

#define K ((uint64_t) 1024)
#define M (K * K)

/* A gcc-like PIE: headers, a 6 MiB congruent text segment, rodata, data.  */
static struct synth_elf
pie64 (void)
{
  return (struct synth_elf) {
    .elfclass = 2, .data = 1, .type = ET_DYN, .machine = EM_X86_64, .phnum = 4,
    .phdr = {
      { PT_LOAD, PF_R, 0, 0, 0x600, 0x600, 0x1000 },
      { PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 6 * M, 6 * M, 0x1000 },
      { PT_LOAD, PF_R, 0x602000, 0x602000, 0x100, 0x100, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x602dd0, 0x603dd0, 0x248, 0x1000, 0x1000 },
    },
  };
}

struct refusal_case
{
  const char *what;
  void (*mutate) (struct synth_elf *);
  const char *expect;		/* substring of the reason */
};

static void m_overlap (struct synth_elf *s) { s->phdr[2].vaddr = 0x500000; }
static void m_unsorted (struct synth_elf *s) { s->phdr[2].vaddr = 0x0; }
static void m_filesz (struct synth_elf *s) { s->phdr[2].filesz = 0x200; }
static void m_past_eof (struct synth_elf *s) { s->size = 0x500000; }
static void m_phoff (struct synth_elf *s) { s->phoff = 0x7000000; s->size = 0x603000; }
static void m_wrap (struct synth_elf *s) { s->phdr[3].vaddr = UINT64_MAX - 0x10; }
static void m_class32_wrap (struct synth_elf *s)
{
  s->elfclass = 1;
  s->machine = EM_386;
  s->phdr[3].vaddr = 0xfffff000;
  s->phdr[3].memsz = 0x2000;
}

static const struct refusal_case refusals[] = {
  { "overlapping loads", m_overlap, "overlaps" },
  { "unsorted loads", m_unsorted, "not sorted" },
  { "filesz > memsz", m_filesz, "exceeds p_memsz" },
  { "segment past end of file", m_past_eof, "past the end" },
  { "phdrs out of the file", m_phoff, "program header table" },
  { "address wrap", m_wrap, "wraps" },
  { "ELF32 address wrap", m_class32_wrap, "wraps" },
};

START_TEST (test_refusals)
{
  const struct refusal_case *c = &refusals[_i];
  struct synth_elf s = pie64 ();
  c->mutate (&s);
  char *path = synth_temp_path ("refuse");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (&f, path, &err) != 0, "%s accepted", c->what);
  ck_assert_msg (strstr (err.msg, c->expect) != NULL, "%s: reason '%s' lacks '%s'", c->what,
		 err.msg, c->expect);
  unlink (path);
  free (path);
}
END_TEST

static void
plan_of (const struct synth_elf *s, enum align_rule rule, uint64_t pmd, struct elf_file *f,
	 struct layout_plan *p, char **path)
{
  *path = synth_temp_path ("plan");
  ck_assert (synth_write (*path, s) == 0);
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (f, *path, &err) == 0, "open: %s", err.msg);
  struct layout_options lo = { .rule = rule, .pmd = pmd, .page = 4 * K };
  ck_assert (layout_plan_build (p, f, &lo, &err) == 0);
  ck_assert_msg (layout_plan_check (p, f, &err) == 0, "check: %s", err.msg);
}

START_TEST (test_plan_pie)
{
  struct synth_elf s = pie64 ();
  struct elf_file f;
  struct layout_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert (f.kind == OBJECT_SHARED);	/* no PT_INTERP, no PT_DYNAMIC */
  ck_assert (p.changed);
  ck_assert_uint_eq (p.aligned, 1);
  ck_assert_int_eq (p.segs[1].action, SEGMENT_ALIGNED);
  ck_assert_uint_eq (p.segs[1].new_align, 2 * M);
  ck_assert_uint_eq (p.segs[0].new_align, 0x1000);
  ck_assert_uint_eq (p.segs[3].new_align, 0x1000);
  ck_assert_uint_eq (p.chunks_before, 0);
  ck_assert_uint_eq (p.chunks_after, 2);
  ck_assert_uint_eq (p.aslr_bits_lost, 9);
  ck_assert_uint_eq (p.new_size, p.old_size);
  for (uint64_t off = 0; off < p.old_size; off += 4093)
    ck_assert_uint_eq (layout_map_offset (&p, off), off);
  layout_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);

  /* The kernel rule wants p_vaddr and p_offset PMD-aligned: nothing here.  */
  plan_of (&s, ALIGN_RULE_KERNEL, 2 * M, &f, &p, &path);
  ck_assert (!p.changed);
  ck_assert_int_eq (p.segs[1].kernel, RULE_NOT_PMD_ALIGNED);
  ck_assert_uint_eq (p.aslr_bits_lost, 0);
  layout_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

START_TEST (test_plan_needs_padding)
{
  struct synth_elf s = pie64 ();
  s.phdr[1].offset = 0x2000;	/* lld-style: 4 KiB apart from the address */
  s.phdr[2].offset = 0x603000;
  s.phdr[3].offset = 0x603dd0;
  struct elf_file f;
  struct layout_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert (!p.changed);
  ck_assert_uint_eq (p.need_padding, 1);
  ck_assert_int_eq (p.segs[1].action, SEGMENT_NEEDS_PADDING);
  ck_assert_uint_eq (p.chunks_after, 0);
  layout_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

START_TEST (test_plan_exec)
{
  /* A non-PIE with text at 0x400000 and offset 0 (noseparate-code): the
     chunks are mappable already, since the addresses are fixed.  */
  struct synth_elf s = {
    .elfclass = 2, .data = 1, .type = ET_EXEC, .machine = EM_X86_64, .phnum = 2,
    .phdr = {
      { PT_LOAD, PF_R | PF_X, 0, 0x400000, 5 * M, 5 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x501000, 0x901000, 0x100, 0x100, 0x1000 },
    },
  };
  struct elf_file f;
  struct layout_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_KERNEL, 2 * M, &f, &p, &path);
  ck_assert (f.kind == OBJECT_EXECUTABLE);
  ck_assert (p.changed);
  ck_assert_uint_eq (p.chunks_before, 2);
  ck_assert_uint_eq (p.chunks_after, 2);
  ck_assert_uint_eq (p.aslr_bits_lost, 0);
  layout_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* Rewrite FILE through process_file and compare each p_align with EXPECT,
   reading them back with the test's own decoder.  */
static void
rewrite_and_compare (const struct synth_elf *s, const struct run_options *opts,
		     const uint64_t *expect)
{
  char *path = synth_temp_path ("rewrite");
  ck_assert (synth_write (path, s) == 0);
  struct stat before;
  ck_assert (stat (path, &before) == 0);
  FILE *devnull = fopen ("/dev/null", "w");
  ck_assert_int_eq (process_file (path, opts, devnull, stderr), 0);
  fclose (devnull);
  struct stat after;
  ck_assert (stat (path, &after) == 0);
  ck_assert_uint_eq (after.st_size, before.st_size);
  for (size_t i = 0; i < s->phnum; i++)
    ck_assert_msg (synth_read_align (path, s, i) == expect[i], "phdr %zu: align %#lx, expected %#lx",
		   i, (unsigned long) synth_read_align (path, s, i), (unsigned long) expect[i]);

  /* Everything but the p_align fields is byte-identical.  */
  struct synth_elf t = *s;
  for (size_t i = 0; i < t.phnum; i++)
    t.phdr[i].align = expect[i];
  char *want = synth_temp_path ("want");
  ck_assert (synth_write (want, &t) == 0);
  FILE *a = fopen (path, "rb"), *b = fopen (want, "rb");
  /* One assertion at the end: Check records every assertion it passes.  */
  int ca, cb;
  long at = 0;
  do
    {
      ca = fgetc (a);
      cb = fgetc (b);
      at++;
    }
  while (ca == cb && ca != EOF);
  ck_assert_msg (ca == cb, "byte %ld differs", at - 1);
  fclose (a);
  fclose (b);
  unlink (want);
  unlink (path);
  free (want);
  free (path);
}

START_TEST (test_rewrite_classes)
{
  struct run_options o = { .rule = ALIGN_RULE_RELAXED, .sync = false, .format = REPORT_NONE };
  uint64_t expect[4] = { 0x1000, 2 * M, 0x1000, 0x1000 };

  struct synth_elf s = pie64 ();
  rewrite_and_compare (&s, &o, expect);

  s.data = 2;			/* big-endian ELF64 */
  s.machine = EM_PPC64;
  rewrite_and_compare (&s, &o, expect);

  s.machine = EM_S390;		/* 1 MiB PMD: two more chunks, same segment */
  expect[1] = 1 * M;
  rewrite_and_compare (&s, &o, expect);

  s = pie64 ();
  s.elfclass = 1;		/* ELF32 little-endian */
  s.machine = EM_386;
  expect[1] = 2 * M;
  rewrite_and_compare (&s, &o, expect);

  s.data = 2;			/* ELF32 big-endian, no known PMD: use --pmd-size */
  s.machine = EM_PPC;
  o.pmd_size = 1 * M;
  expect[1] = 1 * M;
  rewrite_and_compare (&s, &o, expect);
}
END_TEST

START_TEST (test_unknown_machine_fails_untouched)
{
  struct synth_elf s = pie64 ();
  s.machine = EM_PPC;
  char *path = synth_temp_path ("unknown");
  ck_assert (synth_write (path, &s) == 0);
  struct run_options o = { .rule = ALIGN_RULE_RELAXED, .format = REPORT_NONE };
  FILE *errs = tmpfile ();
  ck_assert_int_eq (process_file (path, &o, stdout, errs), 1);
  rewind (errs);
  char line[1024];
  ck_assert_ptr_nonnull (fgets (line, sizeof line, errs));
  ck_assert (strncmp (line, "elfpmd: ", 8) == 0);
  ck_assert_ptr_nonnull (strstr (line, path));
  ck_assert_ptr_nonnull (strstr (line, "--pmd-size"));
  ck_assert_ptr_null (fgets (line, sizeof line, errs));
  fclose (errs);
  ck_assert_uint_eq (synth_read_align (path, &s, 1), 0x1000);
  unlink (path);
  free (path);
}
END_TEST

int
main (void)
{
  elf_version (EV_CURRENT);
  Suite *s = suite_create ("layout");
  TCase *tc = tcase_create ("layout");
  tcase_add_loop_test (tc, test_refusals, 0, sizeof refusals / sizeof refusals[0]);
  tcase_add_test (tc, test_plan_pie);
  tcase_add_test (tc, test_plan_needs_padding);
  tcase_add_test (tc, test_plan_exec);
  tcase_add_test (tc, test_rewrite_classes);
  tcase_add_test (tc, test_unknown_machine_fails_untouched);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
