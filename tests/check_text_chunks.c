/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the one answer to "which whole chunks of this object's text
   can be PMD-mapped" (src/core/text_chunks.h), and of what its callers see:
   the layout plan's counts (the report, status's ALIGNED and gain), the
   stub's ranges, map, prime and status's mappings all ask it.  */
#include <check.h>
#include <elf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stub/check_main.h"
#include "elf_file.h"
#include "layout.h"
#include "plan.h"
#include "synth.h"
#include "text_chunks.h"

#define K ((uint64_t) 1024)
#define M (K * K)
#define PMD (2 * M)

/* A gcc-like PIE: headers, 6 MiB of text at 0x1000 (congruent), 4.5 MiB of
   read-only data, data.  */
static struct synth_elf
pie (uint64_t text_align)
{
  return (struct synth_elf) {
    .elfclass = 2, .data = 1, .type = ET_DYN, .machine = EM_X86_64, .phnum = 4,
    .phdr = {
      { PT_LOAD, PF_R, 0, 0, 0x600, 0x600, 0x1000 },
      { PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 6 * M, 6 * M, text_align },
      { PT_LOAD, PF_R, 0x602000, 0x602000, 4 * M + M / 2, 4 * M + M / 2, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0xa82dd0, 0xa83dd0, 0x248, 0x1000, 0x1000 },
    },
  };
}

static void
open_synth (const struct synth_elf *s, struct elf_file *f, char **path)
{
  *path = synth_temp_path ("chunks");
  ck_assert (synth_write (*path, s) == 0);
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (f, *path, &err) == 0, "open: %s", err.msg);
}

static void
close_synth (struct elf_file *f, char *path)
{
  elf_file_close (f);
  unlink (path);
  free (path);
}

/* A PIE's base is PMD-aligned only when a p_align asks for it; then the
   text's two whole chunks count, the read-only data's do not.  */
START_TEST (test_pie)
{
  struct elf_file f;
  char *path;
  struct synth_elf s = pie (0x1000);
  open_synth (&s, &f, &path);
  ck_assert_uint_eq (load_max_align (&f, NULL), 0x1000);
  ck_assert (!load_base_aligned (&f, NULL, PMD));
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 0);
  close_synth (&f, path);

  s = pie (PMD);
  open_synth (&s, &f, &path);
  ck_assert_uint_eq (load_max_align (&f, NULL), PMD);
  ck_assert (load_base_aligned (&f, NULL, PMD));
  ck_assert (text_segment (&f, 1) && !text_segment (&f, 2) && !text_segment (&f, 3));
  struct chunk_run run;
  ck_assert (text_chunk_run (&f, NULL, 1, PMD, true, &run));
  ck_assert_uint_eq (run.phdr, 1);
  ck_assert_uint_eq (run.vaddr, 0x200000);
  ck_assert_uint_eq (run.offset, 0x200000);
  ck_assert_uint_eq (run.n, 2);
  /* 4.5 MiB of read-only data at 0x602000 would hold a whole chunk: not text.  */
  ck_assert (!text_chunk_run (&f, NULL, 2, PMD, true, &run));
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 2);
  close_synth (&f, path);
}
END_TEST

/* p_align that is no power of two does not align the base (the kernel's
   maximum_alignment() and ld.so skip it): 3 MiB counts for nothing.  */
START_TEST (test_not_power_of_2)
{
  struct elf_file f;
  char *path;
  struct synth_elf s = pie (3 * M);
  s.phdr[0].align = 0x1000;
  open_synth (&s, &f, &path);
  ck_assert_uint_eq (load_max_align (&f, NULL), 0x1000);
  ck_assert (!load_base_aligned (&f, NULL, PMD));
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 0);
  close_synth (&f, path);
}
END_TEST

/* Fixed addresses: the base needs no p_align; a text segment whose offset
   is not congruent has no chunk, one that is has its whole ones; writable
   text (PF_W) is not text.  */
START_TEST (test_exec)
{
  struct synth_elf s = {
    .elfclass = 2, .data = 1, .type = ET_EXEC, .machine = EM_X86_64, .phnum = 3,
    .phdr = {
      { PT_LOAD, PF_R, 0, 0x400000, 0x600, 0x600, 0x1000 },
      { PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 5 * M, 5 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W | PF_X, 0x502000, 0x902000, 5 * M, 5 * M, 0x1000 },
    },
  };
  struct elf_file f;
  char *path;
  open_synth (&s, &f, &path);
  ck_assert (load_base_aligned (&f, NULL, PMD));
  struct chunk_run run;
  ck_assert (text_chunk_run (&f, NULL, 1, PMD, true, &run));
  ck_assert_uint_eq (run.vaddr, 0x600000);
  ck_assert_uint_eq (run.offset, 0x200000);
  ck_assert_uint_eq (run.n, 1);	/* [0x600000, 0x800000) of [0x401000, 0x901000) */
  ck_assert (!text_segment (&f, 2));
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 1);
  close_synth (&f, path);

  s.phdr[1].offset = 0x3000;	/* not congruent */
  s.phdr[2].offset = 0x504000;
  open_synth (&s, &f, &path);
  ck_assert (!text_chunk_run (&f, NULL, 1, PMD, true, &run));
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 0);
  close_synth (&f, path);
}
END_TEST

/* Only the file-backed part of a segment counts (p_filesz below p_memsz).  */
START_TEST (test_filesz)
{
  struct synth_elf s = pie (PMD);
  s.phdr[1].filesz = 4 * M;	/* [0x1000, 0x401000) backed: one whole chunk of two */
  s.phdr[2].offset = 0x402000;
  s.phdr[3].offset = 0x882dd0;
  struct elf_file f;
  char *path;
  open_synth (&s, &f, &path);
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 1);
  close_synth (&f, path);
}
END_TEST

/* With a plan, its offsets and alignments: the non-congruent text of an
   unaligned PIE counts once the plan pads it and raises p_align.  */
START_TEST (test_plan)
{
  struct synth_elf s = pie (0x1000);
  s.phdr[1].offset = 0x3000;	/* vaddr 0x1000: not congruent */
  s.phdr[2].offset = 0x604000;
  s.phdr[3].offset = 0xa84dd0;
  struct elf_file f;
  char *path;
  open_synth (&s, &f, &path);
  struct layout_plan plan = { .opts = { .pmd = PMD } };
  plan.segs = calloc (f.phnum, sizeof *plan.segs);
  ck_assert (plan.segs != NULL);
  for (size_t i = 0; i < f.phnum; i++)
    {
      plan.segs[i].new_offset = f.phdrs[i].p_offset;
      plan.segs[i].new_align = f.phdrs[i].p_align;
    }
  ck_assert_uint_eq (text_chunks (&f, &plan, PMD), 0);
  plan.segs[1].new_align = PMD;
  ck_assert_uint_eq (load_max_align (&f, &plan), PMD);
  ck_assert_uint_eq (text_chunks (&f, &plan, PMD), 0);	/* aligned base, offset still not congruent */
  plan.segs[1].new_offset = 0x1000;
  struct chunk_run run;
  ck_assert (text_chunk_run (&f, &plan, 1, PMD, true, &run));
  ck_assert_uint_eq (run.offset, 0x200000);
  ck_assert_uint_eq (text_chunks (&f, &plan, PMD), 2);
  ck_assert_uint_eq (text_chunks (&f, NULL, PMD), 0);	/* the file as it is */
  free (plan.segs);
  close_synth (&f, path);
}
END_TEST

/* The layout plan's counts (what the report, status's ALIGNED column and
   its gain show) are the text's: the read-only data's chunk is not among
   them.  */
START_TEST (test_layout_counts)
{
  struct synth_elf s = pie (0x1000);
  struct elf_file f;
  char *path;
  open_synth (&s, &f, &path);
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = PMD, .page = 4 * K, .pad = true } };
  struct rewrite_plan p;
  struct diag err = { "" };
  ck_assert_msg (rewrite_plan_build (&p, &f, &po, &err) == 0, "plan: %s", err.msg);
  ck_assert_uint_eq (p.layout.chunks_before, 0);
  ck_assert_uint_eq (p.layout.chunks_after, 2);
  ck_assert_uint_eq (p.layout.chunks_after, text_chunks (&f, &p.layout, PMD));
  rewrite_plan_free (&p);
  close_synth (&f, path);
}
END_TEST

/* A mapping of /proc/PID/maps: whole chunks where address and offset are
   congruent, the first one's address; nothing otherwise, nothing past the
   end of the address space.  */
START_TEST (test_mapping)
{
  uint64_t first;
  ck_assert_uint_eq (mapping_chunks (0x7f0000001000, 0x7f0000601000, 0x1000, PMD, &first), 2);
  ck_assert_uint_eq (first, 0x7f0000200000);
  ck_assert_uint_eq (mapping_chunks (0x7f0000001000, 0x7f0000601000, 0x3000, PMD, NULL), 0);
  ck_assert_uint_eq (mapping_chunks (0x7f0000200000, 0x7f0000200000, 0, PMD, NULL), 0);
  ck_assert_uint_eq (mapping_chunks (0x7f0000200000, 0x7f00003ff000, 0, PMD, NULL), 0);
  ck_assert_uint_eq (mapping_chunks (0x7f0000200000, 0x7f0000400000, 0x400000, PMD, &first), 1);
  ck_assert_uint_eq (first, 0x7f0000200000);
  ck_assert_uint_eq (mapping_chunks (UINT64_MAX - 3 * PMD + 1, UINT64_MAX, 0, PMD, NULL), 2);
}
END_TEST

int
main (void)
{
  elf_version (EV_CURRENT);
  Suite *s = suite_create ("text_chunks");
  TCase *tc = tcase_create ("text_chunks");
  tcase_add_unchecked_fixture (tc, synth_temp_dir_create, synth_temp_dir_remove);
  tcase_add_test (tc, test_pie);
  tcase_add_test (tc, test_not_power_of_2);
  tcase_add_test (tc, test_exec);
  tcase_add_test (tc, test_filesz);
  tcase_add_test (tc, test_plan);
  tcase_add_test (tc, test_layout_counts);
  tcase_add_test (tc, test_mapping);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
