/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Synthetic ELF files for the unit tests, written byte by byte without libelf
   or any code of the tool, so that the tests do not share code with what
   they check.  */
#ifndef ELFPMD_TESTS_SYNTH_H
#define ELFPMD_TESTS_SYNTH_H

#include <stddef.h>
#include <stdint.h>

struct synth_phdr
{
  uint32_t type, flags;
  uint64_t offset, vaddr, filesz, memsz, align;
};

struct synth_shdr
{
  uint32_t type;
  uint64_t flags, addr, offset, size;
};

struct synth_elf
{
  int elfclass;			/* 1 = ELF32, 2 = ELF64 */
  int data;			/* 1 = little-endian, 2 = big-endian */
  unsigned type;		/* ET_* */
  unsigned machine;		/* EM_* */
  uint64_t phoff;		/* 0: right after the ELF header */
  size_t phnum;
  struct synth_phdr phdr[16];
  uint64_t size;		/* file size; 0: just past the last segment */
  size_t shnum;			/* sections after the null one; 0: no section headers */
  struct synth_shdr shdr[8];	/* written at SHOFF */
  uint64_t shoff;		/* 0: at the end of the file */
  size_t shstrndx;		/* e_shstrndx */
};

/* Write S to PATH; return 0 or -1.  */
int synth_write (const char *path, const struct synth_elf *s);

/* Read the p_align of program header INDEX of the ELF file PATH written by
   synth_write (same class and byte order as S); return it or UINT64_MAX.  */
uint64_t synth_read_align (const char *path, const struct synth_elf *s, size_t index);

/* Encode V as N bytes in byte order DATA at P.  */
void synth_put (unsigned char *p, uint64_t v, int n, int data);
uint64_t synth_get (const unsigned char *p, int n, int data);

/* A temporary file name for one test; free it.  The file is created in the
   directory of synth_temp_dir_create when there is one, else in $TMPDIR or
   /tmp.  */
char *synth_temp_path (const char *tag);

/* An unchecked fixture, for every test case that makes temporary files:
     tcase_add_unchecked_fixture (tc, synth_temp_dir_create, synth_temp_dir_remove);
   Setup makes a directory in $TMPDIR (or /tmp) for this test case's
   temporary files, teardown removes it with everything in it.  Check runs
   unchecked fixtures in the runner itself, also when a test failed, so the
   files of a test whose assertion failed (in the forked child, before its
   own unlink) go too, and so do files that process_file left beside them.  */
void synth_temp_dir_create (void);
void synth_temp_dir_remove (void);

/* Remove PATH and, if it is a directory, everything in it.  */
void synth_remove_tree (const char *path);

#endif
