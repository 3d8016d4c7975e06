/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of reading, planning and writing, on synthetic ELF files.  */
#include <check.h>
#include <elf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stub/check_main.h"
#include "elf_file.h"
#include "checker.h"
#include "layout.h"
#include "plan.h"
#include "write.h"
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

/* Plan FILE under OPTS and check the plan with the independent checker.  */
static void
plan_checked (struct rewrite_plan *p, const struct elf_file *f, const struct plan_options *po)
{
  struct diag err = { "" };
  ck_assert_msg (rewrite_plan_build (p, f, po, &err) == 0, "plan: %s", err.msg);
  ck_assert_msg (check_plan (p, f, &err) == 0, "check: %s", err.msg);
}

static void
plan_of (const struct synth_elf *s, enum align_rule rule, uint64_t pmd, struct elf_file *f,
	 struct rewrite_plan *p, char **path)
{
  *path = synth_temp_path ("plan");
  ck_assert (synth_write (*path, s) == 0);
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (f, *path, &err) == 0, "open: %s", err.msg);
  struct plan_options po = { .layout = { .rule = rule, .pmd = pmd, .page = 4 * K, .pad = true } };
  plan_checked (p, f, &po);
}

START_TEST (test_plan_pie)
{
  struct synth_elf s = pie64 ();
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert (f.kind == OBJECT_SHARED);	/* no PT_INTERP, no PT_DYNAMIC */
  ck_assert (p.changed);
  ck_assert_uint_eq (p.layout.aligned, 1);
  ck_assert_int_eq (p.layout.segs[1].action, SEGMENT_ALIGNED);
  ck_assert_uint_eq (p.layout.segs[1].new_align, 2 * M);
  ck_assert_uint_eq (p.layout.segs[0].new_align, 0x1000);
  ck_assert_uint_eq (p.layout.segs[3].new_align, 0x1000);
  ck_assert_uint_eq (p.layout.chunks_before, 0);
  ck_assert_uint_eq (p.layout.chunks_after, 2);
  ck_assert_uint_eq (p.layout.aslr_bits_lost, 9);
  ck_assert_uint_eq (p.layout.new_size, p.layout.old_size);
  for (uint64_t off = 0; off < p.layout.old_size; off += 4093)
    ck_assert_uint_eq (layout_map_offset (&p.layout, off), off);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);

  /* The kernel rule wants p_vaddr and p_offset PMD-aligned: nothing here.  */
  plan_of (&s, ALIGN_RULE_KERNEL, 2 * M, &f, &p, &path);
  ck_assert (!p.changed);
  ck_assert_int_eq (p.layout.segs[1].kernel, RULE_NOT_PMD_ALIGNED);
  ck_assert_uint_eq (p.layout.aslr_bits_lost, 0);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* lld's layout: the text starts in the file 4 KiB before its address
   modulo 2 MiB, sharing the first page with the read-only headers.  */
static struct synth_elf
lld64 (void)
{
  return (struct synth_elf) {
    .elfclass = 2, .data = 1, .type = ET_DYN, .machine = EM_X86_64, .phnum = 5,
    .phdr = {
      { PT_LOAD, PF_R, 0, 0, 0x86c, 0x86c, 0x1000 },
      { PT_LOAD, PF_R | PF_X, 0x870, 0x1870, 6 * M, 6 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x600870, 0x602870, 0x200, 0x200, 0x1000 },
      { PT_NOTE, PF_R, 0x400, 0x400, 0x20, 0x20, 4 },
      { PT_GNU_RELRO, PF_R, 0x600870, 0x602870, 0x200, 0x200, 1 },
    },
    .shnum = 4,
    .shdr = {
      { SHT_PROGBITS, SHF_ALLOC, 0x200, 0x200, 0x600 },
      { SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1870, 0x870, 6 * M },
      { SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x602870, 0x600870, 0x200 },
      { SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x602a70, 0x600a70, 0x1000 },
    },
  };
}

START_TEST (test_plan_padding)
{
  struct synth_elf s = lld64 ();
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert (p.changed);
  ck_assert_uint_eq (p.layout.padded, 1);
  ck_assert_int_eq (p.layout.segs[1].action, SEGMENT_PADDED);
  ck_assert_uint_eq (p.layout.ninserts, 1);
  ck_assert_uint_eq (p.layout.inserts[0].at, 0x870);
  ck_assert_uint_eq (p.layout.inserts[0].pad, 0x1000);	/* the smallest hole */
  ck_assert_uint_eq (p.layout.segs[1].new_offset, 0x1870);
  ck_assert_uint_eq (p.layout.segs[2].new_offset, 0x601870);
  ck_assert_uint_eq (p.layout.segs[4].new_offset, 0x601870);	/* PT_GNU_RELRO follows its load */
  ck_assert_uint_eq (p.layout.segs[3].new_offset, 0x400);	/* the note before the hole stays */
  ck_assert_uint_eq (p.layout.section_offsets[1], 0x200);
  ck_assert_uint_eq (p.layout.section_offsets[2], 0x1870);
  ck_assert_uint_eq (p.layout.section_offsets[4], 0x601a70);	/* .bss moves with its segment */
  ck_assert_uint_eq (p.layout.new_size, p.layout.old_size + 0x1000);
  ck_assert_uint_eq (p.tables.ehdr.e_shoff, f.ehdr.e_shoff + 0x1000);
  ck_assert_uint_eq (p.layout.chunks_before, 0);
  ck_assert_uint_eq (p.layout.chunks_after, 2);
  ck_assert_uint_eq (layout_map_offset (&p.layout, 0x86f), 0x86f);
  ck_assert_uint_eq (layout_map_offset (&p.layout, 0x870), 0x1870);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

START_TEST (test_plan_no_pad)
{
  struct synth_elf s = lld64 ();
  char *path = synth_temp_path ("nopad");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert (elf_file_open (&f, path, &err) == 0);
  struct rewrite_plan p;
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K,
					 .pad = false } };
  plan_checked (&p, &f, &po);
  ck_assert (!p.changed);
  ck_assert_uint_eq (p.layout.need_padding, 1);
  ck_assert_int_eq (p.layout.segs[1].action, SEGMENT_NEEDS_PADDING);
  ck_assert_uint_eq (p.layout.new_size, p.layout.old_size);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* A later PT_LOAD aligned to 64 KiB gets its own hole, so that it stays
   congruent modulo its alignment after the text moves by 4 KiB.  */
START_TEST (test_plan_keeps_later_alignment)
{
  struct synth_elf s = lld64 ();
  s.phdr[2] = (struct synth_phdr) { PT_LOAD, PF_R | PF_W, 0x600870, 0x610870, 0x200, 0x200, 0x10000 };
  s.phdr[4] = (struct synth_phdr) { PT_GNU_RELRO, PF_R, 0x600870, 0x610870, 0x200, 0x200, 1 };
  s.shdr[2].addr = 0x610870;
  s.shdr[3].addr = 0x610a70;
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert_uint_eq (p.layout.ninserts, 2);
  ck_assert_uint_eq (p.layout.inserts[1].at, 0x600870);
  ck_assert_uint_eq (p.layout.inserts[1].pad, 0xf000);
  ck_assert_uint_eq (p.layout.segs[2].new_offset, 0x610870);
  ck_assert_uint_eq ((p.layout.segs[2].new_offset - 0x610870) % 0x10000, 0);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

struct padding_refusal
{
  const char *what;
  void (*mutate) (struct synth_elf *);
  const char *expect;
};

/* A note that spans the text's start.  */
static void r_note (struct synth_elf *s) { s->phdr[3].offset = 0x800; s->phdr[3].vaddr = 0x800; s->phdr[3].filesz = 0x100; }
/* A section that spans the text's start.  */
static void r_section (struct synth_elf *s) { s->shdr[0].size = 0x700; }
/* The first segment's file range overlaps the text's start.  */
static void r_overlap (struct synth_elf *s) { s->phdr[0].filesz = s->phdr[0].memsz = 0x900; s->shdr[0].size = 0x500; }
/* Text at offset 0 but not at an address congruent with it: the ELF header would move.  */
static void r_ehdr (struct synth_elf *s)
{
  s->phdr[0] = (struct synth_phdr) { PT_LOAD, PF_R | PF_X, 0, 0x1000, 6 * M, 6 * M, 0x1000 };
  s->phdr[1] = (struct synth_phdr) { PT_LOAD, PF_R | PF_W, 0x600000, 0x602000, 0x100, 0x100, 0x1000 };
  s->phdr[3].filesz = 0;
  s->phdr[4].offset = 0x600000;
  s->phdr[4].vaddr = 0x602000;
  s->shnum = 0;
}
/* A program's headers placed after the text (as patchelf does): moving them
   would break AT_PHDR on kernels before 5.18.  (A shared object's may move:
   ld.so finds them through PT_PHDR; see test_plan_shared_phdrs_after.)  */
static void r_phdrs_after (struct synth_elf *s)
{
  s->type = ET_EXEC;
  s->phoff = 0x600c00;
  s->size = 0x601000;
  s->shnum = 0;
}

static const struct padding_refusal padding_refusals[] = {
  { "note spans the insertion", r_note, "PT_NOTE 3 overlaps it" },
  { "section spans the insertion", r_section, "split section [1]" },
  { "load overlaps the insertion", r_overlap, "PT_LOAD 0 overlaps it" },
  { "insertion before the ELF header", r_ehdr, "ELF header" },
  { "program headers after the insertion", r_phdrs_after, "AT_PHDR" },
};

START_TEST (test_padding_refusals)
{
  const struct padding_refusal *c = &padding_refusals[_i];
  struct synth_elf s = lld64 ();
  c->mutate (&s);
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  size_t text = c->mutate == r_ehdr ? 0 : 1;
  ck_assert_msg (p.layout.segs[text].action == SEGMENT_PADDING_REFUSED, "%s: action %s", c->what,
		 segment_action_name (p.layout.segs[text].action));
  ck_assert_msg (strstr (p.layout.segs[text].refusal, c->expect) != NULL, "%s: reason '%s' lacks '%s'",
		 c->what, p.layout.segs[text].refusal, c->expect);
  ck_assert_uint_eq (p.layout.refused, 1);
  ck_assert_uint_eq (p.layout.ninserts, 0);
  ck_assert (!p.changed);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* A file put at the path while elfpmd rewrote the one it opened is not
   overwritten: the rename checks that the path still names the input.  */
START_TEST (test_rewrite_refuses_replaced_path)
{
  struct synth_elf s = lld64 ();
  char *path = synth_temp_path ("replaced");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert (elf_file_open (&f, path, &err) == 0);
  struct rewrite_plan p;
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K,
					 .pad = true } };
  plan_checked (&p, &f, &po);
  ck_assert (p.changed);
  /* Another program replaces the file by rename, as a package manager does.  */
  char *other = synth_temp_path ("other");
  FILE *o = fopen (other, "wb");
  fputs ("newer contents", o);
  fclose (o);
  ck_assert (rename (other, path) == 0);
  struct write_options wo = { .in_place = true, .sync = false };
  struct write_result res;
  struct place at;
  ck_assert (place_resolve (&at, path, false, &err) == 0);
  ck_assert_int_eq (write_plan (&f, &p, &at, &wo, &res, &err), -1);
  place_close (&at);
  ck_assert_msg (strstr (err.msg, "replaced") != NULL, "%s", err.msg);
  char buf[32] = "";
  o = fopen (path, "rb");
  ck_assert_uint_eq (fread (buf, 1, sizeof buf - 1, o), strlen ("newer contents"));
  fclose (o);
  ck_assert_str_eq (buf, "newer contents");
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
  free (other);
}
END_TEST

/* A padded rewrite through process_file: the text's bytes land at the new
   offset, the hole reads as zeros, the size grows by the hole.  */
START_TEST (test_rewrite_padded)
{
  struct synth_elf s = lld64 ();
  char *path = synth_temp_path ("padded");
  ck_assert (synth_write (path, &s) == 0);
  /* Mark the text's first and last bytes.  */
  FILE *f = fopen (path, "r+b");
  fseek (f, 0x870, SEEK_SET);
  fputc (0xc3, f);
  fseek (f, 0x870 + 6 * M - 1, SEEK_SET);
  fputc (0xcc, f);
  fseek (f, 0x86f, SEEK_SET);
  fputc (0x5a, f);
  fclose (f);
  struct stat before;
  ck_assert (stat (path, &before) == 0);
  struct run_options o = { .rule = ALIGN_RULE_RELAXED, .pad = true, .format = REPORT_NONE };
  ck_assert_int_eq (process_file (path, &o, stdout, stderr), 0);
  f = fopen (path, "rb");
  fseek (f, 0x86f, SEEK_SET);
  ck_assert_int_eq (fgetc (f), 0x5a);
  for (long at = 0x870; at < 0x1870; at++)
    if (fgetc (f) != 0)
      ck_abort_msg ("hole byte %#lx is not zero", at);
  ck_assert_int_eq (fgetc (f), 0xc3);
  fseek (f, 0x1870 + 6 * M - 1, SEEK_SET);
  ck_assert_int_eq (fgetc (f), 0xcc);
  fclose (f);
  /* The file grew by the hole, and only by it.  */
  struct stat st;
  ck_assert (stat (path, &st) == 0);
  ck_assert_int_eq (st.st_size, before.st_size + 0x1000);
  /* Read the new p_offset of the text with the test's own decoder.  */
  unsigned char ph[56];
  f = fopen (path, "rb");
  fseek (f, 64 + 56, SEEK_SET);
  ck_assert_uint_eq (fread (ph, 1, sizeof ph, f), sizeof ph);
  fclose (f);
  ck_assert_uint_eq (synth_get (ph + 8, 8, 1), 0x1870);
  ck_assert_uint_eq (synth_get (ph + 48, 8, 1), 2 * M);
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
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_KERNEL, 2 * M, &f, &p, &path);
  ck_assert (f.kind == OBJECT_EXECUTABLE);
  ck_assert (p.changed);
  ck_assert_uint_eq (p.layout.chunks_before, 2);
  ck_assert_uint_eq (p.layout.chunks_after, 2);
  ck_assert_uint_eq (p.layout.aslr_bits_lost, 0);
  rewrite_plan_free (&p);
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
  struct run_options o = { .rule = ALIGN_RULE_RELAXED, .sync = false, .pad = true, .format = REPORT_NONE };
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

/* The stub's plan on a gcc-like PIE: where a PT_NOTE only repeats
   PT_GNU_PROPERTY, the new PT_LOAD takes its slot and the table stays; else
   the table moves into the new segment, whose address minus offset equals
   the first PT_LOAD's (AT_PHDR on kernels before 5.18).  */
static struct synth_elf
stub_pie (bool duplicate_note)
{
  struct synth_elf s = {
    .elfclass = 2, .data = 1, .type = ET_EXEC, .machine = EM_X86_64, .phnum = 5,
    .phdr = {
      { PT_PHDR, PF_R, 64, 0x400040, 5 * 56, 5 * 56, 8 },
      { PT_LOAD, PF_R | PF_X, 0, 0x400000, 6 * M, 6 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x600000, 0xa00000, 0x100, 0x3000, 0x1000 },
      { PT_NOTE, PF_R, 0x200, 0x400200, 0x20, 0x20, 8 },
      { duplicate_note ? PT_GNU_PROPERTY : PT_GNU_STACK, PF_R, 0x200, 0x400200, 0x20, 0x20, 8 },
    },
  };
  return s;
}

START_TEST (test_stub_plan)
{
  for (int dup = 0; dup <= 1; dup++)
    {
      struct synth_elf s = stub_pie (dup);
      char *path = synth_temp_path ("stub");
      ck_assert (synth_write (path, &s) == 0);
      struct elf_file f;
      struct diag err = { "" };
      ck_assert (elf_file_open (&f, path, &err) == 0);
      struct rewrite_plan p;
      struct plan_options po = {
	.layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
	.stub = { .wanted = true, .populate_max = 64 },
      };
      /* Without --move-table a table that would move gets no stub.  */
      plan_checked (&p, &f, &po);
      ck_assert (p.stub.enabled == (dup != 0));
      if (!dup)
	ck_assert_ptr_nonnull (strstr (p.stub.refusal, "--move-table"));
      rewrite_plan_free (&p);
      po.stub.move_table = true;
      plan_checked (&p, &f, &po);
      const struct stub_plan *sp = &p.stub;
      ck_assert_msg (sp->enabled, "stub refused: %s", sp->refusal ? sp->refusal : "?");
      ck_assert_int_eq (sp->hook, STUB_HOOK_ENTRY);
      ck_assert_uint_eq (sp->old_target, 0);
      ck_assert_uint_eq (sp->params.nranges, 1);
      ck_assert_uint_eq (sp->params.range[0].length, 3 * 2 * M);	/* 0x400000 .. 0xa00000 */
      ck_assert_uint_eq (sp->params.range[0].file_offset, 0);
      ck_assert_int_eq ((int64_t) sp->entry_vaddr + sp->params.range[0].start, 0x400000);
      ck_assert_uint_eq (sp->seg_offset % (4 * K), 0);
      ck_assert_uint_ge (sp->seg_vaddr, 0xa03000);	/* above the bss */
      GElf_Phdr table[8];
      ck_assert_uint_le (p.tables.phnum, 8);
      memcpy (table, p.tables.phdrs, p.tables.phnum * sizeof *table);
      if (dup)
	{
	  ck_assert_int_eq (sp->room.kind, ROOM_SLOT);
	  ck_assert_uint_eq (sp->room.slot, 3);
	  ck_assert_uint_eq (p.tables.phnum, 5);
	  ck_assert_uint_eq (p.tables.ehdr.e_phoff, 64);
	  ck_assert_uint_eq (table[3].p_type, PT_LOAD);
	  ck_assert_uint_eq (table[0].p_vaddr, 0x400040);	/* PT_PHDR stays */
	  /* Right after the contents in the file, whatever its address.  */
	  ck_assert_uint_eq (sp->seg_offset, (p.layout.new_size + 4 * K - 1) & ~(4 * K - 1));
	}
      else
	{
	  /* Unknown bytes (no section headers) between the table and the
	     PT_NOTE: nothing can move, the table does.  */
	  ck_assert_int_eq (sp->room.kind, ROOM_MOVED);
	  ck_assert_uint_eq (sp->room.slot, SIZE_MAX);
	  ck_assert_uint_eq (p.tables.phnum, 6);
	  ck_assert_uint_eq (p.tables.ehdr.e_phoff, sp->seg_offset);
	  ck_assert_uint_eq (table[0].p_vaddr, sp->seg_vaddr);	/* PT_PHDR moves */
	  /* AT_PHDR as kernels before 5.18 compute it finds the moved table.  */
	  ck_assert_uint_eq (sp->seg_vaddr - sp->seg_offset, 0x400000);
	  ck_assert_uint_eq (table[3].p_type, PT_LOAD);	/* after the last PT_LOAD */
	  ck_assert_uint_eq (table[3].p_vaddr, sp->seg_vaddr);
	}
      rewrite_plan_free (&p);
      elf_file_close (&f);
      unlink (path);
      free (path);
    }
}
END_TEST

/* An lld-like program without section headers: the table (6 entries, up
   to 0x190) is followed by PT_INTERP (0x1c bytes) and PT_NOTE (0x20); the
   table grows in place over both, which move into the stub's segment.
   MUTATION 1 leaves 4 unknown bytes between them, 2 puts PT_GNU_EH_FRAME
   where PT_NOTE was: then the table moves instead.  */
static struct synth_elf
stub_lld (int mutation)
{
  struct synth_elf s = {
    .elfclass = 2, .data = 1, .type = ET_EXEC, .machine = EM_X86_64, .phnum = 6,
    .phdr = {
      { PT_PHDR, PF_R, 64, 0x400040, 6 * 56, 6 * 56, 8 },
      { PT_INTERP, PF_R, 0x190, 0x400190, 0x1c, 0x1c, 1 },
      { PT_LOAD, PF_R | PF_X, 0, 0x400000, 6 * M, 6 * M, 0x1000 },
      { PT_LOAD, PF_R | PF_W, 0x600000, 0xa00000, 0x100, 0x3000, 0x1000 },
      { PT_NOTE, PF_R, 0x1ac, 0x4001ac, 0x20, 0x20, 4 },
      { PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16 },
    },
  };
  if (mutation == 1)
    s.phdr[4].offset = 0x1b0, s.phdr[4].vaddr = 0x4001b0;
  if (mutation == 2)
    s.phdr[4].type = PT_GNU_EH_FRAME;
  return s;
}

START_TEST (test_stub_grow)
{
  static const char interp[] = "/lib/ld-synth.so";
  for (int mutation = 0; mutation <= 2; mutation++)
    {
      struct synth_elf s = stub_lld (mutation);
      char *path = synth_temp_path ("grow");
      ck_assert (synth_write (path, &s) == 0);
      FILE *fp = fopen (path, "r+b");
      fseek (fp, 0x190, SEEK_SET);
      fwrite (interp, 1, sizeof interp, fp);
      fseek (fp, (long) s.phdr[4].offset + 0x1f, SEEK_SET);
      fputc (0x5a, fp);		/* the note's last byte */
      fclose (fp);
      struct elf_file f;
      struct diag err = { "" };
      ck_assert (elf_file_open (&f, path, &err) == 0);
      struct rewrite_plan p;
      struct plan_options po = {
	.layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
	.stub = { .wanted = true, .populate_max = 64, .move_table = true },
      };
      plan_checked (&p, &f, &po);
      const struct stub_plan *sp = &p.stub;
      ck_assert_msg (sp->enabled, "stub refused: %s", sp->refusal ? sp->refusal : "?");
      ck_assert_uint_eq (p.tables.phnum, 7);
      if (mutation != 0)
	{
	  ck_assert_int_eq (sp->room.kind, ROOM_MOVED);
	  ck_assert_uint_eq (p.tables.ehdr.e_phoff, sp->seg_offset);
	}
      else
	{
	  ck_assert_int_eq (sp->room.kind, ROOM_GROWN);
	  ck_assert_uint_eq (p.tables.ehdr.e_phoff, 64);
	  ck_assert_uint_eq (sp->room.nmoved, 2);
	  ck_assert (sp->room.moved[0].segment && sp->room.moved[0].index == 1);
	  ck_assert (sp->room.moved[1].segment && sp->room.moved[1].index == 4);
	  ck_assert_uint_eq (sp->room.moved_start, 0x190);
	  ck_assert_uint_eq (sp->room.moved_end, 0x1cc);
	  ck_assert_uint_eq (sp->room.moved_offset, sp->seg_offset);
	  ck_assert_uint_ge (sp->code_offset, sp->seg_offset + 0x3c);
	  GElf_Phdr t[7];
	  memcpy (t, p.tables.phdrs, p.tables.phnum * sizeof *t);
	  ck_assert_uint_eq (t[0].p_type, PT_PHDR);
	  ck_assert_uint_eq (t[0].p_offset, 64);
	  ck_assert_uint_eq (t[0].p_filesz, 7 * 56);
	  ck_assert_uint_eq (t[1].p_type, PT_INTERP);
	  ck_assert_uint_eq (t[1].p_offset, sp->seg_offset);
	  ck_assert_uint_eq (t[1].p_vaddr, sp->seg_vaddr);
	  ck_assert_uint_eq (t[4].p_type, PT_LOAD);	/* the stub's, after the last PT_LOAD */
	  ck_assert_uint_eq (t[5].p_type, PT_NOTE);
	  ck_assert_uint_eq (t[5].p_offset, sp->seg_offset + 0x1c);
	  ck_assert_uint_eq (t[5].p_vaddr, sp->seg_vaddr + 0x1c);
	}
      uint64_t seg_offset = sp->seg_offset;
      bool grown = sp->room.kind == ROOM_GROWN;
      rewrite_plan_free (&p);
      elf_file_close (&f);

      /* The rewrite: the interpreter's name and the note where the new
	 program headers say, the old place after the table zero.  */
      struct run_options o = { .rule = ALIGN_RULE_RELAXED, .pad = true,
			       .stub = { .wanted = true, .move_table = true }, .format = REPORT_NONE };
      ck_assert_int_eq (process_file (path, &o, stdout, stderr), 0);
      if (grown)
	{
	  fp = fopen (path, "rb");
	  char name[sizeof interp];
	  fseek (fp, (long) seg_offset, SEEK_SET);
	  ck_assert_uint_eq (fread (name, 1, sizeof name, fp), sizeof name);
	  ck_assert_str_eq (name, interp);
	  fseek (fp, (long) seg_offset + 0x1c + 0x1f, SEEK_SET);
	  ck_assert_int_eq (fgetc (fp), 0x5a);
	  fseek (fp, 64 + 7 * 56, SEEK_SET);
	  for (int k = 0; k < 4; k++)
	    ck_assert_int_eq (fgetc (fp), 0);
	  fclose (fp);
	}
      unlink (path);
      free (path);
    }
}
END_TEST

/* Two PT_NULL slots, the first with an address: the stub takes the first,
   and the checker matches the rest by address, not by position.  */
START_TEST (test_stub_two_null_slots)
{
  struct synth_elf s = stub_pie (false);
  s.phdr[3] = (struct synth_phdr) { PT_NULL, 0, 0, 0xf800, 0, 0, 0 };
  s.phdr[4] = (struct synth_phdr) { PT_NULL, 0, 0, 0, 0, 0, 0 };
  char *path = synth_temp_path ("nulls");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert (elf_file_open (&f, path, &err) == 0);
  struct rewrite_plan p;
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
    .stub = { .wanted = true, .populate_max = 64 },
  };
  plan_checked (&p, &f, &po);
  ck_assert_msg (p.stub.enabled, "stub refused: %s", p.stub.refusal ? p.stub.refusal : "?");
  ck_assert_int_eq (p.stub.room.kind, ROOM_SLOT);
  ck_assert_uint_eq (p.stub.room.slot, 3);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* The stub's segment is congruent modulo the file's largest p_align up to
   64 KiB where every PT_LOAD is (aarch64 links for 64 KiB pages): else a
   16 or 64 KiB kernel could not map it.  With 4 KiB p_aligns, 4 KiB.  */
START_TEST (test_stub_segment_align)
{
  for (int big = 0; big <= 1; big++)
    {
      struct synth_elf s = stub_pie (false);
      s.machine = EM_AARCH64;
      uint64_t a = big ? 64 * K : 4 * K;
      s.phdr[1].align = a;
      s.phdr[2] = (struct synth_phdr) { PT_LOAD, PF_R | PF_W, 0x600100, 0xa00100, 0x100, 0x3000, a };
      char *path = synth_temp_path ("segalign");
      ck_assert (synth_write (path, &s) == 0);
      struct elf_file f;
      struct diag err = { "" };
      ck_assert (elf_file_open (&f, path, &err) == 0);
      struct rewrite_plan p;
      struct plan_options po = {
	.layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
	.stub = { .wanted = true, .populate_max = 64, .move_table = true },
      };
      plan_checked (&p, &f, &po);
      const struct stub_plan *sp = &p.stub;
      ck_assert_msg (sp->enabled, "stub refused: %s", sp->refusal ? sp->refusal : "?");
      ck_assert_uint_eq (sp->page, a);
      ck_assert_uint_eq ((sp->seg_vaddr - sp->seg_offset) % a, 0);
      ck_assert_uint_eq (sp->seg_vaddr % a, 0);
      ck_assert_uint_ge (sp->seg_vaddr, 0xa03100);	/* not in the bss's last page */
      rewrite_plan_free (&p);
      elf_file_close (&f);
      unlink (path);
      free (path);
    }
}
END_TEST

/* A riscv64 shared object like pie64 whose ld.so calls no DT_INIT: the
   stub takes over the first of the two DT_INIT_ARRAY entries at 0x603dd0
   (file offset 0x602dd0), which MODE says how to fill.  Relocations go to
   0x400, in the first PT_LOAD; PT_DYNAMIC is at 0x603de0.  */
enum init_array_mode
{
  IA_RELA,			/* R_RISCV_RELATIVE relocations, addends 0x1100, 0x1200 */
  IA_RELR,			/* DT_RELR covers both entries, which hold 0x1100, 0x1200 */
  IA_SYMBOLIC,			/* the first entry's relocation is R_RISCV_64 against a symbol */
  IA_IRELATIVE,			/* ... R_RISCV_IRELATIVE (an IFUNC resolver's address) */
  IA_BOTH,			/* RELA and DT_RELR both relocate the first entry */
  IA_NONE,			/* no relocation of the entries */
  IA_SHORT,			/* DT_INIT_ARRAYSZ 4: not one entry */
  IA_TWICE,			/* DT_INIT_ARRAY appears twice */
  IA_ZERO,			/* the first addend is 0 */
  IA_OUTSIDE,			/* DT_RELA points past every PT_LOAD's file contents */
  IA_MODES
};

/* Dynamic entry K (TAG, VAL) of an ELF64 little-endian file into D.  */
static void
put_dyn (unsigned char *d, int k, uint64_t tag, uint64_t val)
{
  synth_put (d + 16 * k, tag, 8, 1);
  synth_put (d + 16 * k + 8, val, 8, 1);
}

/* Write the file of MODE (see enum init_array_mode) to a new temporary
   path, returned.  */
static char *
init_array_lib (enum init_array_mode mode)
{
  struct synth_elf s = pie64 ();
  s.machine = EM_RISCV;
  s.phnum = 5;
  s.phdr[4] = (struct synth_phdr) { PT_DYNAMIC, PF_R | PF_W, 0x602de0, 0x603de0, 0x80, 0x80, 8 };
  char *path = synth_temp_path ("initarray");
  ck_assert (synth_write (path, &s) == 0);
  unsigned char rel[48] = { 0 }, relr[16] = { 0 }, dyn[0x80] = { 0 }, slots[16] = { 0 };
  uint64_t info = mode == IA_SYMBOLIC ? ((uint64_t) 1 << 32 | R_RISCV_64)
		  : mode == IA_IRELATIVE ? R_RISCV_IRELATIVE : R_RISCV_RELATIVE;
  synth_put (rel, 0x603dd0, 8, 1);
  synth_put (rel + 8, info, 8, 1);
  synth_put (rel + 16, mode == IA_ZERO ? 0 : 0x1100, 8, 1);
  synth_put (rel + 24, 0x603dd8, 8, 1);
  synth_put (rel + 32, R_RISCV_RELATIVE, 8, 1);
  synth_put (rel + 40, 0x1200, 8, 1);
  synth_put (relr, 0x603dd0, 8, 1);	/* the first entry, */
  synth_put (relr + 8, 0x3, 8, 1);	/* and the word after it */
  synth_put (slots, 0x1100, 8, 1);
  synth_put (slots + 8, 0x1200, 8, 1);
  int k = 0;
  put_dyn (dyn, k++, DT_INIT_ARRAY, 0x603dd0);
  put_dyn (dyn, k++, DT_INIT_ARRAYSZ, mode == IA_SHORT ? 4 : 16);
  if (mode == IA_TWICE)
    put_dyn (dyn, k++, DT_INIT_ARRAY, 0x603dd8);
  if (mode == IA_RELR || mode == IA_BOTH)
    {
      put_dyn (dyn, k++, DT_RELR, mode == IA_BOTH ? 0x430 : 0x400);
      put_dyn (dyn, k++, DT_RELRSZ, 16);
      put_dyn (dyn, k++, DT_RELRENT, 8);
    }
  if (mode != IA_RELR && mode != IA_NONE)
    {
      put_dyn (dyn, k++, DT_RELA, mode == IA_OUTSIDE ? 0x700000 : 0x400);
      put_dyn (dyn, k++, DT_RELASZ, 48);
      put_dyn (dyn, k++, DT_RELAENT, 24);
    }
  FILE *fp = fopen (path, "r+b");
  ck_assert_ptr_nonnull (fp);
  fseek (fp, 0x400, SEEK_SET);
  if (mode == IA_RELR)
    fwrite (relr, 1, sizeof relr, fp);
  else
    fwrite (rel, 1, sizeof rel, fp);
  if (mode == IA_BOTH)
    {
      fseek (fp, 0x430, SEEK_SET);
      fwrite (relr, 1, sizeof relr, fp);
    }
  fseek (fp, 0x602dd0, SEEK_SET);
  fwrite (slots, 1, sizeof slots, fp);
  fseek (fp, 0x602de0, SEEK_SET);
  fwrite (dyn, 1, sizeof dyn, fp);
  fclose (fp);
  return path;
}

/* The patch of KIND in P, or NULL.  */
static struct plan_patch *
find_patch (struct rewrite_plan *p, enum patch_kind kind)
{
  for (size_t k = 0; k < p->pieces.npatches; k++)
    if (p->pieces.patches[k].kind == kind)
      return &p->pieces.patches[k];
  return NULL;
}

/* riscv64: the stub takes over DT_INIT_ARRAY[0], through the addend of its
   relocation or, with DT_RELR, the entry itself, and chains to the old
   function; the checker verifies that word on its own, and catches it
   patched in the wrong place or pointing elsewhere than the stub.  */
START_TEST (test_stub_init_array)
{
  for (int relr = 0; relr <= 1; relr++)
    {
      char *path = init_array_lib (relr ? IA_RELR : IA_RELA);
      struct elf_file f;
      struct diag err = { "" };
      ck_assert_msg (elf_file_open (&f, path, &err) == 0, "open: %s", err.msg);
      ck_assert (f.kind == OBJECT_SHARED);
      struct rewrite_plan p;
      struct plan_options po = {
	.layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
	.stub = { .wanted = true, .populate_max = 64, .move_table = true },
      };
      plan_checked (&p, &f, &po);
      const struct stub_plan *sp = &p.stub;
      ck_assert_msg (sp->enabled, "stub refused: %s", sp->refusal ? sp->refusal : "?");
      ck_assert_int_eq (sp->hook, STUB_HOOK_INIT_ARRAY);
      ck_assert_uint_eq (sp->old_target, 0x1100);
      ck_assert (sp->init_word_relr == (relr != 0));
      ck_assert_uint_eq (sp->init_word_old_offset, relr ? 0x602dd0 : 0x400 + 16);
      ck_assert_uint_eq (sp->entry_vaddr + (uint64_t) sp->params.target, 0x1100);
      struct plan_patch *word = find_patch (&p, PATCH_INIT_ARRAY);
      ck_assert_ptr_nonnull (word);
      ck_assert_uint_eq (word->len, 8);
      ck_assert_uint_eq (synth_get (word->bytes, 8, 1), sp->entry_vaddr);
      ck_assert_uint_eq (word->offset, layout_map_offset (&p.layout, sp->init_word_old_offset));

      /* The second entry's word instead of the first's.  */
      word->offset += relr ? 8 : 24;
      ck_assert_msg (check_plan (&p, &f, &err) != 0, "a patch of the second entry not caught");
      ck_assert_msg (strstr (err.msg, "is not the word that decides the entry"), "%s", err.msg);
      word->offset -= relr ? 8 : 24;
      /* The first entry pointing past the stub's segment.  */
      diag_clear (&err);
      synth_put (word->bytes, sp->seg_vaddr + sp->seg_size + 0x1000, 8, 1);
      ck_assert_msg (check_plan (&p, &f, &err) != 0, "a patch outside the stub not caught");
      ck_assert_msg (strstr (err.msg, "outside the stub's segment"), "%s", err.msg);
      /* Into the stub, but the stub continuing elsewhere than the old
	 first entry.  */
      diag_clear (&err);
      synth_put (word->bytes, sp->entry_vaddr + 4, 8, 1);
      ck_assert_msg (check_plan (&p, &f, &err) != 0, "a stub not continuing to 0x1100 not caught");
      ck_assert_msg (strstr (err.msg, "would not continue to 0x1100"), "%s", err.msg);
      /* As it was planned, it passes again.  */
      diag_clear (&err);
      synth_put (word->bytes, sp->entry_vaddr, 8, 1);
      ck_assert_msg (check_plan (&p, &f, &err) == 0, "%s", err.msg);
      rewrite_plan_free (&p);
      elf_file_close (&f);

      /* The rewrite runs the checker on the written file too.  */
      struct run_options o = { .rule = ALIGN_RULE_RELAXED, .pad = true,
			       .stub = { .wanted = true, .move_table = true }, .format = REPORT_NONE };
      ck_assert_int_eq (process_file (path, &o, stdout, stderr), 0);
      unlink (path);
      free (path);
    }
}
END_TEST

/* riscv64: the files whose DT_INIT_ARRAY[0] the stub must leave alone get
   no stub, a reason, and a plan the checker accepts.  */
static const struct
{
  enum init_array_mode mode;
  const char *why;
} init_array_refusals[] = {
  { IA_SYMBOLIC, "symbolic relocation" },
  { IA_IRELATIVE, "another type than the machine's relative one" },
  { IA_BOTH, "more than one relocation" },
  { IA_NONE, "no relocation fills" },
  { IA_SHORT, "has no entry" },
  { IA_TWICE, "appears twice" },
  { IA_ZERO, "holds 0 or -1" },
  { IA_OUTSIDE, "outside the PT_LOADs' file contents" },
};

START_TEST (test_stub_init_array_refusals)
{
  char *path = init_array_lib (init_array_refusals[_i].mode);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (&f, path, &err) == 0, "open: %s", err.msg);
  struct rewrite_plan p;
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
    .stub = { .wanted = true, .populate_max = 64 },
  };
  plan_checked (&p, &f, &po);
  ck_assert (!p.stub.enabled);
  ck_assert_msg (p.stub.refusal != NULL && strstr (p.stub.refusal, init_array_refusals[_i].why),
		 "mode %d: refusal %s, expected %s", _i, p.stub.refusal ? p.stub.refusal : "none",
		 init_array_refusals[_i].why);
  ck_assert (p.changed);	/* the text is still aligned */
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* A Go-like program: the section header table right after the program
   header table, inside the first PT_LOAD, nothing else before the text.
   The sections are written anew after the stub's segment, so the table
   grows in place over the old section headers (no move: GNU strip keeps
   such a file working); without section names to extend it would move.  */
START_TEST (test_stub_grow_over_shdrs)
{
  for (int names = 1; names >= 0; names--)
    {
      struct synth_elf s = {
	.elfclass = 2, .data = 1, .type = ET_EXEC, .machine = EM_X86_64, .phnum = 4,
	.phdr = {
	  { PT_PHDR, PF_R, 64, 0x400040, 4 * 56, 4 * 56, 0x1000 },
	  { PT_LOAD, PF_R | PF_X, 0, 0x400000, 6 * M, 6 * M, 0x1000 },
	  { PT_LOAD, PF_R | PF_W, 0x600000, 0xa00000, 0x100, 0x3000, 0x1000 },
	  { PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 8 },
	},
	.size = 0x600110,
	.shnum = 2,
	.shdr = {
	  { SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x401000, 0x1000, 6 * M - 0x1000 },
	  { SHT_STRTAB, 0, 0, 0x600100, 0x10 },
	},
	.shoff = 64 + 4 * 56,
	.shstrndx = names ? 2 : 0,
      };
      char *path = synth_temp_path ("goshape");
      ck_assert (synth_write (path, &s) == 0);
      struct elf_file f;
      struct diag err = { "" };
      ck_assert (elf_file_open (&f, path, &err) == 0);
      struct rewrite_plan p;
      struct plan_options po = {
	.layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
	.stub = { .wanted = true, .populate_max = 64 },
      };
      plan_checked (&p, &f, &po);
      if (!names)
	{
	  /* The old section headers stay (nothing to extend): no room.  */
	  ck_assert (!p.stub.enabled);
	  ck_assert_ptr_nonnull (strstr (p.stub.refusal, "--move-table"));
	  rewrite_plan_free (&p);
	  elf_file_close (&f);
	  unlink (path);
	  free (path);
	  continue;
	}
      const struct stub_plan *sp = &p.stub;
      ck_assert_msg (sp->enabled, "stub refused: %s", sp->refusal ? sp->refusal : "?");
      ck_assert_int_eq (sp->room.kind, ROOM_GROWN);
      ck_assert_uint_eq (sp->room.nmoved, 0);
      ck_assert_uint_eq (p.tables.ehdr.e_phoff, 64);
      ck_assert_uint_eq (p.tables.phnum, 5);
      ck_assert_uint_ge (sp->shdr_offset, sp->seg_offset + sp->seg_size);
      rewrite_plan_free (&p);
      elf_file_close (&f);

      struct run_options o = { .rule = ALIGN_RULE_RELAXED, .pad = true, .stub = { .wanted = true },
			       .format = REPORT_NONE };
      ck_assert_int_eq (process_file (path, &o, stdout, stderr), 0);
      /* Read back without libelf: e_phoff, e_phnum, e_shoff.  */
      FILE *fp = fopen (path, "rb");
      unsigned char h[64];
      ck_assert_uint_eq (fread (h, 1, sizeof h, fp), sizeof h);
      fclose (fp);
      ck_assert_uint_eq (synth_get (h + 32, 8, 1), 64);
      ck_assert_uint_eq (synth_get (h + 56, 2, 1), 5);
      ck_assert_uint_gt (synth_get (h + 40, 8, 1), 0x600110);
      /* A second run finds the stub (at the end of a segment that is not
	 searched whole).  */
      ck_assert (elf_file_open (&f, path, &err) == 0);
      plan_checked (&p, &f, &po);
      ck_assert (p.stub.present);
      rewrite_plan_free (&p);
      elf_file_close (&f);
      unlink (path);
      free (path);
    }
}
END_TEST

START_TEST (test_stub_refusals)
{
  struct synth_elf s = stub_pie (true);
  s.machine = EM_PPC64;		/* no stub for it yet */
  char *path = synth_temp_path ("stubno");
  ck_assert (synth_write (path, &s) == 0);
  struct elf_file f;
  struct diag err = { "" };
  ck_assert (elf_file_open (&f, path, &err) == 0);
  struct rewrite_plan p;
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K, .pad = true },
    .stub = { .wanted = true, .populate_max = 64 },
  };
  ck_assert (rewrite_plan_build (&p, &f, &po, &err) == 0);
  ck_assert (!p.stub.enabled);
  ck_assert_ptr_nonnull (strstr (p.stub.refusal, "no startup stub for ppc64"));
  rewrite_plan_free (&p);
  elf_file_close (&f);

  /* Text too small for a whole chunk: nothing for the stub to do.  */
  s = stub_pie (true);
  s.phdr[1].filesz = s.phdr[1].memsz = M;
  s.phdr[2].offset = 0x100000;
  ck_assert (synth_write (path, &s) == 0);
  ck_assert (elf_file_open (&f, path, &err) == 0);
  ck_assert (rewrite_plan_build (&p, &f, &po, &err) == 0);
  ck_assert (!p.stub.enabled);
  ck_assert_ptr_nonnull (strstr (p.stub.refusal, "no whole PMD chunk"));
  rewrite_plan_free (&p);
  elf_file_close (&f);

  /* A page size the segments do not honour (the data segment is only
     4 KiB-congruent): the stub's segment could not be placed.  */
  s = stub_pie (true);
  s.phdr[2].vaddr = 0xa01000;
  ck_assert (synth_write (path, &s) == 0);
  ck_assert (elf_file_open (&f, path, &err) == 0);
  po.layout.page = 16 * K;
  ck_assert (rewrite_plan_build (&p, &f, &po, &err) == 0);
  ck_assert (!p.stub.enabled);
  ck_assert_ptr_nonnull (strstr (p.stub.refusal, "page size"));
  ck_assert_msg (check_plan (&p, &f, &err) == 0, "%s", err.msg);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* A shared object's program headers after its text (BOLT puts them in a
   later segment): ld.so finds them through PT_PHDR, so the text before them
   is padded, and they move with the bytes around them.  */
START_TEST (test_plan_shared_phdrs_after)
{
  struct synth_elf s = lld64 ();
  s.phoff = 0x600c00;
  s.size = 0x601000;
  s.shnum = 0;
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert_msg (p.layout.segs[1].action == SEGMENT_PADDED, "action %s: %s",
		 segment_action_name (p.layout.segs[1].action),
		 p.layout.segs[1].refusal ? p.layout.segs[1].refusal : "");
  ck_assert_uint_eq (p.tables.ehdr.e_phoff, 0x600c00 + 0x1000);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* Hostile alignments: a later PT_LOAD whose own p_align (2^40, 2^62, with
   its address that far from its offset) would need more than a PMD of
   padding to stay congruent refuses the padding before it; the plan never
   grows past one PMD per hole.  */
START_TEST (test_plan_hostile_align)
{
  static const unsigned shifts[] = { 33, 40, 62 };
  for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++)
    {
      uint64_t a = (uint64_t) 1 << shifts[k];
      struct synth_elf s = lld64 ();
      s.phdr[2].vaddr = s.phdr[2].offset + a;
      s.phdr[2].align = a;
      s.phdr[4].vaddr = s.phdr[2].vaddr;
      s.shdr[2].addr = s.phdr[2].vaddr;
      s.shdr[3].addr = s.phdr[2].vaddr + 0x200;
      struct elf_file f;
      struct rewrite_plan p;
      char *path;
      plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
      ck_assert_msg (p.layout.segs[1].action == SEGMENT_PADDING_REFUSED, "2^%u: action %s",
		     shifts[k], segment_action_name (p.layout.segs[1].action));
      ck_assert_ptr_nonnull (strstr (p.layout.segs[1].refusal, "more than a PMD"));
      ck_assert_uint_le (p.tables.size, p.old_size + 2 * M);
      rewrite_plan_free (&p);
      elf_file_close (&f);
      unlink (path);
      free (path);
    }
}
END_TEST

/* The checker is independent of the planner: a planning error injected
   into a correct plan is caught.  */
static void x_offset (struct rewrite_plan *p) { p->tables.phdrs[1].p_offset += 0x10; }
static void x_section (struct rewrite_plan *p) { p->tables.shdrs[2].sh_offset -= 0x1000; }
static void x_copy (struct rewrite_plan *p) { p->pieces.copies[p->pieces.ncopies - 1].to += 0x1000; }
static void x_align (struct rewrite_plan *p) { p->tables.phdrs[2].p_align = 2 * M; }
static void x_grow (struct rewrite_plan *p) { p->tables.size += 64 * M; }
static void x_no_hole (struct rewrite_plan *p)
{
  /* The text back at its old offset, with its bytes: congruence is lost.  */
  p->tables.phdrs[1].p_offset -= 0x1000;
  p->pieces.copies[1].to -= 0x1000;
}
static void x_overlap (struct rewrite_plan *p) { p->tables.shdrs[1].sh_offset = p->tables.shdrs[2].sh_offset; }
static void x_monotone (struct rewrite_plan *p)
{
  /* The data segment and its section where the input had them: before the
     hole closes, against the map.  */
  p->tables.phdrs[2].p_offset -= 0x1000;
  p->tables.phdrs[4].p_offset -= 0x1000;
  p->tables.shdrs[3].sh_offset -= 0x1000;
}

static void (*const plan_damage[]) (struct rewrite_plan *) = {
  x_offset, x_section, x_copy, x_align, x_grow, x_no_hole, x_overlap, x_monotone,
};

START_TEST (test_checker_catches_planning_errors)
{
  struct synth_elf s = lld64 ();
  struct elf_file f;
  struct rewrite_plan p;
  char *path;
  plan_of (&s, ALIGN_RULE_RELAXED, 2 * M, &f, &p, &path);
  ck_assert_uint_eq (p.layout.ninserts, 1);
  plan_damage[_i] (&p);
  struct diag err = { "" };
  ck_assert_msg (check_plan (&p, &f, &err) != 0, "damage %d not caught", _i);
  ck_assert_msg (strstr (err.msg, "internal error") != NULL, "damage %d: %s", _i, err.msg);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* lld64 with a GNU build-id note of 16 bytes (OLD) in its PT_NOTE, at 0x400
   before the hole (AFTER false) or at 0x600900 in the data segment after
   it, little-endian or (BIG) as a big-endian ppc64 file; written to a new
   file *PATH and opened as *F.  */
static const unsigned char old_build_id[16] = {
  0x5f, 0x3a, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
};

static uint64_t
build_id_file (bool after, bool big, struct elf_file *f, char **path)
{
  struct synth_elf s = lld64 ();
  uint64_t note = after ? 0x600900 : 0x400;
  if (big)
    {
      s.data = 2;
      s.machine = EM_PPC64;
    }
  if (after)
    {
      s.phdr[3].offset = note;
      s.phdr[3].vaddr = note + 0x2000;
    }
  *path = synth_temp_path ("buildid");
  ck_assert (synth_write (*path, &s) == 0);
  unsigned char n[32] = { 0 };
  synth_put (n, 4, 4, s.data);	/* n_namesz */
  synth_put (n + 4, sizeof old_build_id, 4, s.data);
  synth_put (n + 8, NT_GNU_BUILD_ID, 4, s.data);
  memcpy (n + 12, "GNU", 4);
  memcpy (n + 16, old_build_id, sizeof old_build_id);
  FILE *fp = fopen (*path, "r+b");
  ck_assert (fp != NULL && fseek (fp, (long) note, SEEK_SET) == 0);
  ck_assert (fwrite (n, 1, sizeof n, fp) == sizeof n && fclose (fp) == 0);
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (f, *path, &err) == 0, "open: %s", err.msg);
  return note + 16;
}

/* The build-id: derived into a patch over the note's desc where the note
   lands (the same twice), kept with --build-id=keep, left alone in a file
   that does not change; before and after the hole, and big-endian.  */
START_TEST (test_build_id)
{
  struct elf_file f;
  char *path;
  uint64_t desc = build_id_file (_i == 1, _i == 2, &f, &path);
  uint64_t out_desc = _i == 1 ? desc + 0x1000 : desc;	/* after the hole: moved by it */
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K,
					  .pad = true } };
  struct rewrite_plan p, q;
  plan_checked (&p, &f, &po);
  const struct plan_patch *b = find_patch (&p, PATCH_BUILD_ID);
  ck_assert_ptr_nonnull (b);
  ck_assert_uint_eq (b->offset, out_desc);
  ck_assert_uint_eq (b->len, sizeof old_build_id);
  ck_assert (memcmp (b->bytes, old_build_id, sizeof old_build_id) != 0);
  ck_assert (p.build_id.derived && p.build_id.notes == 1 && p.build_id.len == sizeof old_build_id);
  ck_assert (memcmp (p.build_id.before, old_build_id, sizeof old_build_id) == 0);
  ck_assert (memcmp (p.build_id.after, b->bytes, sizeof old_build_id) == 0);
  plan_checked (&q, &f, &po);
  ck_assert (memcmp (find_patch (&q, PATCH_BUILD_ID)->bytes, b->bytes, b->len) == 0);
  rewrite_plan_free (&q);
  po.build_id = BUILD_ID_KEEP;
  plan_checked (&q, &f, &po);
  ck_assert_ptr_null (find_patch (&q, PATCH_BUILD_ID));
  ck_assert (!q.build_id.derived && memcmp (q.build_id.after, old_build_id, sizeof old_build_id) == 0);
  rewrite_plan_free (&q);
  po.build_id = BUILD_ID_DERIVE;
  po.layout.rule = ALIGN_RULE_KERNEL;	/* nothing eligible: no change */
  plan_checked (&q, &f, &po);
  ck_assert (!q.changed);
  ck_assert_ptr_null (find_patch (&q, PATCH_BUILD_ID));
  ck_assert (q.build_id.notes == 1 && !q.build_id.derived);
  rewrite_plan_free (&q);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* A build-id the rewrite writes something else over (a hostile note whose
   desc is the section header table's first entry) is refused by name,
   not patched.  */
START_TEST (test_build_id_under_table)
{
  struct synth_elf s = lld64 ();
  s.shoff = 0x600a70;
  s.phdr[3].offset = 0x600a60;
  s.phdr[3].vaddr = 0x602a60;
  char *path = synth_temp_path ("buildid-table");
  ck_assert (synth_write (path, &s) == 0);
  unsigned char n[16] = { 0 };
  synth_put (n, 4, 4, 1);
  synth_put (n + 4, 16, 4, 1);
  synth_put (n + 8, NT_GNU_BUILD_ID, 4, 1);
  memcpy (n + 12, "GNU", 4);
  FILE *fp = fopen (path, "r+b");
  ck_assert (fp != NULL && fseek (fp, 0x600a60, SEEK_SET) == 0);
  ck_assert (fwrite (n, 1, sizeof n, fp) == sizeof n && fclose (fp) == 0);
  struct elf_file f;
  struct rewrite_plan p;
  struct diag err = { "" };
  ck_assert_msg (elf_file_open (&f, path, &err) == 0, "open: %s", err.msg);
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K,
					  .pad = true } };
  ck_assert (rewrite_plan_build (&p, &f, &po, &err) != 0);
  ck_assert_msg (strstr (err.msg, "lies under the section header table") != NULL, "%s", err.msg);
  po.build_id = BUILD_ID_KEEP;
  plan_checked (&p, &f, &po);
  ck_assert (p.changed && p.build_id.notes == 1 && !p.build_id.derived);
  rewrite_plan_free (&p);
  elf_file_close (&f);
  unlink (path);
  free (path);
}
END_TEST

/* The checker allows a build-id patch only over the desc of a build-id
   note: moved into its header, into the text, cut short, or given twice,
   it is caught.  */
static void b_header (struct plan_patch *b) { b->offset -= 4; }
static void b_text (struct plan_patch *b) { b->offset = 0x1870 + 0x100; }
static void b_short (struct plan_patch *b) { b->len -= 1; }
static void b_past (struct plan_patch *b) { b->offset += 4; }

static void (*const build_id_damage[]) (struct plan_patch *) = {
  b_header, b_text, b_short, b_past, NULL,
};

START_TEST (test_checker_build_id)
{
  struct elf_file f;
  char *path;
  build_id_file (false, false, &f, &path);
  struct plan_options po = { .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = 2 * M, .page = 4 * K,
					  .pad = true } };
  struct rewrite_plan p;
  plan_checked (&p, &f, &po);
  struct plan_patch *b = find_patch (&p, PATCH_BUILD_ID);
  ck_assert_ptr_nonnull (b);
  struct diag err = { "" };
  if (build_id_damage[_i] != NULL)
    build_id_damage[_i] (b);
  else
    {
      /* The same patch twice.  */
      unsigned char *again = malloc (b->len);
      ck_assert_ptr_nonnull (again);
      memcpy (again, b->bytes, b->len);
      ck_assert (pieces_add_patch (&p.pieces, PATCH_BUILD_ID, b->offset, again, b->len, &err) == 0);
    }
  ck_assert_msg (check_plan (&p, &f, &err) != 0, "build-id damage %d not caught", _i);
  ck_assert_msg (strstr (err.msg, "build-id") != NULL, "build-id damage %d: %s", _i, err.msg);
  rewrite_plan_free (&p);
  elf_file_close (&f);
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
  /* Temporary files go to a directory removed also when an assertion fails.  */
  tcase_add_unchecked_fixture (tc, synth_temp_dir_create, synth_temp_dir_remove);
  tcase_add_loop_test (tc, test_refusals, 0, sizeof refusals / sizeof refusals[0]);
  tcase_add_test (tc, test_plan_pie);
  tcase_add_test (tc, test_plan_padding);
  tcase_add_test (tc, test_plan_no_pad);
  tcase_add_test (tc, test_plan_keeps_later_alignment);
  tcase_add_loop_test (tc, test_padding_refusals, 0, sizeof padding_refusals / sizeof padding_refusals[0]);
  tcase_add_test (tc, test_rewrite_padded);
  tcase_add_test (tc, test_rewrite_refuses_replaced_path);
  tcase_add_test (tc, test_stub_plan);
  tcase_add_test (tc, test_stub_grow);
  tcase_add_test (tc, test_stub_grow_over_shdrs);
  tcase_add_test (tc, test_stub_refusals);
  tcase_add_test (tc, test_stub_init_array);
  tcase_add_loop_test (tc, test_stub_init_array_refusals, 0,
		       sizeof init_array_refusals / sizeof init_array_refusals[0]);
  tcase_add_test (tc, test_stub_two_null_slots);
  tcase_add_test (tc, test_stub_segment_align);
  tcase_add_test (tc, test_plan_shared_phdrs_after);
  tcase_add_test (tc, test_plan_hostile_align);
  tcase_add_loop_test (tc, test_checker_catches_planning_errors, 0,
		       sizeof plan_damage / sizeof plan_damage[0]);
  tcase_add_loop_test (tc, test_build_id, 0, 3);
  tcase_add_test (tc, test_build_id_under_table);
  tcase_add_loop_test (tc, test_checker_build_id, 0,
		       sizeof build_id_damage / sizeof build_id_damage[0]);
  tcase_add_test (tc, test_plan_exec);
  tcase_add_test (tc, test_rewrite_classes);
  tcase_add_test (tc, test_unknown_machine_fails_untouched);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
