/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The pieces a rewrite is made of, as plain data: byte ranges copied from
   the input, literal byte patches, and the output's header tables.  The
   layout and the stub produce them, plan.c composes them, write.c applies
   them and check.c verifies them; none of those needs to know who made a
   piece.  */
#ifndef ELFPMD_PIECES_H
#define ELFPMD_PIECES_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* LEN bytes of the input at FROM go to the output at TO.  */
struct plan_copy
{
  uint64_t from, to, len;
};

/* What a patch holds, which says where the checker allows it.  */
enum patch_kind
{
  PATCH_EHDR,			/* the ELF header */
  PATCH_PHDRS,			/* the program header table */
  PATCH_SHDRS,			/* the section header table */
  PATCH_DYNAMIC,		/* one dynamic entry */
  PATCH_SYMBOL,			/* one symbol of a symbol table */
  PATCH_STUB,			/* the startup stub's code and parameters */
  PATCH_NAMES,			/* a copy of the section name table, extended */
  PATCH_DEBUGDATA,		/* the stub's MiniDebugInfo, a new .gnu_debugdata */
  PATCH_STUB_SYMBOLS,		/* the stub's symbols, appended to a copy of .symtab */
  PATCH_STUB_NAMES,		/* their names, appended to a copy of its string table */
  PATCH_CLEAR,			/* zeros over the old place of moved objects */
  PATCH_INIT_ARRAY,		/* the word deciding DT_INIT_ARRAY[0]: its relocation's
				   r_addend, or the entry itself (DT_RELR) */
  PATCH_BUILD_ID,		/* the desc of a GNU build-id note, a new build-id */
};

/* LEN literal bytes at output offset OFFSET, written after every copy.  */
struct plan_patch
{
  enum patch_kind kind;
  uint64_t offset;
  size_t len;
  unsigned char *bytes;
};

struct plan_pieces
{
  size_t ncopies, copies_cap;
  struct plan_copy *copies;
  size_t npatches, patches_cap;
  struct plan_patch *patches;
};

/* The output's headers, in native form, before encoding: PHNUM and SHNUM are
   the real counts (plan.c encodes PN_XNUM and SHN_LORESERVE overflows).  */
struct plan_tables
{
  GElf_Ehdr ehdr;
  size_t phnum;
  GElf_Phdr *phdrs;
  size_t shnum;
  GElf_Shdr *shdrs;
  uint64_t size;		/* the output's size in bytes */
};

/* Append a copy of LEN bytes (none when LEN is 0).  Return 0, or -1.  */
int pieces_add_copy (struct plan_pieces *p, uint64_t from, uint64_t to, uint64_t len,
		     struct diag *err);

/* Append a patch of LEN bytes at OFFSET; P owns BYTES from now on, also on
   failure.  Return 0, or -1.  */
int pieces_add_patch (struct plan_pieces *p, enum patch_kind kind, uint64_t offset,
		      unsigned char *bytes, size_t len, struct diag *err);

void pieces_free (struct plan_pieces *p);

const char *patch_kind_name (enum patch_kind kind);

#endif
