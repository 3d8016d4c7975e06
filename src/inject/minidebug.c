/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The stub's MiniDebugInfo: a small ELF file whose only contents are a
   symbol table naming the stub's functions, as the section .gnu_debugdata
   of the rewritten file, xz-compressed, where gdb and elfutils (eu-stack,
   systemd-coredump) look for the symbols of a stripped file (Fedora ships
   its binaries so).  A symbol table in the file itself would do for gdb,
   but file(1) would then call the file "not stripped", which lintian
   reports as an error in every package a distribution's hook converts.

   The xz stream is made by liblzma with options fixed here (LZMA2 at
   xz's preset 6 with --extreme, a 1 MiB dictionary, a CRC-32 check), so
   that the same ELF file gives the same bytes with the same liblzma (a
   reproducible build's rewrite is reproducible); the ELF file of about
   5 KiB becomes about 1.5 KiB, and every xz decoder reads it.  */
#include <config.h>

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "elf_encode.h"
#include "minidebug.h"
#include "stub.h"

struct buf
{
  unsigned char *p;
  size_t len, cap;
  bool failed;
};

static void
put (struct buf *b, const void *data, size_t n)
{
  if (b->failed)
    return;
  if (b->len + n > b->cap)
    {
      size_t cap = b->cap != 0 ? b->cap : 4096;
      while (cap < b->len + n)
	cap *= 2;
      unsigned char *p = realloc (b->p, cap);
      if (p == NULL)
	{
	  b->failed = true;
	  return;
	}
      b->p = p;
      b->cap = cap;
    }
  memcpy (b->p + b->len, data, n);
  b->len += n;
}

static void
put_byte (struct buf *b, unsigned char c)
{
  put (b, &c, 1);
}

/* The options of the xz stream: fixed, for the same bytes from the same
   input.  The dictionary is larger than any MiniDebugInfo elfpmd makes
   (which grows with the file's loaded sections only) and small for a
   decoder (1 MiB).  */
#define MINIDEBUG_XZ_PRESET (6 | LZMA_PRESET_EXTREME)
#define MINIDEBUG_XZ_DICT (UINT32_C (1) << 20)

/* DATA (LEN bytes) as one xz stream of one block, LZMA2 compressed with a
   CRC-32 check, into a new buffer *OUT of *OUT_LEN bytes.  Return 0, or
   -1 with the reason in *ERR.  */
static int
xz_compress (const unsigned char *data, size_t len, unsigned char **out, size_t *out_len,
	     struct diag *err)
{
  lzma_options_lzma lz;
  if (lzma_lzma_preset (&lz, MINIDEBUG_XZ_PRESET))
    return diag_set (err, "the MiniDebugInfo: liblzma has no preset 6e");
  lz.dict_size = MINIDEBUG_XZ_DICT;
  lzma_filter filters[] = {
    { .id = LZMA_FILTER_LZMA2, .options = &lz },
    { .id = LZMA_VLI_UNKNOWN, .options = NULL },
  };
  size_t cap = lzma_stream_buffer_bound (len), pos = 0;
  unsigned char *buf = cap != 0 ? malloc (cap) : NULL;
  if (buf == NULL)
    return diag_set (err, "out of memory");
  lzma_ret r = lzma_stream_buffer_encode (filters, LZMA_CHECK_CRC32, NULL, data, len, buf, &pos, cap);
  if (r != LZMA_OK)
    {
      free (buf);
      return r == LZMA_MEM_ERROR ? diag_set (err, "out of memory")
	: diag_set (err, "the MiniDebugInfo: liblzma cannot compress it (error %d)", (int) r);
    }
  *out = buf;
  *out_len = pos;
  return 0;
}

/* The section headers of the MiniDebugInfo into SH and their names into
   NAMES: the file's loaded sections (as NOBITS), the program header table
   the stub's segment holds (if any), the stub's code, and the symbol,
   string and section-name tables (only named here).  The stub's section
   index into *STUB_INDEX, the symbol table's into *FIRST_TABLE (the string
   tables follow it).  */
static void
minidebug_sections (const struct minidebug_in *m, const struct elf_file *file, Elf_Data *fnames,
		    GElf_Shdr *sh, struct buf *names, size_t *stub_index, size_t *first_table)
{
  const struct stub_arch *stub = m->stub;
  put_byte (names, 0);
  size_t k = 1;
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *s = &file->shdrs[i];
      if ((s->sh_flags & SHF_ALLOC) == 0)
	continue;
      const char *name = fnames != NULL && s->sh_name < fnames->d_size
			 && memchr ((const char *) fnames->d_buf + s->sh_name, 0,
				    fnames->d_size - s->sh_name) != NULL
			 ? (const char *) fnames->d_buf + s->sh_name : "";
      sh[k++] = (GElf_Shdr) {
	.sh_name = (GElf_Word) names->len, .sh_type = SHT_NOBITS, .sh_flags = s->sh_flags,
	.sh_addr = s->sh_addr, .sh_size = s->sh_size, .sh_addralign = s->sh_addralign,
      };
      put (names, name, strlen (name) + 1);
    }
  if (m->phdrs_size != 0)
    {
      sh[k++] = (GElf_Shdr) {
	.sh_name = (GElf_Word) names->len, .sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC,
	.sh_addr = m->phdrs_vaddr, .sh_size = m->phdrs_size, .sh_addralign = 8,
      };
      put (names, STUB_PHDR_SECTION_NAME, sizeof STUB_PHDR_SECTION_NAME);
    }
  *stub_index = k;
  sh[k++] = (GElf_Shdr) {
    .sh_name = (GElf_Word) names->len, .sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
    .sh_addr = m->code_vaddr, .sh_size = stub->size, .sh_addralign = 16,
  };
  put (names, STUB_SECTION_NAME, sizeof STUB_SECTION_NAME);
  size_t symtab_index = k++, strtab_index = k++, shstrtab_index = k++;
  *first_table = symtab_index;
  sh[symtab_index].sh_name = (GElf_Word) names->len;
  put (names, ".symtab", sizeof ".symtab");
  sh[strtab_index].sh_name = (GElf_Word) names->len;
  put (names, ".strtab", sizeof ".strtab");
  sh[shstrtab_index].sh_name = (GElf_Word) names->len;
  put (names, ".shstrtab", sizeof ".shstrtab");
}

/* The stub's symbols (elfpmd.NAME, local, in section STUB_INDEX) into SYMS
   from index 1, their names into STRS.  */
static void
minidebug_symbols (const struct minidebug_in *m, size_t stub_index, GElf_Sym *syms, struct buf *strs)
{
  const struct stub_arch *stub = m->stub;
  put_byte (strs, 0);
  for (size_t j = 0; j < stub->nsymbols; j++)
    {
      syms[j + 1] = stub_symbol_elf (stub, j, m->code_vaddr, stub_index, STB_LOCAL, STV_DEFAULT,
				     (GElf_Word) strs->len);
      put (strs, STUB_SYMBOL_PREFIX, sizeof STUB_SYMBOL_PREFIX - 1);
      put (strs, stub->symbols[j].name, strlen (stub->symbols[j].name) + 1);
    }
}

/* The file's PT_LOADs and the stub's, without file contents, into LOADS.  */
static void
minidebug_loads (const struct minidebug_in *m, const struct elf_file *file, GElf_Phdr *loads)
{
  size_t nl = 0;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD)
      loads[nl++] = file->phdrs[i];
  loads[nl++] = m->load;
  for (size_t i = 0; i < nl; i++)
    loads[i].p_offset = loads[i].p_filesz = 0;
}

/* Append the encoding of COUNT records of TYPE at SRC to B.  */
static int
put_records (struct buf *b, const struct elf_file *file, Elf_Type type, const void *src,
	     size_t count, struct diag *err)
{
  unsigned char *enc;
  size_t len;
  if (elf_encode (file->elfclass, file->data, type, src, count, &enc, &len, err) != 0)
    return -1;
  put (b, enc, len);
  free (enc);
  return 0;
}

int
stub_minidebug (const struct minidebug_in *m, const struct elf_file *file,
		unsigned char **out, size_t *out_len, struct diag *err)
{
  const struct stub_arch *stub = m->stub;
  /* Section names: the file's loaded sections', then the stub's and the
     tables'.  */
  Elf_Data *fnames = elf_file_section_data (file, m->shstrndx, ELF_T_BYTE);
  size_t nsec = 1;
  for (size_t i = 1; i < file->shnum; i++)
    nsec += (file->shdrs[i].sh_flags & SHF_ALLOC) != 0;
  nsec += 4 + (m->phdrs_size != 0);
  GElf_Shdr *sh = calloc (nsec, sizeof *sh);
  size_t nsyms = 1 + stub->nsymbols;
  GElf_Sym *syms = calloc (nsyms, sizeof *syms);
  size_t nloads = 1;
  for (size_t i = 0; i < file->phnum; i++)
    nloads += file->phdrs[i].p_type == PT_LOAD;
  GElf_Phdr *loads = calloc (nloads, sizeof *loads);
  struct buf names = { 0 }, strs = { 0 }, elf = { 0 };
  int ret = 0;
  if (sh == NULL || syms == NULL || loads == NULL)
    {
      ret = diag_set (err, "out of memory");
      goto out;
    }
  size_t stub_index, symtab_index;
  minidebug_sections (m, file, fnames, sh, &names, &stub_index, &symtab_index);
  size_t strtab_index = symtab_index + 1, shstrtab_index = symtab_index + 2;
  minidebug_symbols (m, stub_index, syms, &strs);
  minidebug_loads (m, file, loads);
  if (names.failed || strs.failed)
    {
      ret = diag_set (err, "out of memory");
      goto out;
    }

  /* The file: its ELF header; the PT_LOADs; the section names, the symbol
     names, the symbols (8-aligned); the section headers (8-aligned).  */
  size_t ehsize = elf_record_size (file->elfclass, ELF_T_EHDR, 1);
  uint64_t names_at = ehsize + elf_record_size (file->elfclass, ELF_T_PHDR, nloads);
  uint64_t strs_at = names_at + names.len;
  uint64_t syms_at = (strs_at + strs.len + 7) & ~(uint64_t) 7;
  uint64_t syms_size = elf_record_size (file->elfclass, ELF_T_SYM, nsyms);
  uint64_t shdrs_at = (syms_at + syms_size + 7) & ~(uint64_t) 7;
  for (size_t i = 1; i < symtab_index; i++)
    sh[i].sh_offset = names_at;
  sh[symtab_index] = (GElf_Shdr) {
    .sh_name = sh[symtab_index].sh_name, .sh_type = SHT_SYMTAB, .sh_offset = syms_at,
    .sh_size = syms_size, .sh_link = (GElf_Word) strtab_index, .sh_info = (GElf_Word) nsyms,
    .sh_addralign = 8, .sh_entsize = elf_record_size (file->elfclass, ELF_T_SYM, 1),
  };
  sh[strtab_index] = (GElf_Shdr) {
    .sh_name = sh[strtab_index].sh_name, .sh_type = SHT_STRTAB, .sh_offset = strs_at,
    .sh_size = strs.len, .sh_addralign = 1,
  };
  sh[shstrtab_index] = (GElf_Shdr) {
    .sh_name = sh[shstrtab_index].sh_name, .sh_type = SHT_STRTAB, .sh_offset = names_at,
    .sh_size = names.len, .sh_addralign = 1,
  };
  GElf_Ehdr eh = {
    .e_type = file->ehdr.e_type, .e_machine = file->ehdr.e_machine, .e_version = EV_CURRENT,
    .e_entry = m->entry, .e_phoff = ehsize, .e_shoff = shdrs_at, .e_flags = file->ehdr.e_flags,
    .e_ehsize = (GElf_Half) ehsize, .e_phnum = (GElf_Half) nloads,
    .e_phentsize = (GElf_Half) elf_record_size (file->elfclass, ELF_T_PHDR, 1),
    .e_shentsize = (GElf_Half) elf_record_size (file->elfclass, ELF_T_SHDR, 1),
    .e_shnum = (GElf_Half) nsec, .e_shstrndx = (GElf_Half) shstrtab_index,
  };
  memcpy (eh.e_ident, file->ehdr.e_ident, EI_NIDENT);
  ret = put_records (&elf, file, ELF_T_EHDR, &eh, 1, err);
  if (ret == 0)
    ret = put_records (&elf, file, ELF_T_PHDR, loads, nloads, err);
  if (ret == 0)
    {
      put (&elf, names.p, names.len);
      put (&elf, strs.p, strs.len);
      while (elf.len < syms_at && !elf.failed)
	put_byte (&elf, 0);
      ret = put_records (&elf, file, ELF_T_SYM, syms, nsyms, err);
    }
  if (ret == 0)
    {
      while (elf.len < shdrs_at && !elf.failed)
	put_byte (&elf, 0);
      ret = put_records (&elf, file, ELF_T_SHDR, sh, nsec, err);
    }
  if (ret == 0 && elf.failed)
    ret = diag_set (err, "out of memory");
  if (ret == 0)
    ret = xz_compress (elf.p, elf.len, out, out_len, err);
out:
  free (sh);
  free (syms);
  free (loads);
  free (names.p);
  free (strs.p);
  free (elf.p);
  return ret;
}
