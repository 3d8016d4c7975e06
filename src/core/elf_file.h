/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Reading and validating one ELF file.  */
#ifndef ELFPMD_ELF_FILE_H
#define ELFPMD_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "diag.h"
#include "phdr_align.h"

/* What kind of object a file is, as far as loading goes.  */
enum object_kind
{
  OBJECT_EXECUTABLE,		/* ET_EXEC: fixed addresses */
  OBJECT_PIE,			/* ET_DYN run as a program (DF_1_PIE, or PT_INTERP without DT_SONAME) */
  OBJECT_SHARED,		/* ET_DYN loaded by ld.so */
  OBJECT_OTHER,			/* ET_REL, ET_CORE, ...: nothing elfpmd aligns */
};

/* Why a file is skipped, whoever finds out: the reader (the first group) or
   a batch run's walk (the second).  */
enum skip_kind
{
  SKIP_NONE,
  SKIP_NOT_ELF,			/* no ELF magic: scripts, archives, data */
  SKIP_RELOCATABLE,		/* ET_REL */
  SKIP_CORE,			/* ET_CORE */
  SKIP_OTHER_TYPE,		/* another e_type */
  SKIP_NO_PHDRS,		/* no program header table */
  SKIP_NO_LOADS,		/* no PT_LOAD segment */
  SKIP_DEBUG_FILE,		/* a separate debug file (objcopy --only-keep-debug, eu-strip -f) */
  SKIP_NO_PMD_SIZE,		/* in a batch run: a machine without a known PMD size */
  SKIP_SYMLINK,			/* a symbolic link met in a batch run */
  SKIP_NOT_REGULAR,		/* a directory in a list, a device, a FIFO, a socket */
  SKIP_EXCLUDED,		/* matched --exclude */
  SKIP_OTHER_MACHINE,		/* in a batch run: a machine --machine did not select */
  SKIP_KINDS
};

/* "not_elf", "relocatable", ...: the key of KIND in the JSON summary.  */
const char *skip_kind_key (enum skip_kind kind);

/* "not ELF", "relocatable", ...: KIND in the summary line.  */
const char *skip_kind_words (enum skip_kind kind);

struct elf_file
{
  const char *name;		/* as given by the user, for messages */
  int fd;
  struct stat st;
  Elf *elf;

  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  int data;			/* ELFDATA2LSB or ELFDATA2MSB */
  GElf_Ehdr ehdr;
  size_t phnum;			/* real count, also when e_phnum is PN_XNUM */
  size_t shnum;			/* real count, also when e_shnum is 0 and shdr[0] holds it */
  GElf_Phdr *phdrs;		/* PHNUM entries in native form */

  enum object_kind kind;
  bool has_interp;		/* PT_INTERP present */
  bool has_dynamic;		/* PT_DYNAMIC present */
  bool has_textrel;		/* DT_TEXTREL, or DF_TEXTREL in DT_FLAGS: ld.so writes text */
  size_t nloads;		/* number of PT_LOADs */
  const char *skip_reason;	/* set when the file is valid but nothing applies */
  enum skip_kind skip_kind;	/* the same as a kind; SKIP_NOT_ELF also when the open failed */

  GElf_Shdr *shdrs;		/* SHNUM section headers in native form */
  size_t shstrndx;		/* the section name table (SHT_STRTAB), 0 if none */

  /* The dynamic section, read once: the first PT_DYNAMIC's program header
     index (SIZE_MAX if none) and its entries (NULL if it has none).  */
  size_t dynamic;
  Elf_Data *dyn;
  size_t ndyn;
};

/* Open NAME read-only and validate everything elfpmd relies on: the ELF
   header, the program header table, every PT_LOAD and PT_DYNAMIC, the section
   header table's place.  Return 0, or -1 with the reason in *ERR (the file is
   then closed).  Only a regular file is opened (safe_open.h, open_regular:
   a device, FIFO or socket never is); a symbolic link is followed.  */
int elf_file_open (struct elf_file *file, const char *name, struct diag *err);

/* The same for PATH in the directory DIRFD, through a symbolic link at its
   last component only if FOLLOW; NAME is what messages call it.  */
int elf_file_open_at (struct elf_file *file, int dirfd, const char *path, bool follow,
		      const char *name, struct diag *err);

/* The same for the descriptor FD, open for reading, which FILE now owns
   (closed on failure too).  */
int elf_file_open_fd (struct elf_file *file, int fd, const char *name, struct diag *err);

void elf_file_close (struct elf_file *file);

/* The contents of section INDEX as records of TYPE, or NULL if it has
   none (SHT_NOBITS, SHT_NULL, empty) or they cannot be read.  */
Elf_Data *elf_file_section_data (const struct elf_file *file, size_t index, Elf_Type type);

/* The PT_LOAD fields of program header INDEX.  */
struct load_segment elf_file_load (const struct elf_file *file, size_t index);

/* The name of section INDEX, or "[INDEX]" in BUF when it has none that can
   be read.  */
const char *elf_file_section_name (const struct elf_file *file, size_t index, char *buf,
				   size_t len);

/* Size in the file of one program header / section header / the ELF header.  */
size_t elf_phdr_size (int elfclass);
size_t elf_shdr_size (int elfclass);
size_t elf_ehdr_size (int elfclass);

const char *object_kind_name (enum object_kind kind);

/* "PT_LOAD", "PT_NOTE", ... or "segment" for other types.  */
const char *elf_phdr_type_name (uint32_t type);

#endif
