/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The one encoder of ELF records.  Records are built in the file's class in
   native byte order, then libelf converts them to the file's byte order.  */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_encode.h"

size_t
elf_record_size (int elfclass, Elf_Type type, size_t count)
{
  return elfclass == ELFCLASS32 ? elf32_fsize (type, count, EV_CURRENT)
				: elf64_fsize (type, count, EV_CURRENT);
}

/* Whether V fits an unsigned 32-bit field.  */
#define FITS32(v) ((uint64_t) (v) <= UINT32_MAX)

/* Convert record I of SRC (GElf form, TYPE) into the ELF32 record at DST.
   Return the name of a field that does not fit, or NULL.  */
static const char *
to_elf32 (Elf_Type type, const void *src, size_t i, void *dst)
{
  switch (type)
    {
    case ELF_T_EHDR:
      {
	const GElf_Ehdr *e = (const GElf_Ehdr *) src + i;
	if (!FITS32 (e->e_entry)) return "e_entry";
	if (!FITS32 (e->e_phoff)) return "e_phoff";
	if (!FITS32 (e->e_shoff)) return "e_shoff";
	Elf32_Ehdr *o = (Elf32_Ehdr *) dst + i;
	*o = (Elf32_Ehdr) {
	  .e_type = e->e_type, .e_machine = e->e_machine, .e_version = e->e_version,
	  .e_entry = (Elf32_Addr) e->e_entry, .e_phoff = (Elf32_Off) e->e_phoff,
	  .e_shoff = (Elf32_Off) e->e_shoff, .e_flags = e->e_flags, .e_ehsize = e->e_ehsize,
	  .e_phentsize = e->e_phentsize, .e_phnum = e->e_phnum,
	  .e_shentsize = e->e_shentsize, .e_shnum = e->e_shnum, .e_shstrndx = e->e_shstrndx,
	};
	memcpy (o->e_ident, e->e_ident, EI_NIDENT);
	return NULL;
      }
    case ELF_T_PHDR:
      {
	const GElf_Phdr *p = (const GElf_Phdr *) src + i;
	if (!FITS32 (p->p_offset)) return "p_offset";
	if (!FITS32 (p->p_vaddr)) return "p_vaddr";
	if (!FITS32 (p->p_paddr)) return "p_paddr";
	if (!FITS32 (p->p_filesz)) return "p_filesz";
	if (!FITS32 (p->p_memsz)) return "p_memsz";
	if (!FITS32 (p->p_align)) return "p_align";
	((Elf32_Phdr *) dst)[i] = (Elf32_Phdr) {
	  .p_type = p->p_type, .p_flags = p->p_flags, .p_offset = (Elf32_Off) p->p_offset,
	  .p_vaddr = (Elf32_Addr) p->p_vaddr, .p_paddr = (Elf32_Addr) p->p_paddr,
	  .p_filesz = (Elf32_Word) p->p_filesz, .p_memsz = (Elf32_Word) p->p_memsz,
	  .p_align = (Elf32_Word) p->p_align,
	};
	return NULL;
      }
    case ELF_T_SHDR:
      {
	const GElf_Shdr *s = (const GElf_Shdr *) src + i;
	if (!FITS32 (s->sh_flags)) return "sh_flags";
	if (!FITS32 (s->sh_addr)) return "sh_addr";
	if (!FITS32 (s->sh_offset)) return "sh_offset";
	if (!FITS32 (s->sh_size)) return "sh_size";
	if (!FITS32 (s->sh_addralign)) return "sh_addralign";
	if (!FITS32 (s->sh_entsize)) return "sh_entsize";
	((Elf32_Shdr *) dst)[i] = (Elf32_Shdr) {
	  .sh_name = s->sh_name, .sh_type = s->sh_type, .sh_flags = (Elf32_Word) s->sh_flags,
	  .sh_addr = (Elf32_Addr) s->sh_addr, .sh_offset = (Elf32_Off) s->sh_offset,
	  .sh_size = (Elf32_Word) s->sh_size, .sh_link = s->sh_link, .sh_info = s->sh_info,
	  .sh_addralign = (Elf32_Word) s->sh_addralign,
	  .sh_entsize = (Elf32_Word) s->sh_entsize,
	};
	return NULL;
      }
    case ELF_T_DYN:
      {
	const GElf_Dyn *d = (const GElf_Dyn *) src + i;
	if (d->d_tag < INT32_MIN || d->d_tag > INT32_MAX) return "d_tag";
	if (!FITS32 (d->d_un.d_val)) return "d_val";
	((Elf32_Dyn *) dst)[i] = (Elf32_Dyn) {
	  .d_tag = (Elf32_Sword) d->d_tag, .d_un.d_val = (Elf32_Word) d->d_un.d_val,
	};
	return NULL;
      }
    case ELF_T_SYM:
      {
	const GElf_Sym *s = (const GElf_Sym *) src + i;
	if (!FITS32 (s->st_value)) return "st_value";
	if (!FITS32 (s->st_size)) return "st_size";
	((Elf32_Sym *) dst)[i] = (Elf32_Sym) {
	  .st_name = s->st_name, .st_value = (Elf32_Addr) s->st_value,
	  .st_size = (Elf32_Word) s->st_size, .st_info = s->st_info, .st_other = s->st_other,
	  .st_shndx = s->st_shndx,
	};
	return NULL;
      }
    default:
      return "record type";
    }
}

/* The size of one GElf record of TYPE, which is also its ELF64 form.  */
static size_t
gelf_record_size (Elf_Type type)
{
  switch (type)
    {
    case ELF_T_EHDR: return sizeof (GElf_Ehdr);
    case ELF_T_PHDR: return sizeof (GElf_Phdr);
    case ELF_T_SHDR: return sizeof (GElf_Shdr);
    case ELF_T_DYN: return sizeof (GElf_Dyn);
    case ELF_T_SYM: return sizeof (GElf_Sym);
    default: return 0;
    }
}

int
elf_encode (int elfclass, int data, Elf_Type type, const void *src, size_t count,
	    unsigned char **out, size_t *len, struct diag *err)
{
  *out = NULL;
  *len = 0;
  size_t gsize = gelf_record_size (type);
  size_t fsize = elf_record_size (elfclass, type, count);
  if (gsize == 0 || (count != 0 && fsize == 0))
    return diag_set (err, "internal error: cannot encode record type %d", (int) type);
  /* The in-memory ELF32 records of these types have their file size, and
     the GElf records are the ELF64 ones.  */
  size_t nsize = elfclass == ELFCLASS32 ? fsize : gsize * count;
  void *native = calloc (1, nsize != 0 ? nsize : 1);
  unsigned char *buf = malloc (fsize != 0 ? fsize : 1);
  if (native == NULL || buf == NULL)
    {
      free (native);
      free (buf);
      return diag_set (err, "out of memory");
    }
  if (elfclass == ELFCLASS32)
    {
      for (size_t i = 0; i < count; i++)
	{
	  const char *field = to_elf32 (type, src, i, native);
	  if (field != NULL)
	    {
	      free (native);
	      free (buf);
	      return diag_set (err, "%s of record %zu does not fit ELF32", field, i);
	    }
	}
    }
  else
    memcpy (native, src, gsize * count);
  Elf_Data s = { .d_buf = native, .d_type = type, .d_size = fsize, .d_version = EV_CURRENT };
  Elf_Data d = { .d_buf = buf, .d_type = type, .d_size = fsize, .d_version = EV_CURRENT };
  Elf_Data *r = elfclass == ELFCLASS32 ? elf32_xlatetof (&d, &s, (unsigned) data)
				       : elf64_xlatetof (&d, &s, (unsigned) data);
  free (native);
  if (r == NULL)
    {
      free (buf);
      return diag_set (err, "cannot encode headers: %s", elf_errmsg (-1));
    }
  *out = buf;
  *len = fsize;
  return 0;
}
