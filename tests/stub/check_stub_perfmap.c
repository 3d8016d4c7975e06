/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the stub's perf map (stub/perfmap.c) on the fake kernel:
   what it writes for a well-formed symbol table, and that it ends, reads
   nothing it should not and writes only well-formed lines for hostile ones
   (offsets past the end, counts that wrap, links out of range, names
   without an end or with newlines).  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

#define TEXT 0x40000000UL	/* where the text runs; the file's vaddr 0x400000 */
#define VADDR 0x400000UL
#define PMD ((uint64_t) 2 << 20)

/* An ELF64 little-endian file: header, one PT_LOAD, section headers
   (null, .symtab, .strtab), the symbols and their names.  */
static unsigned char image[1 << 16];
static size_t image_len;

static void
put (size_t at, uint64_t v, int size)
{
  for (int k = 0; k < size; k++)
    image[at + (size_t) k] = (unsigned char) (v >> (8 * k));
}

enum
{ PHOFF = 64, SHOFF = 128, SYMOFF = 512, STROFF = 4096 };

/* Symbols: name offset, type (STT_FUNC 2), value, size.  */
struct sym
{
  uint32_t name;
  int type;
  uint64_t value, size;
};

static const char strings[] = "\0inside\0outside\0new\nline\0edge";

static void
make_image (const struct sym *syms, int n)
{
  memset (image, 0, sizeof image);
  memcpy (image, "\177ELF\2\1\1", 7);
  put (16, 3, 2);			/* ET_DYN */
  put (32, PHOFF, 8);
  put (40, SHOFF, 8);
  put (56, 1, 2);			/* phnum */
  put (60, 3, 2);			/* shnum */
  put (PHOFF + 0, 1, 4);		/* PT_LOAD */
  put (PHOFF + 8, 0, 8);		/* p_offset */
  put (PHOFF + 16, VADDR, 8);		/* p_vaddr */
  put (PHOFF + 32, 8 * PMD, 8);		/* p_filesz */
  /* [1] .symtab, linked to [2] .strtab.  */
  put (SHOFF + 64 + 4, 2, 4);
  put (SHOFF + 64 + 24, SYMOFF, 8);
  put (SHOFF + 64 + 32, (uint64_t) n * 24, 8);
  put (SHOFF + 64 + 40, 2, 4);
  put (SHOFF + 128 + 4, 3, 4);
  put (SHOFF + 128 + 24, STROFF, 8);
  put (SHOFF + 128 + 32, sizeof strings, 8);
  for (int k = 0; k < n; k++)
    {
      size_t at = SYMOFF + (size_t) k * 24;
      put (at, syms[k].name, 4);
      image[at + 4] = (unsigned char) syms[k].type;
      put (at + 8, syms[k].value, 8);
      put (at + 16, syms[k].size, 8);
    }
  memcpy (image + STROFF, strings, sizeof strings);
  image_len = STROFF + sizeof strings;
}

static const struct stub_params params = { .pmd = PMD, .flags = STUB_FLAG_EXE };

/* A stub whose object (opened from the fake /proc/self/exe) had its first
   chunk copied, the one at TEXT (file offset 0).  */
static struct stub
stub_with_copy (void)
{
  struct stub st = {
    .p = &params, .self = TEXT, .pmd = PMD, .page = 4096, .pagemap = -2, .scan = -1,
    .file = -2, .exe = -2, .cachestat = -1, .guard = -2, .secure = -1,
  };
  fake_file ("/proc/self/exe", image, image_len);
  st.file = (int) syscall6 (SYS_openat, AT_FDCWD, (long) "/proc/self/exe", O_RDONLY, 0, 0, 0);
  ck_assert_int_ge (st.file, 0);
  ck_assert_ptr_nonnull (scratch (&st));
  st.scratch->copies[0] = (struct copy) { .start = TEXT, .length = PMD, .file_offset = 0 };
  st.ncopies = 1;
  return st;
}

/* Every line written is "HEX HEX NAME" without a control character, and
   there are at most MAX of them; return their number.  */
static int
check_lines (int max)
{
  regex_t re;
  ck_assert_int_eq (regcomp (&re, "^[0-9a-f]+ [0-9a-f]+ [^[:cntrl:]]*$", REG_EXTENDED | REG_NOSUB), 0);
  char *text = strndup (fake.written, fake.nwritten);
  ck_assert_msg (fake.nwritten == 0 || fake.written[fake.nwritten - 1] == '\n',
		 "the perf map does not end with a newline");
  int n = 0;
  for (char *save = NULL, *line = strtok_r (text, "\n", &save); line != NULL;
       line = strtok_r (NULL, "\n", &save), n++)
    ck_assert_msg (regexec (&re, line, 0, NULL, 0) == 0, "malformed line: \"%s\"", line);
  free (text);
  regfree (&re);
  ck_assert_int_le (n, max);
  return n;
}

START_TEST (test_well_formed)
{
  static const struct sym syms[] = {
    { 1, 2, VADDR + 0x1000, 0x40 },	/* inside the copy */
    { 8, 2, VADDR + 3 * PMD, 0x40 },	/* outside it */
    { 16, 2, VADDR + 0x2000, 0x10 },	/* a newline in its name */
    { 1, 1, VADDR + 0x3000, 0x10 },	/* STT_OBJECT */
    { 1, 2, VADDR + 0x4000, 0 },	/* no size */
    { 0, 2, VADDR + 0x5000, 0x10 },	/* no name */
    { 25, 2, VADDR + PMD - 8, 0x100 },	/* overlaps the copy's end */
  };
  fake_reset ();
  make_image (syms, 7);
  struct stub st = stub_with_copy ();
  write_perf_map (&st);
  ck_assert (fake_opened ("/tmp/perf-4242.map", O_CREAT | O_EXCL));
  ck_assert_int_eq (check_lines (3), 3);
  char want[256];
  snprintf (want, sizeof want, "%lx 40 inside\n%lx 10 new?line\n%lx 100 edge\n",
	    TEXT + 0x1000, TEXT + 0x2000, TEXT + PMD - 8);
  ck_assert_int_eq (fake.nwritten, strlen (want));
  ck_assert (memcmp (fake.written, want, fake.nwritten) == 0);
  ck_assert_int_eq (fake_open_fds (), 1);	/* the object's file, the caller's */
}
END_TEST

/* Hostile headers: each makes the map end early, or skip symbols; nothing
   is read past what the file has, and every line is well-formed.  */
START_TEST (test_hostile)
{
  static const struct sym syms[] = {
    { 1, 2, VADDR + 0x1000, 0x40 },
    { 0xffffffff, 2, VADDR + 0x1100, 0x40 },	/* name past the strings */
    { 30, 2, VADDR + 0x1200, 0x40 },	/* name at the end, no NUL after */
    { 1, 2, 0xfffffffffffffff0ULL, 0x40 },	/* address that wraps */
    { 1, 2, VADDR + 0x1300, 0xffffffffffffffffULL },	/* size that wraps */
  };
  static const struct
  {
    size_t at;
    uint64_t value;
    int size;
    int max_lines;
  } cases[] = {
    { 32, 1 << 20, 8, 0 },		/* e_phoff past the end */
    { 56, 0xffff, 2, 4 },		/* phnum: reads run past the end */
    { 40, 0xfffffffffffffff0ULL, 8, 0 },	/* e_shoff wraps */
    { 60, 0xffff, 2, 4 },		/* shnum: more headers than the file */
    { SHOFF + 64 + 40, 0xffff, 4, 0 },	/* sh_link out of range */
    { SHOFF + 64 + 32, 0x7fffffffffffffffULL, 8, 4 },	/* symbols past the end */
    { SHOFF + 64 + 32, 23, 8, 0 },	/* less than one symbol */
    { SHOFF + 64 + 24, 0xffffffffffffffe0ULL, 8, 0 },	/* sh_offset wraps */
    { SHOFF + 128 + 24, 0xfffffffffffffff0ULL, 8, 0 },	/* strings' offset wraps */
    { SHOFF + 128 + 32, 0xffffffffffffffffULL, 8, 4 },	/* strings' size */
    { 4, 1, 1, 0 },			/* ELFCLASS32 */
    { 5, 2, 1, 0 },			/* big-endian */
    { SHOFF + 64 + 4, 11, 4, 4 },	/* SHT_DYNSYM instead */
    { SHOFF + 64 + 4, 9, 4, 0 },	/* no symbol table */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      fake_reset ();
      make_image (syms, 5);
      put (cases[k].at, cases[k].value, cases[k].size);
      struct stub st = stub_with_copy ();
      write_perf_map (&st);
      check_lines (cases[k].max_lines);
      ck_assert_msg (fake.ncalls < 2000, "case %zu: %d system calls", k, fake.ncalls);
    }
}
END_TEST

/* A symbol table as large as the file allows, every entry a function in
   the copy with a name of 300 bytes: the lines are cut to 255 bytes of
   name, and the buffer is flushed as it fills.  */
START_TEST (test_many)
{
  fake_reset ();
  make_image (NULL, 0);
  size_t nsyms = (STROFF - SYMOFF) / 24;
  for (size_t k = 0; k < nsyms; k++)
    {
      size_t at = SYMOFF + k * 24;
      put (at, 40, 4);
      image[at + 4] = 2;
      put (at + 8, VADDR + 16 * k, 8);
      put (at + 16, 16, 8);
    }
  put (SHOFF + 64 + 32, nsyms * 24, 8);
  memset (image + STROFF + 40, 'x', 300);
  image[STROFF + 340] = '\0';
  put (SHOFF + 128 + 32, 400, 8);
  image_len = STROFF + 400;
  struct stub st = stub_with_copy ();
  write_perf_map (&st);
  ck_assert_int_eq (check_lines ((int) nsyms), (int) nsyms);
  ck_assert_uint_eq (fake.nwritten, nsyms * (8 + 1 + 2 + 1 + 255 + 1));
}
END_TEST

static Suite *
perfmap_suite (void)
{
  Suite *s = suite_create ("stub perf map");
  TCase *tc = tcase_create ("symbols");
  tcase_add_test (tc, test_well_formed);
  tcase_add_test (tc, test_hostile);
  tcase_add_test (tc, test_many);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (perfmap_suite ());
}
