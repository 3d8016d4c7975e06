/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The one encoder of ELF records: headers, program and section headers,
   dynamic entries and symbols, from libelf's class-independent GElf form
   into a file's class and byte order.  */
#ifndef ELFPMD_ELF_ENCODE_H
#define ELFPMD_ELF_ENCODE_H

#include <gelf.h>
#include <stddef.h>

#include "diag.h"

/* Encode COUNT records of TYPE (ELF_T_EHDR, ELF_T_PHDR, ELF_T_SHDR,
   ELF_T_DYN or ELF_T_SYM) at SRC, an array of the matching GElf_* type,
   for a file of ELFCLASS and byte order DATA, into a new buffer *OUT of *LEN
   bytes.  A value that an ELF32 field cannot hold is refused, naming FIELD
   and the record.  Return 0, or -1 with the reason in *ERR.  */
int elf_encode (int elfclass, int data, Elf_Type type, const void *src, size_t count,
		unsigned char **out, size_t *len, struct diag *err);

/* The size in a file of ELFCLASS of COUNT records of TYPE.  */
size_t elf_record_size (int elfclass, Elf_Type type, size_t count);

#endif
