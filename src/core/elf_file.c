/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Reading and validating one ELF file.

   Everything elfpmd later relies on is checked here, once, with arithmetic that
   cannot wrap: the ELF header, the place and entry size of both header tables,
   every PT_LOAD (inside the file, sorted, not overlapping in memory) and
   PT_DYNAMIC.  libelf reads and converts; the bounds are ours.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arith.h"
#include "elf_file.h"
#include "safe_open.h"
#include "utf8.h"

#ifndef DF_1_PIE
# define DF_1_PIE 0x08000000
#endif

size_t
elf_phdr_size (int elfclass)
{
  return elfclass == ELFCLASS32 ? sizeof (Elf32_Phdr) : sizeof (Elf64_Phdr);
}

size_t
elf_shdr_size (int elfclass)
{
  return elfclass == ELFCLASS32 ? sizeof (Elf32_Shdr) : sizeof (Elf64_Shdr);
}

size_t
elf_ehdr_size (int elfclass)
{
  return elfclass == ELFCLASS32 ? sizeof (Elf32_Ehdr) : sizeof (Elf64_Ehdr);
}

const char *
object_kind_name (enum object_kind kind)
{
  switch (kind)
    {
    case OBJECT_EXECUTABLE: return "executable";
    case OBJECT_PIE: return "pie";
    case OBJECT_SHARED: return "shared object";
    default: return "other";
    }
}

/* Whether COUNT entries of ENTSIZE bytes at OFFSET fit in a file of SIZE bytes.  */
static bool
table_fits (uint64_t offset, uint64_t count, uint64_t entsize, uint64_t size)
{
  if (offset > size)
    return false;
  return entsize == 0 || count <= (size - offset) / entsize;
}

/* Whether [OFFSET, OFFSET + LEN) lies inside a file of SIZE bytes.  */
static bool
range_fits (uint64_t offset, uint64_t len, uint64_t size)
{
  return offset <= size && len <= size - offset;
}

const char *
elf_phdr_type_name (uint32_t type)
{
  switch (type)
    {
    case PT_LOAD: return "PT_LOAD";
    case PT_DYNAMIC: return "PT_DYNAMIC";
    case PT_INTERP: return "PT_INTERP";
    case PT_NOTE: return "PT_NOTE";
    case PT_PHDR: return "PT_PHDR";
    case PT_TLS: return "PT_TLS";
    case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
    case PT_GNU_RELRO: return "PT_GNU_RELRO";
    case PT_GNU_PROPERTY: return "PT_GNU_PROPERTY";
    default: return "segment";
    }
}

/* Check the ELF identification bytes of the open file, before libelf sees it,
   so that the common refusals read well.  */
static int
check_ident (struct elf_file *file, struct diag *err)
{
  unsigned char ident[EI_NIDENT];
  ssize_t n = pread (file->fd, ident, sizeof ident, 0);
  if (n < 0)
    return diag_set (err, "cannot read: %s", strerror (errno));
  if (n < SELFMAG || memcmp (ident, ELFMAG, SELFMAG) != 0)
    {
      file->skip_kind = SKIP_NOT_ELF;
      return diag_set (err, "not an ELF file");
    }
  if (n < EI_NIDENT)
    return diag_set (err, "truncated ELF header");
  if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
    return diag_set (err, "invalid ELF class %u", ident[EI_CLASS]);
  if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
    return diag_set (err, "invalid ELF byte order %u", ident[EI_DATA]);
  if (ident[EI_VERSION] != EV_CURRENT)
    return diag_set (err, "unsupported ELF version %u", ident[EI_VERSION]);
  file->elfclass = ident[EI_CLASS];
  file->data = ident[EI_DATA];
  if ((uint64_t) file->st.st_size < elf_ehdr_size (file->elfclass))
    return diag_set (err, "truncated ELF header");
  return 0;
}

/* Check the section header table's place.  elfpmd never needs the sections'
   contents, only that their headers can be found and later rewritten.  */
static int
check_section_table (struct elf_file *file, struct diag *err)
{
  uint64_t size = (uint64_t) file->st.st_size;
  const GElf_Ehdr *eh = &file->ehdr;
  if (eh->e_shoff == 0)
    {
      file->shnum = 0;
      return 0;
    }
  if (eh->e_shentsize != elf_shdr_size (file->elfclass))
    return diag_set (err, "e_shentsize is %u, expected %zu", eh->e_shentsize,
		     elf_shdr_size (file->elfclass));
  /* With e_shnum 0, the real count is in the first section header.  */
  if (!table_fits (eh->e_shoff, 1, eh->e_shentsize, size))
    return diag_set (err, "section header table (e_shoff %#" PRIx64 ") lies outside the file",
		     (uint64_t) eh->e_shoff);
  /* libelf answers 0 sections for a table that does not fit in the file, so
     the count comes from the header, or from the first section's sh_size.  */
  file->shnum = eh->e_shnum;
  if (file->shnum == 0)
    {
      bool is32 = file->elfclass == ELFCLASS32;
      unsigned char raw[8];
      size_t width = is32 ? 4 : 8;
      size_t at = is32 ? offsetof (Elf32_Shdr, sh_size) : offsetof (Elf64_Shdr, sh_size);
      if (pread (file->fd, raw, width, (off_t) (eh->e_shoff + at)) != (ssize_t) width)
	return diag_set (err, "cannot read the section count: %s", strerror (errno));
      uint64_t count = 0;
      for (size_t i = 0; i < width; i++)
	count |= (uint64_t) raw[file->data == ELFDATA2LSB ? i : width - 1 - i] << (8 * i);
      if (count > SIZE_MAX)
	return diag_set (err, "absurd section count %#" PRIx64, count);
      file->shnum = (size_t) count;
    }
  if (!table_fits (eh->e_shoff, file->shnum, eh->e_shentsize, size))
    return diag_set (err, "section header table (%zu entries at %#" PRIx64 ") extends past the end of the file",
		     file->shnum, (uint64_t) eh->e_shoff);
  return 0;
}

/* The ELF header and the two header tables apart: elfpmd rewrites each of
   them, and a table laid over another (a section header table at offset 8,
   say, whose entries are the ELF header's and the program headers' bytes)
   would have one rewrite change the other behind its back.  No linker
   writes such a file.  */
static int
check_tables_apart (const struct elf_file *file, struct diag *err)
{
  const GElf_Ehdr *eh = &file->ehdr;
  uint64_t ehsize = elf_ehdr_size (file->elfclass);
  uint64_t phsize = (uint64_t) file->phnum * elf_phdr_size (file->elfclass);
  uint64_t shsize = (uint64_t) file->shnum * elf_shdr_size (file->elfclass);
  /* (both tables lie in the file, checked before: no end wraps) */
  if (range_overlaps (eh->e_phoff, phsize, 0, ehsize))
    return diag_set (err, "program header table [%#" PRIx64 ", +%#" PRIx64 ") overlaps the ELF header",
		     (uint64_t) eh->e_phoff, phsize);
  if (file->shnum != 0 && range_overlaps (eh->e_shoff, shsize, 0, ehsize))
    return diag_set (err, "section header table [%#" PRIx64 ", +%#" PRIx64 ") overlaps the ELF header",
		     (uint64_t) eh->e_shoff, shsize);
  if (file->shnum != 0 && range_overlaps (eh->e_shoff, shsize, eh->e_phoff, eh->e_phoff + phsize))
    return diag_set (err, "section header table [%#" PRIx64 ", +%#" PRIx64 ") overlaps the program header table [%#" PRIx64 ", +%#" PRIx64 ")",
		     (uint64_t) eh->e_shoff, shsize, (uint64_t) eh->e_phoff, phsize);
  return 0;
}

/* Read every section header and check that each section's contents lie
   inside the file, so that the layout planner can trust them.  */
static int
read_sections (struct elf_file *file, struct diag *err)
{
  uint64_t size = (uint64_t) file->st.st_size;
  if (file->shnum == 0)
    return 0;
  file->shdrs = calloc (file->shnum, sizeof *file->shdrs);
  if (file->shdrs == NULL)
    return diag_set (err, "out of memory");
  for (size_t i = 0; i < file->shnum; i++)
    {
      GElf_Shdr *sh = &file->shdrs[i];
      Elf_Scn *scn = elf_getscn (file->elf, i);
      if (scn == NULL || gelf_getshdr (scn, sh) == NULL)
	return diag_set (err, "section header %zu cannot be read: %s", i, elf_errmsg (-1));
      if (i == 0 || sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
	continue;
      if (!range_fits (sh->sh_offset, sh->sh_size, size))
	{
	  char name[32];
	  return diag_set (err, "section %s: contents [%#" PRIx64 ", +%#" PRIx64 ") extend past the end of the file",
			   elf_file_section_name (file, i, name, sizeof name),
			   (uint64_t) sh->sh_offset, (uint64_t) sh->sh_size);
	}
    }
  return 0;
}

const char *
elf_file_section_name (const struct elf_file *file, size_t index, char *buf, size_t len)
{
  const char *name = NULL;
  if (file->shdrs != NULL && index < file->shnum && file->shstrndx != 0)
    name = elf_strptr (file->elf, file->shstrndx, file->shdrs[index].sh_name);
  if (name == NULL || name[0] == '\0')
    {
      snprintf (buf, len, "[%zu]", index);
      return buf;
    }
  /* A name from the file reaches terminals and JSON: control bytes and
     bytes that are not UTF-8 are written as \xNN.  */
  const unsigned char *s = (const unsigned char *) name;
  bool plain = true;
  for (size_t k = 0; s[k] != '\0' && plain; k += utf8_length (s + k) ? utf8_length (s + k) : 1)
    plain = utf8_length (s + k) != 0 && s[k] >= 0x20 && s[k] != 0x7f && s[k] != '\\';
  if (plain)
    return name;
  size_t o = 0;
  for (size_t k = 0; s[k] != '\0' && o + 5 < len;)
    {
      size_t n = utf8_length (s + k);
      if (n == 0 || s[k] < 0x20 || s[k] == 0x7f || s[k] == '\\')
	{
	  o += (size_t) snprintf (buf + o, len - o, "\\x%02x", s[k]);
	  k++;
	  continue;
	}
      if (o + n + 1 > len)
	break;
      memcpy (buf + o, s + k, n);
      o += n;
      k += n;
    }
  buf[o] = '\0';
  return buf;
}

/* Whether the file is a separate debug file (objcopy --only-keep-debug, what
   /usr/lib/debug holds): it keeps the program headers of the file it was
   split from, but every allocated section lost its contents (SHT_NOBITS)
   except the notes, so whatever its PT_LOADs' p_filesz say, they hold
   nothing to map: their file ranges point at NOBITS data, or past the end
   of the file.  A file that can run has code, an allocated section that is
   neither NOBITS nor a note; the NOBITS sections of such a file (.bss,
   .tbss) are writable, whereas a debug file's text is a read-only NOBITS
   section.  The section table's place must have been checked.  */
static bool
is_debug_only_file (struct elf_file *file)
{
  if (file->shnum == 0)
    return false;
  bool readonly_nobits = false;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (file->elf, scn)) != NULL)
    {
      GElf_Shdr shdr;
      if (gelf_getshdr (scn, &shdr) == NULL)
	return false;
      if (!(shdr.sh_flags & SHF_ALLOC))
	continue;
      if (shdr.sh_type != SHT_NOBITS && shdr.sh_type != SHT_NOTE)
	return false;
      if (shdr.sh_type == SHT_NOBITS && !(shdr.sh_flags & SHF_WRITE) && shdr.sh_size != 0)
	readonly_nobits = true;
    }
  return readonly_nobits;
}

/* Read the dynamic section at program header INDEX for DF_1_PIE, DT_SONAME
   and text relocations (into FILE->has_textrel).  */
static int
read_dynamic (struct elf_file *file, size_t index, bool *pie, bool *soname, struct diag *err)
{
  const GElf_Phdr *ph = &file->phdrs[index];
  *pie = *soname = false;
  if (ph->p_filesz == 0)
    return 0;
  Elf_Data *data = elf_getdata_rawchunk (file->elf, (int64_t) ph->p_offset,
					 ph->p_filesz, ELF_T_DYN);
  if (data == NULL)
    return diag_set (err, "PT_DYNAMIC (program header %zu) cannot be read: %s", index,
		     elf_errmsg (-1));
  size_t n = data->d_size / gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT);
  file->dyn = data;
  file->ndyn = n;
  for (size_t i = 0; i < n; i++)
    {
      GElf_Dyn dyn;
      if (gelf_getdyn (data, (int) i, &dyn) == NULL || dyn.d_tag == DT_NULL)
	break;
      if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
	*pie = true;
      else if (dyn.d_tag == DT_SONAME)
	*soname = true;
      else if (dyn.d_tag == DT_TEXTREL
	       || (dyn.d_tag == DT_FLAGS && (dyn.d_un.d_val & DF_TEXTREL)))
	file->has_textrel = true;
    }
  return 0;
}

/* Check what the ELF header says of the program header table, then read
   it into FILE->phdrs (FILE->phnum entries).  Return 0; 1 when there is
   none (FILE->skip_reason says so); -1 with the reason in *ERR.  */
static int
read_phdrs (struct elf_file *file, struct diag *err)
{
  uint64_t size = (uint64_t) file->st.st_size;
  const GElf_Ehdr *eh = &file->ehdr;
  /* Check what the header says before libelf reads the table, so that the
     reason names the table; only with PN_XNUM does the count live elsewhere.  */
  if (eh->e_phnum == 0)
    {
      file->skip_reason = "no program headers";
      file->skip_kind = SKIP_NO_PHDRS;
      return 1;
    }
  if (eh->e_phentsize != elf_phdr_size (file->elfclass))
    return diag_set (err, "e_phentsize is %u, expected %zu", eh->e_phentsize,
		     elf_phdr_size (file->elfclass));
  if (eh->e_phnum != PN_XNUM
      && !table_fits (eh->e_phoff, eh->e_phnum, eh->e_phentsize, size))
    return diag_set (err, "program header table (%u entries at %#" PRIx64 ") extends past the end of the file",
		     eh->e_phnum, (uint64_t) eh->e_phoff);
  if (eh->e_phnum == PN_XNUM && check_section_table (file, err) != 0)
    return -1;
  if (elf_getphdrnum (file->elf, &file->phnum) != 0)
    return diag_set (err, "invalid program header count: %s", elf_errmsg (-1));
  if (!table_fits (eh->e_phoff, file->phnum, eh->e_phentsize, size))
    return diag_set (err, "program header table (%zu entries at %#" PRIx64 ") extends past the end of the file",
		     file->phnum, (uint64_t) eh->e_phoff);

  file->phdrs = calloc (file->phnum, sizeof *file->phdrs);
  if (file->phdrs == NULL)
    return diag_set (err, "out of memory");
  for (size_t i = 0; i < file->phnum; i++)
    if (gelf_getphdr (file->elf, (int) i, &file->phdrs[i]) == NULL)
      return diag_set (err, "program header %zu cannot be read: %s", i, elf_errmsg (-1));
  return 0;
}

/* The PT_LOADs: contents within memory size, no wrap past ADDR_END (the
   end of the address space), sorted by address, no overlap; FILE->nloads
   and FILE->has_interp counted on the way.  Return 0, or -1 with the
   reason in *ERR.  */
static int
check_loads (struct elf_file *file, uint64_t addr_end, struct diag *err)
{
  const GElf_Phdr *prev = NULL;
  size_t prev_index = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type == PT_INTERP)
	file->has_interp = true;
      if (ph->p_type != PT_LOAD)
	continue;
      file->nloads++;
      if (ph->p_filesz > ph->p_memsz)
	return diag_set (err, "PT_LOAD %zu: p_filesz %#" PRIx64 " exceeds p_memsz %#" PRIx64,
			 i, (uint64_t) ph->p_filesz, (uint64_t) ph->p_memsz);
      if (ph->p_vaddr > addr_end || ph->p_memsz > addr_end - ph->p_vaddr)
	return diag_set (err, "PT_LOAD %zu: p_vaddr %#" PRIx64 " + p_memsz %#" PRIx64
			 " wraps around the address space", i, (uint64_t) ph->p_vaddr,
			 (uint64_t) ph->p_memsz);
      if (prev != NULL)
	{
	  if (ph->p_vaddr < prev->p_vaddr)
	    return diag_set (err, "PT_LOAD %zu is not sorted by address after PT_LOAD %zu", i,
			     prev_index);
	  if (ph->p_vaddr - prev->p_vaddr < prev->p_memsz)
	    return diag_set (err, "PT_LOAD %zu overlaps PT_LOAD %zu in memory", i, prev_index);
	}
      prev = ph;
      prev_index = i;
    }
  return 0;
}

/* Read and check the program header table and every segment elfpmd relies on.  */
static int
check_segments (struct elf_file *file, struct diag *err)
{
  uint64_t size = (uint64_t) file->st.st_size;
  /* The end of the address space, which a segment may reach: 2^32 for
     ELF32 (a ppc firmware image's last segment ends there); for ELF64 the
     last byte, so that an end always fits in 64 bits.  */
  uint64_t addr_end = file->elfclass == ELFCLASS32 ? (uint64_t) 1 << 32 : UINT64_MAX;

  int r = read_phdrs (file, err);
  if (r != 0)
    return r < 0 ? -1 : 0;
  if (check_loads (file, addr_end, err) != 0)
    return -1;

  /* A separate debug file is skipped whatever its program headers say:
     their contents are not in it (objcopy keeps p_filesz of the first
     PT_LOAD, which then covers NOBITS sections, and may leave the offsets
     of others past the end of the file).  So its program headers
     are not bounds-checked below, and nothing reads what they point to:
     elf_file_open drops them with the rest of a skipped file.  The PT_LOAD
     checks above still hold for it; a section table that cannot be read
     makes it no debug file, and the checks below decide.  */
  if (file->nloads > 0)
    {
      struct diag ignored = { "" };
      if (check_section_table (file, &ignored) == 0 && is_debug_only_file (file))
	{
	  file->skip_reason = "separate debug file: its segments have no contents";
	  file->skip_kind = SKIP_DEBUG_FILE;
	  return 0;
	}
    }
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (!range_fits (ph->p_offset, ph->p_filesz, size))
	return diag_set (err, "%s %zu: contents [%#" PRIx64 ", +%#" PRIx64 ") extend past the end of the file (%#" PRIx64 " bytes)",
			 elf_phdr_type_name (ph->p_type), i, (uint64_t) ph->p_offset,
			 (uint64_t) ph->p_filesz, size);
    }

  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_DYNAMIC)
      {
	bool pie, soname;
	if (read_dynamic (file, i, &pie, &soname, err) != 0)
	  return -1;
	file->has_dynamic = true;
	file->dynamic = i;
	if (file->ehdr.e_type == ET_DYN)
	  file->kind = (pie || (file->has_interp && !soname)) ? OBJECT_PIE : OBJECT_SHARED;
	break;
      }
  if (file->ehdr.e_type == ET_DYN && !file->has_dynamic)
    file->kind = file->has_interp ? OBJECT_PIE : OBJECT_SHARED;
  if (file->nloads == 0)
    {
      file->skip_reason = "no PT_LOAD segments";
      file->skip_kind = SKIP_NO_LOADS;
    }
  return 0;
}

int
elf_file_open (struct elf_file *file, const char *name, struct diag *err)
{
  return elf_file_open_at (file, AT_FDCWD, name, true, name, err);
}

int
elf_file_open_at (struct elf_file *file, int dirfd, const char *path, bool follow,
		  const char *name, struct diag *err)
{
  struct stat st;
  int fd = open_regular (dirfd, path, follow, &st, err);
  if (fd < 0)
    {
      memset (file, 0, sizeof *file);
      file->fd = -1;
      return -1;
    }
  return elf_file_open_fd (file, fd, name, err);
}

int
elf_file_open_fd (struct elf_file *file, int fd, const char *name, struct diag *err)
{
  memset (file, 0, sizeof *file);
  file->name = name;
  file->dynamic = SIZE_MAX;
  file->fd = fd;
  if (fstat (file->fd, &file->st) != 0)
    {
      diag_set (err, "cannot stat: %s", strerror (errno));
      goto fail;
    }
  if (!S_ISREG (file->st.st_mode))
    {
      diag_set (err, S_ISDIR (file->st.st_mode) ? "is a directory" : "not a regular file");
      goto fail;
    }
  if (check_ident (file, err) != 0)
    goto fail;

  file->elf = elf_begin (file->fd, ELF_C_READ_MMAP, NULL);
  if (file->elf == NULL)
    {
      diag_set (err, "cannot read ELF: %s", elf_errmsg (-1));
      goto fail;
    }
  if (elf_kind (file->elf) != ELF_K_ELF)
    {
      diag_set (err, "not an ELF file");
      goto fail;
    }
  if (gelf_getehdr (file->elf, &file->ehdr) == NULL)
    {
      diag_set (err, "invalid ELF header: %s", elf_errmsg (-1));
      goto fail;
    }

  switch (file->ehdr.e_type)
    {
    case ET_EXEC:
      file->kind = OBJECT_EXECUTABLE;
      break;
    case ET_DYN:
      file->kind = OBJECT_SHARED;
      break;
    case ET_REL:
      file->kind = OBJECT_OTHER;
      file->skip_reason = "relocatable object: nothing is loaded from it";
      file->skip_kind = SKIP_RELOCATABLE;
      return 0;
    case ET_CORE:
      file->kind = OBJECT_OTHER;
      file->skip_reason = "core file";
      file->skip_kind = SKIP_CORE;
      return 0;
    default:
      file->kind = OBJECT_OTHER;
      file->skip_reason = "not an executable or shared object";
      file->skip_kind = SKIP_OTHER_TYPE;
      return 0;
    }

  if (check_segments (file, err) != 0)
    goto fail;
  if (file->skip_reason == NULL
      && (check_section_table (file, err) != 0 || check_tables_apart (file, err) != 0
	  || read_sections (file, err) != 0))
    goto fail;
  /* The section name table, found once: 0 when there is none that can be
     read as one.  */
  size_t shstrndx;
  if (file->shdrs != NULL && elf_getshdrstrndx (file->elf, &shstrndx) == 0 && shstrndx != 0
      && shstrndx < file->shnum && file->shdrs[shstrndx].sh_type == SHT_STRTAB)
    file->shstrndx = shstrndx;
  /* Nothing of a skipped file is rewritten, and nothing in it is read again:
     not its sections, not its program headers (a separate debug file's
     point at contents it does not have, past its end as often as not).  */
  if (file->skip_reason != NULL)
    file->shnum = file->phnum = 0;
  return 0;

fail:
  elf_file_close (file);
  return -1;
}

static const struct
{
  const char *key, *words;
} skip_kind_names[SKIP_KINDS] = {
  [SKIP_NONE] = { "none", "not skipped" },
  [SKIP_NOT_ELF] = { "not_elf", "not ELF" },
  [SKIP_RELOCATABLE] = { "relocatable", "relocatable" },
  [SKIP_CORE] = { "core", "core" },
  [SKIP_OTHER_TYPE] = { "other_type", "other ELF type" },
  [SKIP_NO_PHDRS] = { "no_program_headers", "no program headers" },
  [SKIP_NO_LOADS] = { "no_load_segments", "no PT_LOAD" },
  [SKIP_DEBUG_FILE] = { "debug_file", "debug file" },
  [SKIP_NO_PMD_SIZE] = { "no_pmd_size", "machine without PMD size" },
  [SKIP_SYMLINK] = { "symlink", "symbolic link" },
  [SKIP_NOT_REGULAR] = { "not_regular", "not a regular file" },
  [SKIP_EXCLUDED] = { "excluded", "excluded" },
  [SKIP_OTHER_MACHINE] = { "other_machine", "other machine" },
};

const char *
skip_kind_key (enum skip_kind kind)
{
  return kind < SKIP_KINDS ? skip_kind_names[kind].key : "unknown";
}

const char *
skip_kind_words (enum skip_kind kind)
{
  return kind < SKIP_KINDS ? skip_kind_names[kind].words : "unknown";
}

void
elf_file_close (struct elf_file *file)
{
  if (file->elf != NULL)
    elf_end (file->elf);
  if (file->fd >= 0)
    close (file->fd);
  free (file->phdrs);
  free (file->shdrs);
  file->shdrs = NULL;
  file->elf = NULL;
  file->fd = -1;
  file->phdrs = NULL;
}

Elf_Data *
elf_file_section_data (const struct elf_file *file, size_t index, Elf_Type type)
{
  if (index == 0 || index >= file->shnum)
    return NULL;
  const GElf_Shdr *sh = &file->shdrs[index];
  if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL || sh->sh_size == 0)
    return NULL;
  /* (inside the file: read_sections checked that; libelf keeps the chunk) */
  return elf_getdata_rawchunk (file->elf, (int64_t) sh->sh_offset, sh->sh_size, type);
}

struct load_segment
elf_file_load (const struct elf_file *file, size_t index)
{
  const GElf_Phdr *ph = &file->phdrs[index];
  return (struct load_segment) {
    .offset = ph->p_offset,
    .vaddr = ph->p_vaddr,
    .filesz = ph->p_filesz,
    .memsz = ph->p_memsz,
    .align = ph->p_align,
    .flags = ph->p_flags,
  };
}
