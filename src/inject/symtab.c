/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The stub's symbols appended to the file's own symbol table.

   A file with a .symtab is one that a packaging step will usually strip:
   dh_strip and rpm's find-debuginfo first copy the symbol table into the
   debug file (the -dbgsym or -debuginfo package), then remove it.  A name
   the stub has only in its MiniDebugInfo is then lost to every reader of
   the debug file that takes its symbols from there (libdwfl: eu-stack,
   systemd-coredump).  So the stub's symbols go into the symbol table too.

   They are appended, after the file's global symbols, as global symbols:
   local ones would have to come before the first global (sh_info), and
   every symbol index after them would change, in the relocation sections
   of a file linked with --emit-relocs, in SHT_GROUP and SHT_SYMTAB_SHNDX.
   Appended, no index changes and sh_info stays.  */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_encode.h"
#include "stub.h"
#include "symtab.h"

/* The largest alignment taken from the symbol table's header.  */
#define SYMTAB_ALIGN_MAX 4096

/* Whether section header SH is a non-loaded section of TYPE with an
   alignment of at most SYMTAB_ALIGN_MAX that is a power of two (or 0).  */
static bool
plain_table (const GElf_Shdr *sh, GElf_Word type)
{
  return sh->sh_type == type && (sh->sh_flags & SHF_ALLOC) == 0
	 && sh->sh_addralign <= SYMTAB_ALIGN_MAX
	 && (sh->sh_addralign & (sh->sh_addralign - 1)) == 0;
}

bool
stub_symtab_plan (struct stub_symtab *st, const struct elf_file *file, size_t shstrndx,
		  const struct stub_arch *stub)
{
  size_t symtab = 0;
  for (size_t i = 1; i < file->shnum; i++)
    {
      GElf_Word type = file->shdrs[i].sh_type;
      if (type == SHT_SYMTAB && symtab != 0)
	return false;		/* (two: which one would a reader take?) */
      if (type == SHT_SYMTAB)
	symtab = i;
    }
  if (symtab == 0)
    return false;
  for (size_t i = 1; i < file->shnum; i++)
    if (file->shdrs[i].sh_type == SHT_SYMTAB_SHNDX && file->shdrs[i].sh_link == symtab)
      return false;
  const GElf_Shdr *sym = &file->shdrs[symtab];
  size_t entsize = elf_record_size (file->elfclass, ELF_T_SYM, 1);
  size_t strtab = sym->sh_link;
  if (!plain_table (sym, SHT_SYMTAB) || sym->sh_entsize != entsize || sym->sh_size % entsize != 0
      || sym->sh_size == 0 || strtab == 0 || strtab >= file->shnum || strtab == shstrndx
      || !plain_table (&file->shdrs[strtab], SHT_STRTAB))
    return false;
  const GElf_Shdr *str = &file->shdrs[strtab];
  *st = (struct stub_symtab) {
    .symtab = symtab, .strtab = strtab, .old_symtab_size = sym->sh_size,
    .old_strtab_size = str->sh_size, .align = sym->sh_addralign > 1 ? sym->sh_addralign : 1,
  };
  /* The names must not run into the old table's last string.  */
  unsigned char last = 1;
  st->lead_nul = str->sh_size == 0
		 || pread (file->fd, &last, 1, (off_t) (str->sh_offset + str->sh_size - 1)) != 1
		 || last != 0;
  st->names_size = st->lead_nul ? 1 : 0;
  for (size_t j = 0; j < stub->nsymbols; j++)
    st->names_size += sizeof STUB_SYMBOL_PREFIX - 1 + strlen (stub->symbols[j].name) + 1;
  st->syms_size = elf_record_size (file->elfclass, ELF_T_SYM, stub->nsymbols);
  /* (st_name is 32 bits wide in both classes) */
  return st->old_strtab_size + st->names_size <= UINT32_MAX;
}

int
stub_symtab_encode (const struct stub_symtab *st, const struct elf_file *file,
		    const struct stub_arch *stub, size_t section, uint64_t code_vaddr,
		    unsigned char **names, unsigned char **syms, struct diag *err)
{
  GElf_Sym *s = calloc (stub->nsymbols != 0 ? stub->nsymbols : 1, sizeof *s);
  unsigned char *n = malloc (st->names_size != 0 ? st->names_size : 1);
  if (s == NULL || n == NULL)
    {
      free (s);
      free (n);
      return diag_set (err, "out of memory");
    }
  size_t at = 0;
  if (st->lead_nul)
    n[at++] = 0;
  for (size_t j = 0; j < stub->nsymbols; j++)
    {
      const struct stub_symbol *y = &stub->symbols[j];
      s[j] = stub_symbol_elf (stub, j, code_vaddr, section, STUB_SYMTAB_BIND,
			      STUB_SYMTAB_VISIBILITY, (GElf_Word) (st->old_strtab_size + at));
      memcpy (n + at, STUB_SYMBOL_PREFIX, sizeof STUB_SYMBOL_PREFIX - 1);
      at += sizeof STUB_SYMBOL_PREFIX - 1;
      memcpy (n + at, y->name, strlen (y->name) + 1);
      at += strlen (y->name) + 1;
    }
  size_t len;
  int ret = elf_encode (file->elfclass, file->data, ELF_T_SYM, s, stub->nsymbols, syms, &len, err);
  free (s);
  if (ret != 0 || len != st->syms_size || at != st->names_size)
    {
      if (ret == 0)
	free (*syms);
      free (n);
      return ret != 0 ? -1 : diag_set (err, "internal error: the stub's symbols changed size");
    }
  *names = n;
  return 0;
}
