/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* phdr-dump: an independent reader of ELF program headers, used by the tests
   to check what elfpmd wrote.

   It deliberately shares nothing with elfpmd: no libelf, no project headers,
   only raw bytes decoded through the test side's own field tables (elfdata.h,
   shared with mutate and nothing else), so that a bug in elfpmd's reading
   code cannot hide itself by making the checker read the file the same wrong
   way.

   Usage:
     phdr-dump FILE
       ehdr type=EXEC|DYN|... class=32|64 data=LSB|MSB phoff=0x.. shoff=0x..
            phnum=N shnum=N entry=0x..
       then one line per program header:
       INDEX TYPE FLAGS OFFSET VADDR FILESZ MEMSZ ALIGN PADDR
       TYPE is a name (LOAD, DYNAMIC, GNU_STACK, ...) or 0x-hex; FLAGS is
       "RWX" with '-' for a missing permission, followed by "+0x.." when other
       bits are set; the numbers are 0x-hex.
     phdr-dump --expect-relaxed PMD FILE
     phdr-dump --expect-kernel PMD FILE
       one line per PT_LOAD: INDEX NEW_ALIGN VERDICT, where NEW_ALIGN is the
       p_align the rule predicts (PMD when the segment is eligible, else the
       old p_align) and VERDICT is "eligible" or the first condition that
       failed.  PMD is a number (decimal or 0x-hex, optional K/M/G suffix).
     phdr-dump --bytemap IN OUT
       checks that OUT is IN with holes inserted at PT_LOAD starts and
       nothing else changed but offsets and raised p_aligns, or that and
       elfpmd's startup stub injected as --madvise does it (see the comment
       before bytemap() below); prints one "bytemap ok: ..." line, or one
       line per problem on stderr and exits 1.

   Exit status: 0 success, 1 the file cannot be read or is not a valid ELF
   file (a message on stderr names the reason), 2 usage error.  */

#ifndef _GNU_SOURCE
# define _GNU_SOURCE 1		/* SEEK_DATA, SEEK_HOLE */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfdata.h"

/* The ELF constants this file needs, spelled out so that no system header
   can stand between the checker and the specification.  */
#define EI_NIDENT 16
#define EI_CLASS 4
#define EI_DATA 5
#define ELFCLASS32 1
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ELFDATA2MSB 2
#define PN_XNUM 0xffff
#define PT_LOAD 1
#define PF_X 1
#define PF_W 2
#define PF_R 4


/* The kernel rule refuses PMD sizes above 32 MiB (seed 001).  */
#define KERNEL_PMD_LIMIT ((uint64_t) 32 << 20)

static const char *progname = "phdr-dump";

/* An open ELF file: its descriptor, size and how to decode it.  */
struct elf
{
  const char *name;
  int fd;
  uint64_t size;
  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  int data;			/* ELFDATA2LSB or ELFDATA2MSB */
};

/* The ELF header fields this program prints or uses, widened to 64 bits.  */
struct ehdr
{
  unsigned type;
  unsigned machine;
  uint64_t entry;
  uint64_t phoff;
  uint64_t shoff;
  unsigned phentsize;
  unsigned shentsize;
  uint64_t phnum;		/* real count, after PN_XNUM */
  uint64_t shnum;		/* real count, after the sh_size of section 0 */
};

/* One program header, widened to 64 bits.  */
struct phdr
{
  uint32_t type;
  uint32_t flags;
  uint64_t offset;
  uint64_t vaddr;
  uint64_t paddr;
  uint64_t filesz;
  uint64_t memsz;
  uint64_t align;
};

static void __attribute__ ((noreturn, format (printf, 2, 3)))
die (const struct elf *e, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "%s: %s: ", progname, e->name);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (1);
}

/* Read LEN bytes at OFFSET of E into BUF, or die saying which object (WHAT)
   lies outside the file.  */
static void
read_at (const struct elf *e, uint64_t offset, void *buf, size_t len,
	 const char *what)
{
  if (offset > e->size || len > e->size - offset)
    die (e, "%s at offset 0x%" PRIx64 " (size 0x%zx) extends past the end "
	 "of the file (size 0x%" PRIx64 ")", what, offset, len, e->size);
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = pread (e->fd, (char *) buf + done, len - done,
			 (off_t) (offset + done));
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	die (e, "cannot read %s: %s", what, strerror (errno));
      if (n == 0)
	die (e, "file shrank while reading %s", what);
      done += (size_t) n;
    }
}

/* Decode the unsigned integer of WIDTH bytes at P in E's byte order.  */
static uint64_t
get (const struct elf *e, const unsigned char *p, unsigned width)
{
  return elf_get (p, width, e->data == ELFDATA2MSB);
}

/* Decode the N fields F of the structure at P of E into OUT.  */
static void
decode (const struct elf *e, const unsigned char *p, const struct elf_field *f, size_t n,
	uint64_t *out)
{
  elf_decode (p, f, n, e->elfclass == ELFCLASS64, e->data == ELFDATA2MSB, out);
}

/* Width of an address or offset field of E's class.  */
static unsigned
word (const struct elf *e)
{
  return elf_word (e->elfclass == ELFCLASS64);
}

/* Read section header 0 of E at H->SHOFF and return its sh_size (WANT_SIZE)
   or sh_info: where the real section and program header counts live when
   they do not fit into the ELF header.  */
static uint64_t
section0_field (const struct elf *e, const struct ehdr *h, bool want_size)
{
  unsigned char buf[64];
  bool is64 = e->elfclass == ELFCLASS64;
  unsigned need = elf_shdr_size (is64);
  if (h->shoff == 0)
    die (e, "e_phnum or e_shnum is escaped but there is no section header 0");
  if (h->shentsize < need)
    die (e, "e_shentsize %u is smaller than a section header (%u)",
	 h->shentsize, need);
  read_at (e, h->shoff, buf, need, "section header 0");
  uint64_t sh[SH_NFIELDS];
  decode (e, buf, elf_shdr_fields, SH_NFIELDS, sh);
  return want_size ? sh[SH_SIZE] : sh[SH_INFO];
}

/* Open NAME and decode its ELF header into *H.  */
static void
open_elf (struct elf *e, const char *name, struct ehdr *h)
{
  unsigned char buf[64];
  struct stat st;

  memset (e, 0, sizeof *e);
  e->name = name;
  e->fd = open (name, O_RDONLY);
  if (e->fd < 0)
    die (e, "cannot open: %s", strerror (errno));
  if (fstat (e->fd, &st) != 0)
    die (e, "cannot stat: %s", strerror (errno));
  if (!S_ISREG (st.st_mode))
    die (e, "not a regular file");
  e->size = (uint64_t) st.st_size;

  read_at (e, 0, buf, EI_NIDENT, "e_ident");
  if (memcmp (buf, "\177ELF", 4) != 0)
    die (e, "not an ELF file (bad magic)");
  e->elfclass = buf[EI_CLASS];
  e->data = buf[EI_DATA];
  if (e->elfclass != ELFCLASS32 && e->elfclass != ELFCLASS64)
    die (e, "unknown ELF class %d", e->elfclass);
  if (e->data != ELFDATA2LSB && e->data != ELFDATA2MSB)
    die (e, "unknown ELF data encoding %d", e->data);

  read_at (e, 0, buf, elf_ehdr_size (e->elfclass == ELFCLASS64), "ELF header");
  uint64_t f[E_NFIELDS];
  decode (e, buf, elf_ehdr_fields, E_NFIELDS, f);
  h->type = (unsigned) f[E_TYPE];
  h->machine = (unsigned) f[E_MACHINE];
  h->entry = f[E_ENTRY];
  h->phoff = f[E_PHOFF];
  h->shoff = f[E_SHOFF];
  h->phentsize = (unsigned) f[E_PHENTSIZE];
  h->phnum = f[E_PHNUM];
  h->shentsize = (unsigned) f[E_SHENTSIZE];
  h->shnum = f[E_SHNUM];

  if (h->phnum == PN_XNUM)
    h->phnum = section0_field (e, h, false);
  if (h->shnum == 0 && h->shoff != 0)
    h->shnum = section0_field (e, h, true);
}

/* Read program header INDEX of E into *P, checking that it lies in the file.  */
static void
read_phdr (const struct elf *e, const struct ehdr *h, uint64_t index,
	   struct phdr *p)
{
  unsigned char buf[64];
  unsigned need = elf_phdr_size (e->elfclass == ELFCLASS64);
  char what[64];

  if (h->phentsize < need)
    die (e, "e_phentsize %u is smaller than a program header (%u)",
	 h->phentsize, need);
  /* index < phnum <= 2^32 and phentsize < 2^16, so this cannot wrap.  */
  uint64_t rel = index * h->phentsize;
  if (h->phoff > UINT64_MAX - rel)
    die (e, "program header %" PRIu64 " lies beyond 2^64", index);
  snprintf (what, sizeof what, "program header %" PRIu64, index);
  read_at (e, h->phoff + rel, buf, need, what);

  uint64_t f[P_NFIELDS];
  decode (e, buf, elf_phdr_fields, P_NFIELDS, f);
  p->type = (uint32_t) f[P_TYPE];
  p->flags = (uint32_t) f[P_FLAGS];
  p->offset = f[P_OFFSET];
  p->vaddr = f[P_VADDR];
  p->paddr = f[P_PADDR];
  p->filesz = f[P_FILESZ];
  p->memsz = f[P_MEMSZ];
  p->align = f[P_ALIGN];
}

static const char *
ehdr_type_name (unsigned type, char *buf, size_t len)
{
  switch (type)
    {
    case 0: return "NONE";
    case 1: return "REL";
    case 2: return "EXEC";
    case 3: return "DYN";
    case 4: return "CORE";
    default:
      snprintf (buf, len, "0x%x", type);
      return buf;
    }
}

static const char *
phdr_type_name (uint32_t type, char *buf, size_t len)
{
  switch (type)
    {
    case 0: return "NULL";
    case 1: return "LOAD";
    case 2: return "DYNAMIC";
    case 3: return "INTERP";
    case 4: return "NOTE";
    case 5: return "SHLIB";
    case 6: return "PHDR";
    case 7: return "TLS";
    case 0x6474e550: return "GNU_EH_FRAME";
    case 0x6474e551: return "GNU_STACK";
    case 0x6474e552: return "GNU_RELRO";
    case 0x6474e553: return "GNU_PROPERTY";
    case 0x6474e554: return "GNU_SFRAME";
    default:
      snprintf (buf, len, "0x%" PRIx32, type);
      return buf;
    }
}

static const char *
flags_string (uint32_t flags, char *buf, size_t len)
{
  uint32_t other = flags & ~(uint32_t) (PF_R | PF_W | PF_X);
  int n = snprintf (buf, len, "%c%c%c", flags & PF_R ? 'R' : '-',
		    flags & PF_W ? 'W' : '-', flags & PF_X ? 'X' : '-');
  if (other != 0 && n > 0 && (size_t) n < len)
    snprintf (buf + n, len - (size_t) n, "+0x%" PRIx32, other);
  return buf;
}

static bool
power_of_2 (uint64_t x)
{
  return x != 0 && (x & (x - 1)) == 0;
}

/* The relaxed rule of elfpmd, written from its description: the segment is
   read-only, its address and offset are congruent modulo PMD, a whole
   PMD-aligned chunk of file contents lies inside it, and its p_align is 0 or
   a power of two below PMD.  Return NULL when eligible, else the reason.  */
static const char *
relaxed_verdict (const struct phdr *p, uint64_t pmd)
{
  if (p->flags & PF_W)
    return "writable";
  if (p->vaddr % pmd != p->offset % pmd)
    return "not_congruent";
  uint64_t backed = p->filesz < p->memsz ? p->filesz : p->memsz;
  /* First PMD-aligned address at or above p_vaddr, without wrapping.  */
  uint64_t rem = p->vaddr % pmd;
  uint64_t up = rem == 0 ? 0 : pmd - rem;
  if (up > backed || backed - up < pmd)
    return "no_whole_chunk";
  if (p->align != 0 && !power_of_2 (p->align))
    return "align_not_power_of_2";
  if (p->align >= pmd)
    return "already_aligned";
  return NULL;
}

/* The kernel's rule of seed 001 (should_align_to_pmd plus the tests that
   maximum_alignment makes around it), without the runtime THP-mode test.  */
static const char *
kernel_verdict (const struct phdr *p, uint64_t pmd)
{
  if (!power_of_2 (p->align))
    return "align_not_power_of_2";
  if (pmd > KERNEL_PMD_LIMIT)
    return "pmd_too_large";
  if ((p->vaddr | p->offset) % pmd != 0)
    return "not_pmd_aligned";
  if (p->filesz < pmd)
    return "filesz_below_pmd";
  if (p->flags & PF_W)
    return "writable";
  if (p->align >= pmd)
    return "already_aligned";
  return NULL;
}

/* Parse a PMD size: decimal, 0x-hex or 0-octal, with an optional binary
   K/M/G suffix.  Return 0 when TEXT is not such a number.  */
static uint64_t
parse_pmd (const char *text)
{
  char *end;
  errno = 0;
  if (text[0] == '-' || text[0] == '\0')
    return 0;
  unsigned long long v = strtoull (text, &end, 0);
  if (errno != 0 || end == text)
    return 0;
  unsigned shift = 0;
  switch (*end)
    {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
  if (*end != '\0')
    return 0;
  if (shift != 0 && v > (UINT64_MAX >> shift))
    return 0;
  return (uint64_t) v << shift;
}

/* --bytemap IN OUT: prove that OUT is IN with holes inserted.

   The check shares no code with elfpmd and derives everything from the two
   files.  The map from input to output offsets is read off the PT_LOADs
   (matched by index) that have file contents: shift = new p_offset - old
   p_offset.  In input-offset order the shifts must never decrease, so the map
   is a step function whose steps are exactly at PT_LOAD starts; shift(x) is
   the shift of the last step at or before x (0 before the first step).  Then:
     - every input byte at x, outside the ELF header, the program header
       table and the section header table, equals the output byte at
       x + shift(x);
     - those three are compared field by field instead: everything equal but
       e_phoff, e_shoff, p_offset, sh_offset (which must be the mapped
       values) and p_align of a PT_LOAD (unchanged, or raised to a power of
       two with (p_vaddr - p_offset) % p_align == 0 in the output);
     - the desc of each GNU build-id note of IN (type 3, name "GNU", found
       by walking the notes of its SHT_NOTE sections and PT_NOTE segments)
       is left out of the byte comparison: elfpmd derives a new build-id
       for a file it changes (--build-id); the note's header is compared,
       so the length stays; whether the build-id was kept or changed is
       said in the "bytemap ok" line;
     - each hole, [at + old shift, at + new shift) of the output, reads as
       zeros, and the output is as long as the input plus the last shift;
     - no segment or section with file contents, and none of the header
       tables, straddles a step (it would be torn apart by the hole);
       an empty one (p_filesz or sh_size 0, SHT_NOBITS) at a step may go
       with either side;
     - the output keeps what the loaders need to find the program headers
       (see check_table_rules) and what glibc before 2.35 needs
       ((p_vaddr - p_offset) % p_align == 0 for every PT_LOAD with
       p_align > 1).  Where the input already breaks one of these, the
       output breaking it the same way is only a warning.

   When OUT has one PT_LOAD more than IN, it must be IN with holes and the
   startup stub of elfpmd --madvise, and only what the stub's injection
   changes may differ, each change checked for what it must be:
     - the new PT_LOAD is OUT's last PT_LOAD, right after the last of IN's,
       R+X, p_filesz = p_memsz, p_align a power of two of at least 4 KiB
       (and congruence modulo it as above), above every other PT_LOAD in
       memory and after all of IN's (mapped) contents in the file, with
       zeros in between; its program
       header either took over a slot of IN (a PT_NULL, a PT_NOTE that
       covers what PT_GNU_PROPERTY covers, or a shared object's PT_PHDR),
       or the table is one entry longer, in place ("grown") or at the
       start of the new segment ("moved", PT_PHDR describing it there, the
       segment's address minus offset that of the first PT_LOAD, so that
       the AT_PHDR of kernels before 5.18 finds it);
       IN's other program headers are matched in order and compared as
       above;
     - grown in place: the objects right after the old table (PT_INTERP,
       PT_NOTE and PT_GNU_PROPERTY segments, SHT_HASH and SHT_GNU_HASH
       sections, the sections inside those segments) may move into the new
       segment: all by the same amount, byte for byte, their old bytes
       inside the PT_LOAD holding the table and agreeing with it on
       address minus offset, their new ones inside the new segment and
       agreeing with it; nothing that stays may overlap what the grown
       table and the cleared old place cover, and after the grown table,
       up to the end of the moved bytes' old place, the output is zeros;
       a file without section headers moves only what starts right after
       the table;
     - the dynamic section (PT_DYNAMIC, entry by entry): unchanged but for
       the hook of a shared object (its DT_INIT, or its first DT_NULL when
       there was no DT_INIT and another DT_NULL follows) and DT_HASH or
       DT_GNU_HASH pointing into the moved bytes, which must follow them;
       no other address entry may point into their old place;
     - symbols: those of SHT_SYMTAB defined in moved sections have st_value
       moved with their section, everything else is unchanged; no dynamic
       symbol may be defined in a moved section;
     - riscv64 shared objects (whose ld.so calls no DT_INIT): the word
       deciding the first entry of DT_INIT_ARRAY, read from IN's dynamic
       section and relocation tables (the r_addend of the entry's one
       R_RISCV_RELATIVE relocation in DT_RELA or DT_JMPREL, or the entry
       itself when DT_RELR alone relocates it) is left out of the byte
       comparison; if it changed, that is the hook;
     - the hook: e_entry of a program (ET_EXEC, or ET_DYN with DF_1_PIE or
       with PT_INTERP and no DT_SONAME), DT_INIT of a shared object, or
       DT_INIT_ARRAY[0] of a riscv64 one, and nothing else, points into the
       stub's code in the new segment; the stub's parameters (found by
       their magic, exactly once, in the new segment) hold the old e_entry,
       DT_INIT or DT_INIT_ARRAY[0] relative to the hook (0 when there was
       none) and text ranges that lie PMD-aligned in an R+X PT_LOAD at the
       file offsets given;
     - with section headers: a new section header table and a copy of the
       section name table after the new segment (zeros between), e_shoff
       and e_shnum following; the copy is the old table byte for byte,
       extended by the new sections' names; the new sections, at the end
       of the table, are ".elfpmd.stub" (SHF_ALLOC|SHF_EXECINSTR, the
       stub's code up to the end of the segment, 16-byte aligned) and,
       when the table moved, ".elfpmd.phdrs" (SHF_ALLOC, the table copy);
       the old section header table and name table stay in place, as input
       bytes;
     - where IN has no ".gnu_debugdata", also one (SHT_PROGBITS, not
       loaded: the stub's MiniDebugInfo, one xz stream from its magic to
       its footer's) between the new section name table and the new
       section header table (zeros around it);
     - where IN has a symbol table (SHT_SYMTAB) that grew: it and its
       string table are copies after the new section name table (string
       table, then symbol table, zeros between), each the old one byte for
       byte then the stub's: names "elfpmd.NAME" (an empty string first at
       most), whole symbols, each global and hidden, a function or object
       of the new ".elfpmd.stub" inside it, named by one of those names;
       their old places stay as input bytes;
     - inside the new segment: what the table copy, the moved bytes and the
       stub's code do not cover is zeros.  The stub's code itself is not
       in IN and is not checked beyond its parameters.  */

#define PT_NULL 0
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_NOTE 4
#define PT_PHDR 6
#define PT_GNU_PROPERTY 0x6474e553
#define ET_EXEC 2
#define DT_NULL 0
#define DT_FLAGS_1 0x6ffffffb
#define DF_1_PIE 0x08000000
#define SHT_NULL 0
#define SHT_PROGBITS 1
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_RELA 4
#define SHT_HASH 5
#define SHT_NOTE 7
#define SHT_NOBITS 8
#define SHT_REL 9
#define SHT_DYNSYM 11
#define SHT_SYMTAB_SHNDX 18
#define SHT_GNU_HASH 0x6ffffff6
#define SHF_ALLOC 2
#define SHF_EXECINSTR 4
#define SHF_INFO_LINK 0x40
#define SHN_LORESERVE 0xff00
#define SHN_XINDEX 0xffff
#define ET_EXEC 2
#define ET_DYN 3
#define DT_NULL 0
#define DT_HASH 4
#define DT_INIT 12
#define DT_SONAME 14
#define DT_GNU_HASH 0x6ffffef5
#define DT_FLAGS_1 0x6ffffffb
#define DF_1_PIE 0x08000000
#define DT_PLTRELSZ 2
#define DT_RELA 7
#define DT_RELASZ 8
#define DT_RELAENT 9
#define DT_PLTREL 20
#define DT_JMPREL 23
#define DT_INIT_ARRAY 25
#define DT_INIT_ARRAYSZ 27
#define DT_RELRSZ 35
#define DT_RELR 36
#define EM_RISCV 243
#define R_RISCV_RELATIVE 3

/* The stub's parameters, as elfpmd documents them: 64-bit words in the
   file's byte order, target (relative to the stub's entry point), magic,
   flags, PMD size, number of ranges, STUB_RANGES ranges of three words
   (start relative to the entry point, length, file offset of the start),
   and the populate limit.  */
#define STUB_MAGIC 0x31444d5046504c45ULL	/* "ELPFPMD1" as little-endian */
#define STUB_RANGES 4
#define STUB_PARAM_WORDS (5 + 3 * STUB_RANGES + 1)
#define STUB_FLAG_EXE 1
#define STUB_SECTION ".elfpmd.stub"
#define STUB_PHDR_SECTION ".elfpmd.phdrs"
#define STUB_DEBUGDATA_SECTION ".gnu_debugdata"

/* A whole ELF file in memory with its header tables decoded.  */
struct image
{
  struct elf e;
  struct ehdr h;		/* counts after PN_XNUM and section 0 */
  const unsigned char *buf;	/* the whole file */
  uint64_t ehdr[E_NFIELDS];
  uint64_t (*ph)[P_NFIELDS];
  uint64_t (*sh)[SH_NFIELDS];
  unsigned phsize, shsize;	/* sizes of one entry's structure */
  uint64_t phtab, shtab;	/* sizes of the tables in the file */
};

static unsigned long bm_problems, bm_warnings;

static void __attribute__ ((format (printf, 1, 2)))
problem (const char *fmt, ...)
{
  va_list ap;
  if (++bm_problems > 40)
    {
      if (bm_problems == 41)
	fprintf (stderr, "%s: bytemap: more problems not shown\n", progname);
      return;
    }
  fprintf (stderr, "%s: bytemap: ", progname);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

static void __attribute__ ((format (printf, 1, 2)))
warning (const char *fmt, ...)
{
  va_list ap;
  bm_warnings++;
  fprintf (stderr, "%s: bytemap: warning: ", progname);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

static void *
xcalloc (const struct elf *e, uint64_t n, size_t size)
{
  void *p = n == 0 ? NULL : calloc ((size_t) n, size);
  if (n != 0 && p == NULL)
    die (e, "out of memory");
  return p;
}

/* Read NAME whole and decode its headers into *IM; die on what cannot be
   parsed at all (a table outside the file, say).  */
static void
load_image (struct image *im, const char *name)
{
  memset (im, 0, sizeof *im);
  open_elf (&im->e, name, &im->h);
  struct elf *e = &im->e;
  bool is64 = e->elfclass == ELFCLASS64;
  if ((uint64_t) (size_t) e->size != e->size)
    die (e, "too large to read into memory");
  /* Mapped rather than read: a rewrite with the stub may be a sparse file
     far larger than memory (its segment's offset follows its address).  */
  void *map = e->size == 0 ? MAP_FAILED
	      : mmap (NULL, (size_t) e->size, PROT_READ, MAP_PRIVATE, e->fd, 0);
  if (map != MAP_FAILED)
    im->buf = map;
  else
    {
      unsigned char *copy = malloc (e->size ? (size_t) e->size : 1);
      if (copy == NULL)
	die (e, "out of memory");
      read_at (e, 0, copy, (size_t) e->size, "the file");
      im->buf = copy;
    }
  decode (e, im->buf, elf_ehdr_fields, E_NFIELDS, im->ehdr);

  im->phsize = elf_phdr_size (is64);
  im->shsize = elf_shdr_size (is64);
  struct ehdr *h = &im->h;
  if (h->phnum != 0)
    {
      if (h->phentsize < im->phsize)
	die (e, "e_phentsize %u is smaller than a program header (%u)", h->phentsize, im->phsize);
      im->phtab = h->phnum * h->phentsize;
      if (h->phoff > e->size || im->phtab > e->size - h->phoff)
	die (e, "the program header table extends past the end of the file");
      im->ph = xcalloc (e, h->phnum, sizeof *im->ph);
      for (uint64_t i = 0; i < h->phnum; i++)
	decode (e, im->buf + h->phoff + i * h->phentsize, elf_phdr_fields, P_NFIELDS, im->ph[i]);
    }
  if (h->shoff != 0 && h->shnum != 0)
    {
      if (h->shentsize < im->shsize)
	die (e, "e_shentsize %u is smaller than a section header (%u)", h->shentsize, im->shsize);
      if (h->shnum > e->size / h->shentsize)
	die (e, "the section header table extends past the end of the file");
      im->shtab = h->shnum * h->shentsize;
      if (h->shoff > e->size || im->shtab > e->size - h->shoff)
	die (e, "the section header table extends past the end of the file");
      im->sh = xcalloc (e, h->shnum, sizeof *im->sh);
      for (uint64_t i = 0; i < h->shnum; i++)
	decode (e, im->buf + h->shoff + i * h->shentsize, elf_shdr_fields, SH_NFIELDS, im->sh[i]);
    }
  else
    h->shnum = 0;
}

/* The map: steps[0] = { 0, 0 }, then one step per change of the shift.  */
struct step
{
  uint64_t at;			/* input offset where the shift changes */
  uint64_t shift;		/* the shift from there on */
  uint64_t load;		/* the PT_LOAD (index) that starts there */
};
static struct step *steps;
static size_t nsteps;

/* Which program header of OUT is IN's program header i: omap[i] (NONE for
   the slot the stub's PT_LOAD took over), and which of IN's is OUT's j:
   imap[j] (NONE for the stub's PT_LOAD).  The identity without a stub.  */
#define NONE UINT64_MAX
static uint64_t *omap, *imap;

/* shift(x): the shift of the last step at or before X.  */
static uint64_t
shift_at (uint64_t x)
{
  size_t lo = 0, hi = nsteps;	/* steps[lo].at <= x < steps[hi].at */
  while (hi - lo > 1)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (steps[mid].at <= x)
	lo = mid;
      else
	hi = mid;
    }
  return steps[lo].shift;
}

/* The shift just before X: that of the last step strictly before X.  */
static uint64_t
shift_before (uint64_t x)
{
  return x == 0 ? 0 : shift_at (x - 1);
}

/* The first step strictly inside [OFF, OFF + LEN), or NULL.  */
static const struct step *
step_inside (uint64_t off, uint64_t len)
{
  for (size_t i = 1; i < nsteps; i++)
    if (steps[i].at > off && steps[i].at - off < len)
      return &steps[i];
  return NULL;
}

static void
check_not_split (const char *what, uint64_t off, uint64_t len)
{
  const struct step *s = step_inside (off, len);
  if (s != NULL)
    problem ("%s [0x%" PRIx64 ", +0x%" PRIx64 ") is split by the hole inserted at "
	     "input offset 0x%" PRIx64 " (start of PT_LOAD %" PRIu64 ")",
	     what, off, len, s->at, s->load);
}

/* Check a mapped offset field: NEW must be OLD + shift(OLD); for an empty
   object (EMPTY) the shift just before OLD is accepted too.  */
static void
check_offset (const char *what, uint64_t old, uint64_t new, bool empty)
{
  uint64_t want = old + shift_at (old);
  if (new == want)
    return;
  if (empty && new == old + shift_before (old))
    return;
  problem ("%s: offset 0x%" PRIx64 " became 0x%" PRIx64 ", the map says 0x%" PRIx64
	   "%s", what, old, new, want, empty ? " (or the shift before it)" : "");
}

struct load_ref
{
  uint64_t offset;
  uint64_t index;
};

static int
cmp_load_ref (const void *a, const void *b)
{
  const struct load_ref *x = a, *y = b;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* Derive the map from the PT_LOADs of IN and OUT (IN's program header i
   is OUT's omap[i]).  Return false when it cannot be derived (the problems
   are reported).  */
static bool
derive_map (const struct image *in, const struct image *out)
{
  uint64_t n = 0;
  struct load_ref *loads = xcalloc (&in->e, in->h.phnum + 1, sizeof *loads);
  for (uint64_t i = 0; i < in->h.phnum; i++)
    if (in->ph[i][P_TYPE] == PT_LOAD && in->ph[i][P_FILESZ] != 0 && omap[i] != NONE)
      loads[n++] = (struct load_ref) { in->ph[i][P_OFFSET], i };
  qsort (loads, (size_t) n, sizeof *loads, cmp_load_ref);

  steps = xcalloc (&in->e, n + 1, sizeof *steps);
  steps[0] = (struct step) { 0, 0, 0 };
  nsteps = 1;
  bool ok = true;
  uint64_t prev_offset = 0;
  for (uint64_t k = 0; k < n; k++)
    {
      uint64_t i = loads[k].index;
      uint64_t old = in->ph[i][P_OFFSET], new = out->ph[omap[i]][P_OFFSET];
      uint64_t cur = steps[nsteps - 1].shift;
      if (new < old)
	{
	  problem ("PT_LOAD %" PRIu64 " moved backwards: p_offset 0x%" PRIx64 " -> 0x%" PRIx64,
		   i, old, new);
	  ok = false;
	  continue;
	}
      uint64_t shift = new - old;
      if (shift < cur)
	{
	  problem ("PT_LOAD %" PRIu64 " (p_offset 0x%" PRIx64 " -> 0x%" PRIx64 ") moved by 0x%"
		   PRIx64 ", less than the 0x%" PRIx64 " of a PT_LOAD before it in the file: "
		   "the map is not monotone", i, old, new, shift, cur);
	  ok = false;
	}
      else if (shift > cur)
	{
	  if (k > 0 && old == prev_offset)
	    {
	      problem ("PT_LOADs %" PRIu64 " and %" PRIu64 " start at the same input offset 0x%"
		       PRIx64 " but moved by 0x%" PRIx64 " and 0x%" PRIx64,
		       loads[k - 1].index, i, old, cur, shift);
	      ok = false;
	    }
	  else
	    steps[nsteps++] = (struct step) { old, shift, i };
	}
      prev_offset = old;
    }
  free (loads);
  return ok;
}

/* Input ranges [start, end) that compare_bytes leaves out: what is
   rewritten in place and compared field by field instead.  */
#define MAX_EXCLUDED 64
static uint64_t excl[MAX_EXCLUDED][2];
static size_t nexcluded;

static void
exclude (uint64_t start, uint64_t end)
{
  if (end <= start)
    return;
  if (nexcluded == MAX_EXCLUDED)
    {
      problem ("too many ranges compared field by field (internal limit %d)", MAX_EXCLUDED);
      return;
    }
  excl[nexcluded][0] = start;
  excl[nexcluded++][1] = end;
}

/* The descs of IN's GNU build-id notes: input [start, end), each once.  */
#define MAX_BUILD_IDS 16
static uint64_t bid[MAX_BUILD_IDS][2];
static size_t nbid;

/* Record the build-id descs of the notes in IN's [OFF, OFF + SIZE), aligned
   to ALIGN (4 or 8) from OFF.  */
static void
build_id_notes (const struct image *in, uint64_t off, uint64_t size, uint64_t align)
{
  bool msb = in->e.data == ELFDATA2MSB;
  if (off > in->e.size || size > in->e.size - off)
    return;
  const unsigned char *p = in->buf + off;
  for (uint64_t at = 0; at + 12 <= size;)
    {
      uint64_t namesz = elf_get (p + at, 4, msb), descsz = elf_get (p + at + 4, 4, msb);
      uint64_t type = elf_get (p + at + 8, 4, msb);
      uint64_t desc = (at + 12 + namesz + align - 1) & ~(align - 1);
      uint64_t next = (desc + descsz + align - 1) & ~(align - 1);
      if (desc > size || descsz > size - desc || next <= at)
	return;
      bool seen = false;
      for (size_t k = 0; k < nbid; k++)
	seen = seen || bid[k][0] == off + desc;
      if (type == 3 && namesz == 4 && memcmp (p + at + 12, "GNU", 4) == 0 && descsz != 0 && !seen)
	{
	  if (nbid == MAX_BUILD_IDS)
	    {
	      problem ("more than %d GNU build-id notes", MAX_BUILD_IDS);
	      return;
	    }
	  bid[nbid][0] = off + desc;
	  bid[nbid++][1] = off + desc + descsz;
	}
      at = next;
    }
}

/* Find the build-id notes of IN (build_id_notes).  */
static void
find_build_ids (const struct image *in)
{
  for (uint64_t i = 1; i < in->h.shnum; i++)
    if (in->sh[i][SH_TYPE] == SHT_NOTE)
      build_id_notes (in, in->sh[i][SH_OFFSET], in->sh[i][SH_SIZE],
		      in->sh[i][SH_ADDRALIGN] == 8 ? 8 : 4);
  for (uint64_t i = 0; i < in->h.phnum; i++)
    if (in->ph[i][P_TYPE] == PT_NOTE)
      build_id_notes (in, in->ph[i][P_OFFSET], in->ph[i][P_FILESZ],
		      in->ph[i][P_ALIGN] == 8 ? 8 : 4);
}

/* Whether input offset X is in the desc of a build-id note.  */
static bool
in_build_id (uint64_t x)
{
  for (size_t k = 0; k < nbid; k++)
    if (x >= bid[k][0] && x < bid[k][1])
      return true;
  return false;
}

/* Compare the bytes of IN outside the excluded ranges with their images in
   OUT, and check that the holes read as zeros.  Return the number of bytes
   compared.  */
static uint64_t
compare_bytes (const struct image *in, const struct image *out)
{
  uint64_t (*ex)[2] = excl;
  size_t nex = nexcluded;

  /* Cut [0, size) at every step and at both ends of every excluded range;
     on each piece the shift is constant and the piece is wholly in or out
     of each excluded range.  */
  size_t ncuts = 0;
  uint64_t *cuts = xcalloc (&in->e, nsteps + 2 * nex + 2, sizeof *cuts);
  cuts[ncuts++] = 0;
  cuts[ncuts++] = in->e.size;
  for (size_t i = 0; i < nsteps; i++)
    if (steps[i].at < in->e.size)
      cuts[ncuts++] = steps[i].at;
  for (size_t i = 0; i < nex; i++)
    {
      cuts[ncuts++] = ex[i][0] < in->e.size ? ex[i][0] : in->e.size;
      cuts[ncuts++] = ex[i][1] < in->e.size ? ex[i][1] : in->e.size;
    }
  qsort (cuts, ncuts, sizeof *cuts, cmp_u64);

  uint64_t compared = 0;
  unsigned long mismatches = 0;
  for (size_t c = 0; c + 1 < ncuts; c++)
    {
      uint64_t a = cuts[c], b = cuts[c + 1];
      if (a == b)
	continue;
      bool excluded = false;
      for (size_t i = 0; i < nex; i++)
	if (a >= ex[i][0] && a < ex[i][1])
	  excluded = true;
      if (excluded)
	continue;
      uint64_t s = shift_at (a);
      if (b + s > out->e.size || b + s < b)
	{
	  problem ("input bytes [0x%" PRIx64 ", 0x%" PRIx64 ") map to [0x%" PRIx64 ", 0x%" PRIx64
		   "), past the end of the output (size 0x%" PRIx64 ")",
		   a, b, a + s, b + s, out->e.size);
	  continue;
	}
      compared += b - a;
      if (memcmp (in->buf + a, out->buf + a + s, (size_t) (b - a)) == 0)
	continue;
      /* Report the first differing byte and how many differ in the piece.  */
      uint64_t first = UINT64_MAX, count = 0;
      for (uint64_t x = a; x < b; x++)
	if (in->buf[x] != out->buf[x + s])
	  {
	    if (first == UINT64_MAX)
	      first = x;
	    count++;
	  }
      mismatches++;
      problem ("input byte at 0x%" PRIx64 " (0x%02x) differs from output byte at 0x%" PRIx64
	       " (0x%02x); %" PRIu64 " of the 0x%" PRIx64 " bytes in [0x%" PRIx64 ", 0x%" PRIx64
	       ") differ (shift 0x%" PRIx64 ")",
	       first, in->buf[first], first + s, out->buf[first + s], count, b - a, a, b, s);
    }
  free (cuts);

  for (size_t i = 1; i < nsteps; i++)
    {
      uint64_t from = steps[i].at + steps[i - 1].shift, to = steps[i].at + steps[i].shift;
      if (to > out->e.size)
	{
	  problem ("the hole [0x%" PRIx64 ", 0x%" PRIx64 ") lies past the end of the output", from, to);
	  continue;
	}
      for (uint64_t x = from; x < to; x++)
	if (out->buf[x] != 0)
	  {
	    problem ("the hole [0x%" PRIx64 ", 0x%" PRIx64 ") before PT_LOAD %" PRIu64
		     " is not all zeros: byte 0x%02x at 0x%" PRIx64,
		     from, to, steps[i].load, out->buf[x], x);
	    break;
	  }
    }
  return compared;
}

/* Compare the raw bytes of one table entry beyond its structure.  */
static void
compare_entry_tail (const char *what, const unsigned char *a, const unsigned char *b,
		    unsigned from, unsigned to)
{
  if (to > from && memcmp (a + from, b + from, to - from) != 0)
    problem ("%s: bytes after the structure (entry size %u) differ", what, to);
}

/* ---------------------------------------------------------------------------
   The startup stub of elfpmd --madvise, as OUT shows it (see the comment
   before bytemap()).  */

enum table_kind { TABLE_SLOT, TABLE_GROWN, TABLE_MOVED };
enum hook_kind { HOOK_NONE, HOOK_ENTRY, HOOK_INIT_CHAIN, HOOK_INIT_NEW, HOOK_INIT_ARRAY };

static struct
{
  bool on;			/* OUT has one PT_LOAD more than IN: the stub's */
  bool program;			/* IN is a program (hooked through e_entry) */
  enum table_kind table;	/* where the stub's program header went */
  uint64_t load;		/* the stub's PT_LOAD: its index in OUT */
  uint64_t dropped;		/* TABLE_SLOT: IN's entry it took over */
  uint64_t dropped_type;	/* its p_type */
  uint64_t off, vaddr, size;	/* its p_offset, p_vaddr, p_filesz */
  uint64_t seg_end;		/* off + size */
  uint64_t new_tab;		/* the size of OUT's program header table */
  uint64_t tab_load;		/* IN's PT_LOAD holding the table, NONE if none */
  uint64_t table_end;		/* input offset where the table's region
				   rewritten in place ends (TABLE_GROWN: the
				   grown table and the cleared old place) */
  /* TABLE_GROWN: the objects moved into the new segment.  */
  bool *ph_moved, *sh_moved;	/* per program header and section of IN */
  uint64_t nmoved_ph, nmoved_sh;
  uint64_t mv_start, mv_end;	/* their old place (input offsets) */
  uint64_t mv_vstart;		/* its address */
  uint64_t mv_delta, mv_vdelta;	/* new minus old offset, and address */
  uint64_t head_end;		/* output offset where the table copy or the
				   moved bytes end in the segment (off: none) */
  uint64_t code_off;		/* output offset of the stub's code: its
				   section's, else head_end */
  uint64_t added;		/* sections OUT has more than IN */
  /* OUT's section headers are read in IN's order, the new ones last
     (canonical_sections): OUT's index of each, and back.  */
  uint64_t *sh_pos, *sh_canon;
  uint64_t shstrndx;		/* the section name table, NONE if none */
  uint64_t code_sec, phdrs_sec;	/* OUT's new sections, NONE if none */
  uint64_t dd_sec;		/* the stub's MiniDebugInfo, NONE if none */
  uint64_t symtab, strtab;	/* IN's symbol table extended by the stub's
				   symbols and its string table, NONE if none */
  uint64_t dyn;			/* IN's PT_DYNAMIC, NONE if none */
  enum hook_kind hook;
  uint64_t hook_addr;		/* the new e_entry, DT_INIT or DT_INIT_ARRAY[0] */
  /* riscv64 shared objects: the word deciding DT_INIT_ARRAY[0] in IN.  */
  bool iw_found;
  bool iw_relr;			/* it is the entry (DT_RELR), not an r_addend */
  uint64_t iw_off, iw_old;	/* its input offset and value */
  uint64_t old_target;		/* the old one, 0 if none */
  uint64_t nhash;		/* DT_HASH and DT_GNU_HASH entries that followed */
  uint64_t nsyms;		/* .symtab symbols that followed */
  uint64_t nranges;		/* the stub's text ranges */
  /* The input ranges of the headers rewritten in place, compared field by
     field: a dynamic entry or a symbol there is left to that comparison.  */
  uint64_t hdr[3][2];
  size_t nhdr;
} sv;

/* Whether [OFF, OFF + LEN) lies in a file of SIZE bytes.  */
static bool
fits (uint64_t off, uint64_t len, uint64_t size)
{
  return off <= size && len <= size - off;
}

/* Whether [OFF, OFF + LEN) and [START, END) overlap.  */
static bool
overlaps (uint64_t off, uint64_t len, uint64_t start, uint64_t end)
{
  if (len == 0 || start >= end)
    return false;
  return off < start ? start - off < len : off < end;
}

/* Whether input bytes [OFF, OFF + LEN) overlap a header rewritten in place.  */
static bool
in_header (uint64_t off, uint64_t len)
{
  for (size_t i = 0; i < sv.nhdr; i++)
    if (overlaps (off, len, sv.hdr[i][0], sv.hdr[i][1]))
      return true;
  return false;
}

/* Check that output bytes [START, END) of IM read as zeros.  Holes the file
   system reports (SEEK_DATA, SEEK_HOLE) are skipped: they read as zeros.  */
static void
expect_zeros (const struct image *im, uint64_t start, uint64_t end, const char *what)
{
  if (end <= start)
    return;
  if (!fits (start, end - start, im->e.size))
    {
      problem ("%s [0x%" PRIx64 ", 0x%" PRIx64 ") extends past the end of the output "
	       "(size 0x%" PRIx64 ")", what, start, end, im->e.size);
      return;
    }
  for (uint64_t x = start; x < end;)
    {
      uint64_t stop = end;
#ifdef SEEK_DATA
      off_t data = lseek (im->e.fd, (off_t) x, SEEK_DATA);
      if ((data < 0 && errno == ENXIO) || (data >= 0 && (uint64_t) data >= end))
	return;			/* only a hole is left */
      if (data >= 0)
	{
	  x = (uint64_t) data;
	  off_t hole = lseek (im->e.fd, data, SEEK_HOLE);
	  if (hole >= 0 && (uint64_t) hole < end)
	    stop = (uint64_t) hole;
	}
#endif
      for (; x < stop; x++)
	if (im->buf[x] != 0)
	  {
	    problem ("%s [0x%" PRIx64 ", 0x%" PRIx64 ") is not all zeros: byte 0x%02x at 0x%"
		     PRIx64, what, start, end, im->buf[x], x);
	    return;
	  }
    }
}

/* Check a field of OUT that must have the value WANT.  */
static void
expect_value (const char *what, const char *field, uint64_t value, uint64_t want)
{
  if (value != want)
    problem ("%s: %s is 0x%" PRIx64 ", expected 0x%" PRIx64, what, field, value, want);
}

/* The number of IM's program headers of TYPE.  */
static uint64_t
count_type (const struct image *im, uint64_t type)
{
  uint64_t n = 0;
  for (uint64_t i = 0; i < im->h.phnum; i++)
    n += im->ph[i][P_TYPE] == type;
  return n;
}

/* The program header types of IM, for messages.  */
static const char *
types_string (const struct image *im, char *buf, size_t len)
{
  char b[32];
  size_t n = 0;
  buf[0] = '\0';
  for (uint64_t i = 0; i < im->h.phnum && n + 1 < len; i++)
    {
      int k = snprintf (buf + n, len - n, "%s%s", i ? " " : "",
			phdr_type_name ((uint32_t) im->ph[i][P_TYPE], b, sizeof b));
      if (k < 0)
	break;
      n += (size_t) k;
    }
  return buf;
}

/* Dynamic entry K of the dynamic array at OFF of IM.  */
static void
dyn_entry (const struct image *im, uint64_t off, uint64_t k, uint64_t *tag, uint64_t *val)
{
  uint64_t d[D_NFIELDS];
  decode (&im->e, im->buf + off + k * elf_dyn_size (im->e.elfclass == ELFCLASS64),
	  elf_dyn_fields, D_NFIELDS, d);
  *tag = d[D_TAG];
  *val = d[D_VAL];
}

/* Whether dynamic tag TAG holds an address: DT_PLTGOT, DT_HASH, DT_STRTAB,
   DT_SYMTAB, DT_RELA, DT_INIT, DT_FINI, DT_REL, DT_JMPREL, DT_INIT_ARRAY,
   DT_FINI_ARRAY, DT_PREINIT_ARRAY, DT_SYMTAB_SHNDX, DT_RELR, DT_VERSYM,
   DT_VERDEF, DT_VERNEED and the DT_ADDRRNGLO..DT_ADDRRNGHI range (with
   DT_GNU_HASH).  */
static bool
pointer_tag (uint64_t tag)
{
  switch (tag)
    {
    case 3: case 4: case 5: case 6: case 7: case 12: case 13: case 17: case 23:
    case 25: case 26: case 32: case 34: case 36:
    case 0x6ffffff0: case 0x6ffffffc: case 0x6ffffffe:
      return true;
    default:
      return tag >= 0x6ffffe00 && tag <= 0x6ffffeff;
    }
}

/* Whether IN is a program, which the stub hooks through e_entry, rather
   than a shared object, hooked through DT_INIT: ET_EXEC, or ET_DYN with
   DF_1_PIE, or with PT_INTERP and no DT_SONAME (without a dynamic section:
   with PT_INTERP).  */
static bool
is_program (const struct image *in)
{
  if (in->h.type == ET_EXEC)
    return true;
  bool interp = count_type (in, PT_INTERP) != 0, pie = false, soname = false;
  unsigned ent = 2 * word (&in->e);
  for (uint64_t i = 0; i < in->h.phnum; i++)
    {
      const uint64_t *p = in->ph[i];
      if (p[P_TYPE] != PT_DYNAMIC || p[P_FILESZ] == 0)
	continue;
      if (!fits (p[P_OFFSET], p[P_FILESZ], in->e.size))
	return interp;
      for (uint64_t k = 0; k < p[P_FILESZ] / ent; k++)
	{
	  uint64_t tag, val;
	  dyn_entry (in, p[P_OFFSET], k, &tag, &val);
	  if (tag == DT_NULL)
	    break;
	  if (tag == DT_FLAGS_1 && (val & DF_1_PIE))
	    pie = true;
	  if (tag == DT_SONAME)
	    soname = true;
	}
      return pie || (interp && !soname);
    }
  return interp;
}

/* Match IN's program headers with OUT's, which has one PT_LOAD more, the
   stub's: OUT's last PT_LOAD.  OUT without it must be IN, or IN without one
   entry (the slot taken over), the types in the same order.  Fills omap,
   imap, sv.load, sv.dropped and sv.table.  Return false when no match fits
   (reported).  */
static bool
stub_match (const struct image *in, const struct image *out)
{
  uint64_t n = in->h.phnum, m = out->h.phnum, last = NONE;
  char b1[32], t1[512], t2[512];
  for (uint64_t j = 0; j < m; j++)
    if (out->ph[j][P_TYPE] == PT_LOAD)
      last = j;
  sv.load = last;
  sv.dropped = NONE;
  if (m == n)
    sv.table = TABLE_SLOT;
  else if (m == n + 1)
    sv.table = TABLE_GROWN;	/* or TABLE_MOVED, told below */
  else
    {
      problem ("OUT has one PT_LOAD more than IN but %" PRIu64 " program headers for IN's %"
	       PRIu64 ": neither a slot taken over nor one entry added", m, n);
      return false;
    }

  /* The slot: the candidate whose other entries agree best.  */
  uint64_t best = NONE, best_cost = NONE;
  for (uint64_t c = 0; c < (sv.table == TABLE_SLOT ? n : 1); c++)
    {
      uint64_t d = sv.table == TABLE_SLOT ? c : NONE, cost = 0;
      bool fit = true;
      for (uint64_t i = 0; i < n && fit; i++)
	{
	  if (i == d)
	    continue;
	  uint64_t r = d != NONE && i > d ? i - 1 : i, j = r < last ? r : r + 1;
	  const uint64_t *a = in->ph[i], *b = out->ph[j];
	  fit = a[P_TYPE] == b[P_TYPE];
	  cost += (a[P_VADDR] != b[P_VADDR]) + (a[P_FILESZ] != b[P_FILESZ])
		  + (a[P_MEMSZ] != b[P_MEMSZ]) + (a[P_FLAGS] != b[P_FLAGS]);
	}
      if (fit && cost < best_cost)
	best = c, best_cost = cost;
    }
  if (best == NONE)
    {
      problem ("OUT's program headers (%s) are not IN's (%s) with the stub's PT_LOAD after "
	       "the last PT_LOAD%s", types_string (out, t2, sizeof t2),
	       types_string (in, t1, sizeof t1),
	       sv.table == TABLE_SLOT ? ", taking over one slot" : "");
      return false;
    }
  if (sv.table == TABLE_SLOT)
    {
      sv.dropped = best;
      sv.dropped_type = in->ph[best][P_TYPE];
    }
  for (uint64_t j = 0; j < m; j++)
    imap[j] = NONE;
  for (uint64_t i = 0; i < n; i++)
    {
      if (i == sv.dropped)
	{
	  omap[i] = NONE;
	  continue;
	}
      uint64_t r = sv.dropped != NONE && i > sv.dropped ? i - 1 : i, j = r < last ? r : r + 1;
      omap[i] = j;
      imap[j] = i;
    }

  if (last == 0 || out->ph[last - 1][P_TYPE] != PT_LOAD)
    problem ("the stub's PT_LOAD (program header %" PRIu64 ") does not follow the last of IN's "
	     "PT_LOADs", last);
  if (sv.dropped != NONE)
    {
      const uint64_t *d = in->ph[sv.dropped];
      bool ok = d[P_TYPE] == PT_NULL || (d[P_TYPE] == PT_PHDR && !sv.program);
      for (uint64_t i = 0; i < n && d[P_TYPE] == PT_NOTE; i++)
	if (in->ph[i][P_TYPE] == PT_GNU_PROPERTY && in->ph[i][P_OFFSET] == d[P_OFFSET]
	    && in->ph[i][P_FILESZ] == d[P_FILESZ] && in->ph[i][P_VADDR] == d[P_VADDR])
	  ok = true;
      if (!ok)
	problem ("the stub's PT_LOAD took over program header %" PRIu64 " (%s), which is "
		 "neither a PT_NULL, a PT_NOTE covering what PT_GNU_PROPERTY covers, nor a "
		 "shared object's PT_PHDR", sv.dropped,
		 phdr_type_name ((uint32_t) d[P_TYPE], b1, sizeof b1));
    }
  const uint64_t *p = out->ph[last];
  sv.off = p[P_OFFSET];
  sv.vaddr = p[P_VADDR];
  sv.size = p[P_FILESZ];
  sv.seg_end = sv.off + sv.size;
  sv.new_tab = out->phtab;
  if (sv.table != TABLE_SLOT && out->h.phoff - sv.off < sv.size)
    sv.table = TABLE_MOVED;
  return true;
}

/* The stub's PT_LOAD: R+X, as large in memory as in the file, above every
   other PT_LOAD, after the input's contents (which end at MAPPED_END in the
   output), its address minus offset that of the first PT_LOAD where the
   table moved into it.  */
static void
check_new_load (const struct image *out, uint64_t mapped_end)
{
  const uint64_t *p = out->ph[sv.load], *first = NULL;
  char what[64];
  snprintf (what, sizeof what, "the stub's PT_LOAD (program header %" PRIu64 ")", sv.load);
  if (p[P_FLAGS] != (PF_R | PF_X))
    problem ("%s: p_flags 0x%" PRIx64 ", expected R+X (0x%x)", what, p[P_FLAGS], PF_R | PF_X);
  if (p[P_FILESZ] == 0 || p[P_MEMSZ] != p[P_FILESZ])
    problem ("%s: p_filesz 0x%" PRIx64 ", p_memsz 0x%" PRIx64 ": expected equal and not 0",
	     what, p[P_FILESZ], p[P_MEMSZ]);
  if (!power_of_2 (p[P_ALIGN]) || p[P_ALIGN] < 0x1000)
    problem ("%s: p_align 0x%" PRIx64 " is not a power of two of at least 4 KiB", what,
	     p[P_ALIGN]);
  for (uint64_t j = 0; j < out->h.phnum; j++)
    {
      const uint64_t *q = out->ph[j];
      if (j == sv.load || q[P_TYPE] != PT_LOAD)
	continue;
      if (first == NULL)
	first = q;
      if (p[P_VADDR] < q[P_VADDR] + q[P_MEMSZ])
	problem ("%s at 0x%" PRIx64 " is not above PT_LOAD %" PRIu64 " [0x%" PRIx64 ", 0x%" PRIx64
		 ") in memory", what, p[P_VADDR], j, q[P_VADDR], q[P_VADDR] + q[P_MEMSZ]);
    }
  /* (Congruence modulo p_align: check_loader_rules.)  Where the table moved
     into the segment, kernels before 5.18 find it only if the segment's
     address minus offset is the first PT_LOAD's.  */
  if (sv.table == TABLE_MOVED && first != NULL
      && p[P_VADDR] - p[P_OFFSET] != first[P_VADDR] - first[P_OFFSET])
    problem ("%s: p_vaddr 0x%" PRIx64 " - p_offset 0x%" PRIx64 " differs from the first "
	     "PT_LOAD's 0x%" PRIx64 ", but the program header table moved into it", what,
	     p[P_VADDR], p[P_OFFSET], first[P_VADDR] - first[P_OFFSET]);
  if (first != NULL && p[P_PADDR] != p[P_VADDR]
      && p[P_PADDR] - p[P_VADDR] != first[P_PADDR] - first[P_VADDR])
    problem ("%s: p_paddr 0x%" PRIx64 " is neither p_vaddr nor placed as the first PT_LOAD's",
	     what, p[P_PADDR]);
  if (p[P_VADDR] + p[P_MEMSZ] < p[P_VADDR])
    problem ("%s wraps around the address space", what);
  if (sv.off < mapped_end)
    problem ("%s at offset 0x%" PRIx64 " overlaps the input's contents, which end at 0x%" PRIx64
	     " in the output", what, sv.off, mapped_end);
  if (!fits (sv.off, sv.size, out->e.size))
    problem ("%s [0x%" PRIx64 ", +0x%" PRIx64 ") extends past the end of the output", what,
	     sv.off, sv.size);
}

/* The string at NAME of OUT's section name table, or NULL.  */
static const char *
section_name (const struct image *out, uint64_t name)
{
  if (sv.shstrndx == NONE || sv.shstrndx >= out->h.shnum)
    return NULL;
  const uint64_t *s = out->sh[sv.shstrndx];
  if (!fits (s[SH_OFFSET], s[SH_SIZE], out->e.size) || name >= s[SH_SIZE])
    return NULL;
  const char *p = (const char *) out->buf + s[SH_OFFSET] + name;
  return memchr (p, 0, (size_t) (s[SH_SIZE] - name)) != NULL ? p : NULL;
}

/* OUT's section I in the canonical order.  */
static uint64_t
canon_index (const struct image *out, uint64_t i)
{
  return sv.sh_canon != NULL && i < out->h.shnum ? sv.sh_canon[i] : i;
}

/* Put OUT's section headers in IN's order, the new ones after them, as
   elfpmd may put its new loaded sections' headers among IN's (after the
   last loaded one); e_shstrndx, sh_link and sh_info where it names a
   section follow.  A header of OUT is the next one of IN where the fields
   elfpmd never changes are the same, else a new one, named past the end
   of IN's section name table (which OUT's extends).  Where the rest is
   not IN's sections in their order, a problem, and OUT as it is.  */
static void
canonical_sections (const struct image *in, struct image *out)
{
  uint64_t n = out->h.shnum;
  if (sv.shstrndx == NONE || n <= in->h.shnum || in->h.shnum == 0)
    return;
  uint64_t old_names = in->sh[sv.shstrndx][SH_SIZE], old = 0, added = in->h.shnum;
  uint64_t *canon = xcalloc (&out->e, n, sizeof *canon), *pos = xcalloc (&out->e, n, sizeof *pos);
  for (uint64_t j = 0; j < n; j++)
    {
      const uint64_t *a = old < in->h.shnum ? in->sh[old] : NULL, *b = out->sh[j];
      bool is_new = a == NULL || a[SH_NAME] != b[SH_NAME] || a[SH_TYPE] != b[SH_TYPE]
		    || a[SH_FLAGS] != b[SH_FLAGS] || a[SH_ADDRALIGN] != b[SH_ADDRALIGN]
		    || a[SH_ENTSIZE] != b[SH_ENTSIZE];
      if (is_new && (j == 0 || b[SH_NAME] < old_names || added == n))
	{
	  problem ("OUT's sections are not IN's in their order with the new ones among them");
	  free (canon);
	  free (pos);
	  return;
	}
      canon[j] = is_new ? added++ : old++;
      pos[canon[j]] = j;
    }
  uint64_t (*sh)[SH_NFIELDS] = xcalloc (&out->e, n, sizeof *sh);
  sv.sh_canon = canon;
  for (uint64_t j = 0; j < n; j++)
    {
      uint64_t *s = sh[canon[j]];
      memcpy (s, out->sh[j], sizeof *sh);
      s[SH_LINK] = canon_index (out, s[SH_LINK]);
      if ((s[SH_FLAGS] & SHF_INFO_LINK) != 0 || s[SH_TYPE] == SHT_REL || s[SH_TYPE] == SHT_RELA)
	s[SH_INFO] = canon_index (out, s[SH_INFO]);
    }
  if (out->ehdr[E_SHSTRNDX] != SHN_XINDEX)
    out->ehdr[E_SHSTRNDX] = canon_index (out, out->ehdr[E_SHSTRNDX]);
  free (out->sh);
  out->sh = sh;
  sv.sh_pos = pos;
}

/* The sections OUT has after IN's: the stub's code and, where the table
   moved, the table copy.  */
static void
check_new_sections (const struct image *in, const struct image *out)
{
  char what[96];
  sv.code_sec = sv.phdrs_sec = sv.dd_sec = NONE;
  sv.added = 0;
  if (out->h.shnum < in->h.shnum)
    {
      problem ("OUT has %" PRIu64 " sections, fewer than IN's %" PRIu64, out->h.shnum,
	       in->h.shnum);
      return;
    }
  sv.added = out->h.shnum - in->h.shnum;
  if (sv.added == 0)
    return;
  if (in->h.shnum == 0)
    {
      problem ("IN has no section headers, OUT has %" PRIu64, out->h.shnum);
      return;
    }
  uint64_t want = sv.table == TABLE_MOVED ? 2 : 1;
  if (sv.added != want && sv.added != want + 1)
    problem ("OUT has %" PRIu64 " sections more than IN, expected %" PRIu64 " (%s), or one "
	     "more, " STUB_DEBUGDATA_SECTION, sv.added, want,
	     want == 2 ? STUB_SECTION " and " STUB_PHDR_SECTION : STUB_SECTION);
  if (sv.shstrndx == NONE)
    problem ("sections added to a file without a section name table");
  for (uint64_t i = in->h.shnum; i < out->h.shnum; i++)
    {
      const uint64_t *s = out->sh[i];
      const char *name = section_name (out, s[SH_NAME]);
      snprintf (what, sizeof what, "new section %" PRIu64 " (%.32s)", i, name ? name : "no name");
      bool code = name != NULL && strcmp (name, STUB_SECTION) == 0;
      bool tab = name != NULL && strcmp (name, STUB_PHDR_SECTION) == 0 && sv.table == TABLE_MOVED;
      if (name != NULL && strcmp (name, STUB_DEBUGDATA_SECTION) == 0)
	{
	  static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	  if (sv.dd_sec != NONE)
	    problem ("%s: a second one", what);
	  sv.dd_sec = i;
	  expect_value (what, "sh_type", s[SH_TYPE], SHT_PROGBITS);
	  expect_value (what, "sh_flags", s[SH_FLAGS], 0);
	  expect_value (what, "sh_addr", s[SH_ADDR], 0);
	  expect_value (what, "sh_link", s[SH_LINK], 0);
	  expect_value (what, "sh_info", s[SH_INFO], 0);
	  if (!fits (s[SH_OFFSET], s[SH_SIZE], out->e.size) || s[SH_SIZE] < 32
	      || memcmp (out->buf + s[SH_OFFSET], xz, 6) != 0
	      || memcmp (out->buf + s[SH_OFFSET] + s[SH_SIZE] - 2, "YZ", 2) != 0)
	    problem ("%s is not one xz stream inside the file", what);
	  continue;
	}
      if (!code && !tab)
	{
	  problem ("%s: neither %s nor, where the table moved, %s", what, STUB_SECTION,
		   STUB_PHDR_SECTION);
	  continue;
	}
      if ((code ? sv.code_sec : sv.phdrs_sec) != NONE)
	{
	  problem ("%s: a second one", what);
	  continue;
	}
      *(code ? &sv.code_sec : &sv.phdrs_sec) = i;
      expect_value (what, "sh_type", s[SH_TYPE], SHT_PROGBITS);
      expect_value (what, "sh_flags", s[SH_FLAGS], code ? SHF_ALLOC | SHF_EXECINSTR : SHF_ALLOC);
      expect_value (what, "sh_link", s[SH_LINK], 0);
      expect_value (what, "sh_info", s[SH_INFO], 0);
      expect_value (what, "sh_entsize", s[SH_ENTSIZE], 0);
      expect_value (what, "sh_addralign", s[SH_ADDRALIGN], code ? 16 : 8);
      if (s[SH_ADDR] - s[SH_OFFSET] != sv.vaddr - sv.off)
	problem ("%s: sh_addr 0x%" PRIx64 " - sh_offset 0x%" PRIx64 " differs from the stub's "
		 "PT_LOAD's 0x%" PRIx64, what, s[SH_ADDR], s[SH_OFFSET], sv.vaddr - sv.off);
      if (s[SH_OFFSET] < sv.off || !fits (s[SH_OFFSET] - sv.off, s[SH_SIZE], sv.size))
	problem ("%s [0x%" PRIx64 ", +0x%" PRIx64 ") is not inside the stub's segment [0x%" PRIx64
		 ", 0x%" PRIx64 ")", what, s[SH_OFFSET], s[SH_SIZE], sv.off, sv.seg_end);
      else if (code && (s[SH_SIZE] == 0 || s[SH_OFFSET] + s[SH_SIZE] != sv.seg_end))
	problem ("%s [0x%" PRIx64 ", +0x%" PRIx64 ") does not reach the end of the stub's segment "
		 "(0x%" PRIx64 ")", what, s[SH_OFFSET], s[SH_SIZE], sv.seg_end);
      else if (code && s[SH_ADDR] % 16 != 0)
	problem ("%s: sh_addr 0x%" PRIx64 " is not 16-byte aligned", what, s[SH_ADDR]);
      else if (tab && (s[SH_OFFSET] != sv.off || s[SH_SIZE] < sv.new_tab))
	problem ("%s [0x%" PRIx64 ", +0x%" PRIx64 ") does not cover the program header table at "
		 "the start of the stub's segment (0x%" PRIx64 " bytes)", what, s[SH_OFFSET],
		 s[SH_SIZE], sv.new_tab);
    }
  if (sv.code_sec == NONE)
    problem ("no %s section among the new ones", STUB_SECTION);
  if (sv.table == TABLE_MOVED && sv.phdrs_sec == NONE)
    problem ("the program header table moved but no %s section covers it", STUB_PHDR_SECTION);
  if (sv.code_sec != NONE && sv.phdrs_sec != NONE
      && out->sh[sv.phdrs_sec][SH_OFFSET] + out->sh[sv.phdrs_sec][SH_SIZE]
	 != out->sh[sv.code_sec][SH_OFFSET])
    problem ("%s does not end where %s begins", STUB_PHDR_SECTION, STUB_SECTION);
}

/* The new section name table: the old one byte for byte, then the names of
   the stub's sections.  */
static void
check_names (const struct image *in, const struct image *out)
{
  const uint64_t *a = in->sh[sv.shstrndx], *b = out->sh[sv.shstrndx];
  if (a[SH_TYPE] != SHT_STRTAB)
    problem ("the section name table (section %" PRIu64 ") is not SHT_STRTAB", sv.shstrndx);
  if (!fits (a[SH_OFFSET], a[SH_SIZE], in->e.size) || !fits (b[SH_OFFSET], b[SH_SIZE], out->e.size))
    {
      problem ("the section name table (section %" PRIu64 ") extends past the end of the file",
	       sv.shstrndx);
      return;
    }
  if (b[SH_SIZE] < a[SH_SIZE])
    {
      problem ("the new section name table (0x%" PRIx64 " bytes) is shorter than the old one "
	       "(0x%" PRIx64 ")", b[SH_SIZE], a[SH_SIZE]);
      return;
    }
  const unsigned char *x = in->buf + a[SH_OFFSET], *y = out->buf + b[SH_OFFSET];
  for (uint64_t k = 0; k < a[SH_SIZE]; k++)
    if (x[k] != y[k])
      {
	problem ("the new section name table differs from the old one at byte 0x%" PRIx64, k);
	break;
      }
  /* The extension: whole names, each of a stub's section, once.  */
  const char *p = (const char *) y + a[SH_SIZE], *end = (const char *) y + b[SH_SIZE];
  bool code = false, tab = false, dd = false;
  while (p < end)
    {
      const char *z = memchr (p, 0, (size_t) (end - p));
      if (z == NULL)
	{
	  problem ("the new section name table does not end with a NUL");
	  break;
	}
      if (strcmp (p, STUB_SECTION) == 0 && !code)
	code = true;
      else if (strcmp (p, STUB_PHDR_SECTION) == 0 && !tab)
	tab = true;
      else if (strcmp (p, STUB_DEBUGDATA_SECTION) == 0 && !dd)
	dd = true;
      else
	problem ("the section name table is extended by \"%.40s\", which is not the name of a "
		 "stub's section (or a repeated one)", p);
      p = z + 1;
    }
}

/* A symbol, its fields read from the file.  */
struct sym
{
  uint64_t name, value, size, info, other, shndx;
};

static void
read_sym (const struct image *im, uint64_t off, struct sym *s)
{
  uint64_t f[ST_NFIELDS];
  decode (&im->e, im->buf + off, elf_sym_fields, ST_NFIELDS, f);
  s->name = f[ST_NAME];
  s->info = f[ST_INFO];
  s->other = f[ST_OTHER];
  s->shndx = f[ST_SHNDX];
  s->value = f[ST_VALUE];
  s->size = f[ST_SIZE];
}

/* IN's symbol table that grew in OUT, and its string table, into
   sv.symtab and sv.strtab (NONE where none grew).  */
static void
find_grown_tables (const struct image *in, const struct image *out)
{
  sv.symtab = sv.strtab = NONE;
  for (uint64_t i = 1; i < in->h.shnum; i++)
    {
      const uint64_t *a = in->sh[i], *b = out->sh[i];
      if (a[SH_TYPE] != SHT_SYMTAB || b[SH_SIZE] == a[SH_SIZE])
	continue;
      if (sv.symtab != NONE)
	problem ("symbol table (section %" PRIu64 ") grew, after section %" PRIu64 " did", i,
		 sv.symtab);
      sv.symtab = i;
      uint64_t t = a[SH_LINK];
      if (t == 0 || t >= in->h.shnum || t == sv.shstrndx || in->sh[t][SH_TYPE] != SHT_STRTAB
	  || out->sh[t][SH_SIZE] <= in->sh[t][SH_SIZE])
	problem ("symbol table (section %" PRIu64 ") grew, but its string table (section %"
		 PRIu64 ") did not, or is not one of its own", i, t);
      else
	sv.strtab = t;
    }
  if (sv.symtab != NONE && sv.added == 0)
    problem ("the symbol table grew, but no section was added");
}

/* The grown symbol and string tables (find_grown_tables): the old ones
   byte for byte, then the stub's names and symbols.  */
static void
check_grown_tables (const struct image *in, const struct image *out)
{
  if (sv.symtab == NONE || sv.strtab == NONE)
    return;
  const uint64_t *sa = in->sh[sv.symtab], *sb = out->sh[sv.symtab];
  const uint64_t *ta = in->sh[sv.strtab], *tb = out->sh[sv.strtab];
  if (!fits (sa[SH_OFFSET], sa[SH_SIZE], in->e.size) || !fits (sb[SH_OFFSET], sb[SH_SIZE], out->e.size)
      || !fits (ta[SH_OFFSET], ta[SH_SIZE], in->e.size) || !fits (tb[SH_OFFSET], tb[SH_SIZE], out->e.size)
      || sb[SH_SIZE] < sa[SH_SIZE] || tb[SH_SIZE] < ta[SH_SIZE])
    {
      problem ("the grown symbol or string table lies outside IN or OUT, or shrank");
      return;
    }
  if (memcmp (in->buf + sa[SH_OFFSET], out->buf + sb[SH_OFFSET], (size_t) sa[SH_SIZE]) != 0
      && sv.nmoved_sh == 0)
    problem ("the grown symbol table's first 0x%" PRIx64 " bytes are not the old table's",
	     sa[SH_SIZE]);
  if (memcmp (in->buf + ta[SH_OFFSET], out->buf + tb[SH_OFFSET], (size_t) ta[SH_SIZE]) != 0)
    problem ("the grown string table's first 0x%" PRIx64 " bytes are not the old table's",
	     ta[SH_SIZE]);
  /* The names: whole strings, each "elfpmd.NAME".  */
  const char *names = (const char *) out->buf + tb[SH_OFFSET];
  const char *p = names + ta[SH_SIZE], *end = names + tb[SH_SIZE];
  if (end[-1] != 0)
    problem ("the grown string table does not end with a NUL");
  else
    {
      if (*p == 0)
	p++;
      for (; p < end; p += strlen (p) + 1)
	if (strncmp (p, "elfpmd.", 7) != 0 || p[7] == 0)
	  problem ("the string table is extended by \"%.40s\", not an \"elfpmd.\" name", p);
    }
  /* The symbols.  */
  unsigned ent = in->e.elfclass == ELFCLASS64 ? 24 : 16;
  if (sa[SH_SIZE] % ent != 0 || (sb[SH_SIZE] - sa[SH_SIZE]) % ent != 0)
    {
      problem ("the symbol table grew by 0x%" PRIx64 " bytes, not whole symbols after whole "
	       "symbols", sb[SH_SIZE] - sa[SH_SIZE]);
      return;
    }
  const uint64_t *code = sv.code_sec != NONE ? out->sh[sv.code_sec] : NULL;
  for (uint64_t off = sa[SH_SIZE]; off < sb[SH_SIZE]; off += ent)
    {
      struct sym y;
      read_sym (out, sb[SH_OFFSET] + off, &y);
      uint64_t k = off / ent;
      if ((y.info >> 4) != 1 || (y.other & 3) != 2 || ((y.info & 15) != 1 && (y.info & 15) != 2))
	problem ("added symbol %" PRIu64 ": st_info 0x%" PRIx64 ", st_other 0x%" PRIx64 ", not a "
		 "global hidden function or object", k, y.info, y.other);
      if (code == NULL || canon_index (out, y.shndx) != sv.code_sec || y.value < code[SH_ADDR]
	  || y.size > code[SH_SIZE] || y.value - code[SH_ADDR] > code[SH_SIZE] - y.size)
	problem ("added symbol %" PRIu64 " (section %" PRIu64 ", 0x%" PRIx64 ", %" PRIu64
		 " bytes) is not inside " STUB_SECTION, k, y.shndx, y.value, y.size);
      if (y.name < ta[SH_SIZE] || y.name >= tb[SH_SIZE]
	  || strncmp (names + y.name, "elfpmd.", 7) != 0)
	problem ("added symbol %" PRIu64 " is not named by an added name", k);
    }
}

/* One object moved into the stub's segment, WHAT: from old offset OFF (LEN
   bytes) and address ADDR to NEW_OFF and NEW_ADDR.  Every object moves by
   the same amount (the first one sets it); the old place agrees with the
   PT_LOAD that held the table on address minus offset, the new one with
   the stub's PT_LOAD, and lies inside it.  */
static void
note_moved (const struct image *in, const char *what, uint64_t off, uint64_t len,
	    uint64_t addr, uint64_t new_off, uint64_t new_addr, bool *first)
{
  if (*first)
    {
      sv.mv_delta = new_off - off;
      sv.mv_vdelta = new_addr - addr;
      sv.mv_start = off;
      sv.mv_end = off + len;
      *first = false;
    }
  else
    {
      if (new_off - off != sv.mv_delta || new_addr - addr != sv.mv_vdelta)
	problem ("%s moved from 0x%" PRIx64 " (address 0x%" PRIx64 ") to 0x%" PRIx64
		 " (0x%" PRIx64 "), not by the amount the other moved objects moved "
		 "(0x%" PRIx64 " in the file, 0x%" PRIx64 " in memory)", what, off, addr, new_off,
		 new_addr, sv.mv_delta, sv.mv_vdelta);
      if (off < sv.mv_start)
	sv.mv_start = off;
      if (off + len > sv.mv_end)
	sv.mv_end = off + len;
    }
  if (sv.tab_load != NONE)
    {
      const uint64_t *l = in->ph[sv.tab_load];
      if (addr - off != l[P_VADDR] - l[P_OFFSET])
	problem ("%s: its old address 0x%" PRIx64 " - offset 0x%" PRIx64 " differs from that of "
		 "PT_LOAD %" PRIu64 ", which held it", what, addr, off, sv.tab_load);
    }
  if (new_addr - new_off != sv.vaddr - sv.off)
    problem ("%s: its new address 0x%" PRIx64 " - offset 0x%" PRIx64 " differs from that of "
	     "the stub's PT_LOAD", what, new_addr, new_off);
  if (new_off < sv.off || !fits (new_off - sv.off, len, sv.size))
    problem ("%s moved to [0x%" PRIx64 ", +0x%" PRIx64 "), not inside the stub's segment [0x%"
	     PRIx64 ", 0x%" PRIx64 ")", what, new_off, len, sv.off, sv.seg_end);
}

/* Whether section I of IN has bytes in the file.  */
static bool
has_contents (const struct image *im, uint64_t i)
{
  const uint64_t *s = im->sh[i];
  return i != 0 && s[SH_TYPE] != SHT_NOBITS && s[SH_TYPE] != SHT_NULL && s[SH_SIZE] != 0;
}

/* Find what moved into the stub's segment where the table grew in place:
   the objects with contents whose offset is not the mapped one; check them
   as a whole (their headers are checked in compare_phdrs and
   compare_shdrs).  Sets sv.table_end.  */
static void
stub_moved (const struct image *in, const struct image *out)
{
  char what[64], b1[32];
  sv.ph_moved = xcalloc (&in->e, in->h.phnum + 1, sizeof *sv.ph_moved);
  sv.sh_moved = xcalloc (&in->e, in->h.shnum + 1, sizeof *sv.sh_moved);
  uint64_t tab_end = in->h.phoff + in->phtab;
  sv.table_end = tab_end;
  sv.tab_load = NONE;
  for (uint64_t i = 0; i < in->h.phnum && sv.tab_load == NONE; i++)
    if (in->ph[i][P_TYPE] == PT_LOAD && in->h.phoff >= in->ph[i][P_OFFSET]
	&& tab_end <= in->ph[i][P_OFFSET] + in->ph[i][P_FILESZ])
      sv.tab_load = i;
  if (sv.table != TABLE_GROWN)
    return;

  bool first = true;
  for (uint64_t i = 0; i < in->h.phnum; i++)
    {
      const uint64_t *a = in->ph[i];
      if (omap[i] == NONE || a[P_TYPE] == PT_LOAD || a[P_TYPE] == PT_PHDR || a[P_FILESZ] == 0)
	continue;
      const uint64_t *b = out->ph[omap[i]];
      if (b[P_OFFSET] == a[P_OFFSET] + shift_at (a[P_OFFSET]))
	continue;
      sv.ph_moved[i] = true;
      sv.nmoved_ph++;
      snprintf (what, sizeof what, "program header %" PRIu64 " (%s)", i,
		phdr_type_name ((uint32_t) a[P_TYPE], b1, sizeof b1));
      note_moved (in, what, a[P_OFFSET], a[P_FILESZ], a[P_VADDR], b[P_OFFSET], b[P_VADDR], &first);
    }
  for (uint64_t i = 1; i < in->h.shnum; i++)
    {
      const uint64_t *a = in->sh[i], *b = out->sh[i];
      if (!has_contents (in, i) || (i == sv.shstrndx && sv.added != 0) || i == sv.symtab
	  || i == sv.strtab || b[SH_OFFSET] == a[SH_OFFSET] + shift_at (a[SH_OFFSET]))
	continue;
      sv.sh_moved[i] = true;
      sv.nmoved_sh++;
      snprintf (what, sizeof what, "section %" PRIu64, i);
      note_moved (in, what, a[SH_OFFSET], a[SH_SIZE], a[SH_ADDR], b[SH_OFFSET], b[SH_ADDR], &first);
    }

  /* The grown table and the cleared old place stay inside the PT_LOAD that
     held the table.  */
  uint64_t grown_end = in->h.phoff + sv.new_tab;
  bool moved = !first;
  sv.table_end = moved && sv.mv_end > grown_end ? sv.mv_end : grown_end;
  if (sv.tab_load == NONE)
    problem ("the program header table grew in place but lies in no PT_LOAD of IN");
  else
    {
      const uint64_t *l = in->ph[sv.tab_load];
      if (sv.table_end > l[P_OFFSET] + l[P_FILESZ])
	problem ("the grown program header table and the moved objects' old place end at 0x%"
		 PRIx64 ", past the file contents of PT_LOAD %" PRIu64 " (0x%" PRIx64 ")",
		 sv.table_end, sv.tab_load, l[P_OFFSET] + l[P_FILESZ]);
      sv.mv_vstart = sv.mv_start + (l[P_VADDR] - l[P_OFFSET]);
    }
  if (moved && sv.mv_start < tab_end)
    problem ("moved bytes start at 0x%" PRIx64 ", inside the old program header table", sv.mv_start);
  /* Without section headers nothing tells what the bytes between two
     segments are: the grown table may take over only the objects that
     follow it directly.  */
  if (in->h.shnum == 0 && (!moved || sv.mv_start != tab_end || sv.mv_end < grown_end))
    problem ("IN has no section headers, but the grown table covers input bytes [0x%" PRIx64
	     ", 0x%" PRIx64 ") that no moved object held", tab_end, grown_end);

  /* Nothing that stays may lie where the table grew or what moved was.  */
  for (uint64_t i = 0; i < in->h.phnum; i++)
    {
      const uint64_t *a = in->ph[i];
      if (!sv.ph_moved[i] && a[P_TYPE] != PT_LOAD && a[P_TYPE] != PT_PHDR
	  && overlaps (a[P_OFFSET], a[P_FILESZ], tab_end, sv.table_end))
	problem ("program header %" PRIu64 " (%s) [0x%" PRIx64 ", +0x%" PRIx64 ") stays where the "
		 "grown table and the moved objects' cleared place are [0x%" PRIx64 ", 0x%" PRIx64
		 ")", i, phdr_type_name ((uint32_t) a[P_TYPE], b1, sizeof b1), a[P_OFFSET],
		 a[P_FILESZ], tab_end, sv.table_end);
    }
  for (uint64_t i = 1; i < in->h.shnum; i++)
    if (has_contents (in, i) && !sv.sh_moved[i]
	&& overlaps (in->sh[i][SH_OFFSET], in->sh[i][SH_SIZE], tab_end, sv.table_end))
      problem ("section %" PRIu64 " [0x%" PRIx64 ", +0x%" PRIx64 ") stays where the grown table "
	       "and the moved objects' cleared place are [0x%" PRIx64 ", 0x%" PRIx64 ")", i,
	       in->sh[i][SH_OFFSET], in->sh[i][SH_SIZE], tab_end, sv.table_end);
  /* (the old section header table may go under the grown table only where
     the output has its own, written anew after the stub's segment) */
  if (in->shtab != 0 && sv.added == 0 && overlaps (in->h.shoff, in->shtab, tab_end, sv.table_end))
    problem ("the section header table lies where the program header table grew");

  /* The old place reads as zeros after the grown table; the moved bytes
     are the old ones.  */
  uint64_t s = shift_at (in->h.phoff);
  expect_zeros (out, grown_end + s, sv.table_end + s,
		"the moved objects' old place after the grown table");
  if (!moved)
    return;
  uint64_t len = sv.mv_end - sv.mv_start, to = sv.mv_start + sv.mv_delta;
  if (!fits (to, len, out->e.size))
    return;			/* (reported by note_moved) */
  for (uint64_t k = 0; k < len; k++)
    if (in->buf[sv.mv_start + k] != out->buf[to + k] && !in_build_id (sv.mv_start + k))
      {
	problem ("moved bytes differ: input byte at 0x%" PRIx64 " (0x%02x) is 0x%02x at 0x%" PRIx64
		 " in the stub's segment", sv.mv_start + k, in->buf[sv.mv_start + k],
		 out->buf[to + k], to + k);
	break;
      }
}

/* A moved program header (A in IN, B in OUT): its type may move, it moved
   as the others did (note_moved), and nothing but its place changed.  */
static void
check_moved_phdr (const char *what, const uint64_t *a, const uint64_t *b)
{
  if (a[P_TYPE] != PT_INTERP && a[P_TYPE] != PT_NOTE && a[P_TYPE] != PT_GNU_PROPERTY)
    problem ("%s moved: only PT_INTERP, PT_NOTE and PT_GNU_PROPERTY may", what);
  if (b[P_PADDR] != a[P_PADDR] + (b[P_VADDR] - a[P_VADDR]))
    problem ("%s: p_paddr 0x%" PRIx64 " -> 0x%" PRIx64 ", not moved with p_vaddr (0x%" PRIx64
	     " -> 0x%" PRIx64 ")", what, a[P_PADDR], b[P_PADDR], a[P_VADDR], b[P_VADDR]);
}

/* A moved section I (A in IN, B in OUT): a hash table, or inside a moved
   PT_INTERP or PT_NOTE; allocated.  */
static void
check_moved_section (const char *what, const struct image *in, const uint64_t *a)
{
  bool ok = a[SH_TYPE] == SHT_HASH || a[SH_TYPE] == SHT_GNU_HASH;
  for (uint64_t i = 0; i < in->h.phnum && !ok; i++)
    {
      const uint64_t *p = in->ph[i];
      ok = sv.ph_moved[i] && (p[P_TYPE] == PT_INTERP || p[P_TYPE] == PT_NOTE)
	   && a[SH_OFFSET] >= p[P_OFFSET] && a[SH_SIZE] <= p[P_FILESZ]
	   && a[SH_OFFSET] - p[P_OFFSET] <= p[P_FILESZ] - a[SH_SIZE];
    }
  if (!ok)
    problem ("%s (type 0x%" PRIx64 ") moved: only hash tables and the sections of a moved "
	     "PT_INTERP or PT_NOTE may", what, a[SH_TYPE]);
  if (!(a[SH_FLAGS] & SHF_ALLOC))
    problem ("%s moved but is not SHF_ALLOC", what);
}

/* The end of OUT after the input's mapped contents (MAPPED_END): zeros, the
   stub's segment, zeros, the new section name table, zeros, the new section
   header table, nothing more; inside the segment: the table copy or the
   moved bytes, zeros, the stub's code.  */
static void
check_stub_layout (const struct image *out, uint64_t mapped_end)
{
  expect_zeros (out, mapped_end, sv.off, "the output between the input's contents and the "
		"stub's segment");
  uint64_t pos = sv.seg_end;
  if (sv.added != 0 && sv.shstrndx != NONE)
    {
      const uint64_t *names = out->sh[sv.shstrndx];
      if (names[SH_OFFSET] < pos)
	problem ("the new section name table at 0x%" PRIx64 " is not after the stub's segment "
		 "(which ends at 0x%" PRIx64 ")", names[SH_OFFSET], pos);
      else
	{
	  expect_zeros (out, pos, names[SH_OFFSET], "the output before the new section name table");
	  pos = names[SH_OFFSET] + names[SH_SIZE];
	}
      uint64_t grown[2] = { sv.strtab, sv.symtab };
      for (int g = 0; g < 2 && sv.symtab != NONE; g++)
	{
	  const char *what = g == 0 ? "the grown string table" : "the grown symbol table";
	  const uint64_t *t = grown[g] != NONE ? out->sh[grown[g]] : NULL;
	  if (t == NULL)
	    continue;
	  if (t[SH_OFFSET] < pos)
	    problem ("%s at 0x%" PRIx64 " is not after what comes before it (which ends at 0x%"
		     PRIx64 ")", what, t[SH_OFFSET], pos);
	  else
	    {
	      expect_zeros (out, pos, t[SH_OFFSET], what);
	      pos = t[SH_OFFSET] + t[SH_SIZE];
	    }
	}
      if (sv.dd_sec != NONE)
	{
	  const uint64_t *dd = out->sh[sv.dd_sec];
	  if (dd[SH_OFFSET] < pos)
	    problem ("%s at 0x%" PRIx64 " is not after the new section name table (which ends at "
		     "0x%" PRIx64 ")", STUB_DEBUGDATA_SECTION, dd[SH_OFFSET], pos);
	  else
	    {
	      expect_zeros (out, pos, dd[SH_OFFSET], "the output before " STUB_DEBUGDATA_SECTION);
	      pos = dd[SH_OFFSET] + dd[SH_SIZE];
	    }
	}
      if (out->h.shoff < pos)
	problem ("the new section header table at 0x%" PRIx64 " is not after the stub's segment "
		 "and the new section name table (which end at 0x%" PRIx64 ")", out->h.shoff, pos);
      else
	{
	  expect_zeros (out, pos, out->h.shoff, "the output before the new section header table");
	  pos = out->h.shoff + out->shtab;
	}
    }
  if (out->e.size != pos)
    problem ("the output is 0x%" PRIx64 " bytes long, but its last part ends at 0x%" PRIx64,
	     out->e.size, pos);

  sv.head_end = sv.off;
  if (sv.table == TABLE_MOVED)
    {
      if (out->h.phoff != sv.off)
	problem ("the moved program header table at 0x%" PRIx64 " does not start the stub's "
		 "segment (0x%" PRIx64 ")", out->h.phoff, sv.off);
      sv.head_end = out->h.phoff + sv.new_tab;
    }
  else if (sv.table == TABLE_GROWN && sv.nmoved_ph + sv.nmoved_sh != 0)
    {
      expect_zeros (out, sv.off, sv.mv_start + sv.mv_delta, "the stub's segment before the "
		    "moved objects");
      sv.head_end = sv.mv_end + sv.mv_delta;
    }
  sv.code_off = sv.code_sec != NONE ? out->sh[sv.code_sec][SH_OFFSET] : sv.head_end;
  if (sv.code_off < sv.head_end || sv.head_end > sv.seg_end)
    problem ("the stub's code at 0x%" PRIx64 " overlaps the %s before it, which ends at 0x%"
	     PRIx64, sv.code_off, sv.table == TABLE_MOVED ? "program header table" : "moved objects",
	     sv.head_end);
  else
    expect_zeros (out, sv.head_end, sv.code_off, "the stub's segment before the stub's code");
}

/* The dynamic array of IN's PT_DYNAMIC and its image in OUT, entry by entry
   (left out of the byte comparison): unchanged but for a DT_INIT hook and
   hash tables that moved.  Sets sv.hook for a DT_INIT hook.  */
static void
stub_dynamic (const struct image *in, const struct image *out)
{
  if (sv.dyn == NONE)
    return;
  const uint64_t *a = in->ph[sv.dyn], *b = out->ph[omap[sv.dyn]];
  uint64_t ent = 2 * word (&in->e), n = a[P_FILESZ] / ent, rest = a[P_FILESZ] % ent;
  uint64_t ao = a[P_OFFSET], bo = b[P_OFFSET];
  if (!fits (ao, a[P_FILESZ], in->e.size) || !fits (bo, a[P_FILESZ], out->e.size))
    {
      problem ("PT_DYNAMIC (program header %" PRIu64 ") extends past the end of IN or OUT", sv.dyn);
      return;
    }
  if (rest != 0 && memcmp (in->buf + ao + n * ent, out->buf + bo + n * ent, (size_t) rest) != 0)
    problem ("PT_DYNAMIC: the bytes after the last whole entry differ");

  uint64_t first_null = NONE, first_init = NONE, hooks = 0;
  for (uint64_t k = 0; k < n && first_null == NONE; k++)
    {
      uint64_t tag, val;
      dyn_entry (in, ao, k, &tag, &val);
      if (tag == DT_NULL)
	first_null = k;
      else if (tag == DT_INIT && first_init == NONE)
	first_init = k;
    }
  uint64_t vend = sv.mv_end - sv.mv_start;
  bool moved = sv.nmoved_ph + sv.nmoved_sh != 0;
  for (uint64_t k = 0; k < n; k++)
    {
      uint64_t ta, va, tb, vb;
      if (in_header (ao + k * ent, ent))
	continue;		/* (a broken PT_DYNAMIC) */
      dyn_entry (in, ao, k, &ta, &va);
      dyn_entry (out, bo, k, &tb, &vb);
      bool into_moved = moved && va - sv.mv_vstart < vend;
      if (ta == tb && va == vb)
	{
	  if (into_moved && pointer_tag (ta))
	    problem ("dynamic entry %" PRIu64 " (tag 0x%" PRIx64 ") still points to 0x%" PRIx64
		     ", into the old place of moved bytes", k, ta, va);
	  continue;
	}
      if (ta == DT_INIT && tb == DT_INIT)
	{
	  hooks++;
	  sv.hook = HOOK_INIT_CHAIN;
	  sv.hook_addr = vb;
	  sv.old_target = va;
	  if (k != first_init)
	    problem ("dynamic entry %" PRIu64 ": a DT_INIT changed that the loader does not use "
		     "(it uses the first one before DT_NULL)", k);
	}
      else if (ta == DT_NULL && tb == DT_INIT)
	{
	  hooks++;
	  sv.hook = HOOK_INIT_NEW;
	  sv.hook_addr = vb;
	  sv.old_target = 0;
	  bool ended = false;
	  for (uint64_t q = k + 1; q < n && !ended; q++)
	    {
	      uint64_t t, v;
	      dyn_entry (out, bo, q, &t, &v);
	      ended = t == DT_NULL;
	    }
	  if (first_init != NONE)
	    problem ("dynamic entry %" PRIu64 ": DT_NULL became DT_INIT although IN has a DT_INIT "
		     "(entry %" PRIu64 ")", k, first_init);
	  else if (k != first_null)
	    problem ("dynamic entry %" PRIu64 ": DT_NULL became DT_INIT, but the array ends "
		     "before it (entry %" PRIu64 ")", k, first_null);
	  else if (!ended)
	    problem ("dynamic entry %" PRIu64 ": DT_NULL became DT_INIT and no DT_NULL follows "
		     "to end the array", k);
	}
      else if (ta == tb && (ta == DT_HASH || ta == DT_GNU_HASH) && into_moved)
	{
	  sv.nhash++;
	  if (vb != va + sv.mv_vdelta)
	    problem ("dynamic entry %" PRIu64 " (%s) 0x%" PRIx64 " -> 0x%" PRIx64 ", but the hash "
		     "table it points to moved to 0x%" PRIx64, k, ta == DT_HASH ? "DT_HASH"
		     : "DT_GNU_HASH", va, vb, va + sv.mv_vdelta);
	}
      else
	problem ("dynamic entry %" PRIu64 " changed: tag 0x%" PRIx64 " value 0x%" PRIx64
		 " -> tag 0x%" PRIx64 " value 0x%" PRIx64, k, ta, va, tb, vb);
    }
  if (hooks > 1)
    problem ("%" PRIu64 " dynamic entries became the stub's DT_INIT", hooks);
}

/* The input offset of the LEN bytes at address ADDR of IM, in a PT_LOAD's
   file contents; NONE if they are not in one.  */
static uint64_t
addr_offset (const struct image *im, uint64_t addr, uint64_t len)
{
  for (uint64_t i = 0; i < im->h.phnum; i++)
    {
      const uint64_t *p = im->ph[i];
      if (p[P_TYPE] != PT_LOAD || addr < p[P_VADDR])
	continue;
      uint64_t at = addr - p[P_VADDR];
      if (at <= p[P_FILESZ] && len <= p[P_FILESZ] - at && fits (p[P_OFFSET] + at, len, im->e.size))
	return p[P_OFFSET] + at;
    }
  return NONE;
}

/* Where the relocation tables of IN's dynamic section are: the values of
   some tags, the last of each before DT_NULL, with how often each came.  */
enum { T_INIT_ARRAY, T_INIT_ARRAYSZ, T_RELA, T_RELASZ, T_RELAENT, T_JMPREL, T_PLTRELSZ,
       T_PLTREL, T_RELR, T_RELRSZ, T_COUNT };
static const uint64_t tag_of[T_COUNT] = {
  DT_INIT_ARRAY, DT_INIT_ARRAYSZ, DT_RELA, DT_RELASZ, DT_RELAENT, DT_JMPREL, DT_PLTRELSZ,
  DT_PLTREL, DT_RELR, DT_RELRSZ,
};

/* Count the relocations of SLOT in IN's RELA table of SIZE bytes at address
   ADDR into *HITS, the input offset of the last one's r_addend into *AT
   and its r_info into *INFO.  */
static void
scan_rela (const struct image *in, uint64_t addr, uint64_t size, uint64_t slot, uint64_t *hits,
	   uint64_t *at, uint64_t *info)
{
  unsigned w = word (&in->e);
  uint64_t off = addr_offset (in, addr, size);
  if (off == NONE || size % (3 * w) != 0)
    {
      problem ("the RELA table at 0x%" PRIx64 " (0x%" PRIx64 " bytes) is not whole entries in "
	       "a PT_LOAD's file contents", addr, size);
      return;
    }
  for (uint64_t k = 0; k < size / (3 * w); k++)
    {
      const unsigned char *e = in->buf + off + k * 3 * w;
      if (get (&in->e, e, w) != slot || (*hits != 0 && *at == off + k * 3 * w + 2 * w))
	continue;
      (*hits)++;
      *at = off + k * 3 * w + 2 * w;
      *info = get (&in->e, e + w, w);
    }
}

/* riscv64 shared objects: find in IN the word deciding the first entry of
   DT_INIT_ARRAY (see the comment before bytemap()) into sv.iw_*, and leave
   it out of the byte comparison.  */
static void
find_init_word (const struct image *in)
{
  if (in->h.machine != EM_RISCV || sv.program || sv.dyn == NONE)
    return;
  const uint64_t *d = in->ph[sv.dyn];
  unsigned w = word (&in->e);
  if (!fits (d[P_OFFSET], d[P_FILESZ], in->e.size))
    return;
  uint64_t val[T_COUNT] = { 0 }, n[T_COUNT] = { 0 };
  for (uint64_t k = 0; k < d[P_FILESZ] / (2 * w); k++)
    {
      uint64_t tag, v;
      dyn_entry (in, d[P_OFFSET], k, &tag, &v);
      if (tag == DT_NULL)
	break;
      for (int t = 0; t < T_COUNT; t++)
	if (tag == tag_of[t])
	  {
	    val[t] = v;
	    n[t]++;
	  }
    }
  if (n[T_INIT_ARRAY] != 1 || n[T_INIT_ARRAYSZ] != 1 || val[T_INIT_ARRAYSZ] < w)
    return;
  uint64_t slot = val[T_INIT_ARRAY], rela = 0, relr = 0, at = 0, info = 0;
  if (n[T_RELA] == 1 && n[T_RELASZ] == 1 && (n[T_RELAENT] == 0 || val[T_RELAENT] == 3 * w))
    scan_rela (in, val[T_RELA], val[T_RELASZ], slot, &rela, &at, &info);
  if (n[T_JMPREL] == 1 && n[T_PLTRELSZ] == 1 && val[T_PLTREL] == DT_RELA)
    scan_rela (in, val[T_JMPREL], val[T_PLTRELSZ], slot, &rela, &at, &info);
  if (n[T_RELR] == 1 && n[T_RELRSZ] == 1)
    {
      uint64_t off = addr_offset (in, val[T_RELR], val[T_RELRSZ]), next = 0;
      for (uint64_t k = 0; off != NONE && k < val[T_RELRSZ] / w; k++)
	{
	  uint64_t e = get (&in->e, in->buf + off + k * w, w);
	  if ((e & 1) == 0)
	    {
	      relr += e == slot;
	      next = e + w;
	      continue;
	    }
	  for (unsigned bit = 1; bit < 8 * w; bit++)
	    relr += ((e >> bit) & 1) != 0 && next + (bit - 1) * w == slot;
	  next += (8 * w - 1) * w;
	}
    }
  uint64_t type = w == 8 ? info & 0xffffffff : info & 0xff;
  uint64_t sym = w == 8 ? info >> 32 : info >> 8;
  if (rela == 1 && relr == 0 && type == R_RISCV_RELATIVE && sym == 0)
    sv.iw_off = at;
  else if (rela == 0 && relr == 1)
    {
      sv.iw_off = addr_offset (in, slot, w);
      sv.iw_relr = true;
    }
  else
    return;
  if (sv.iw_off == NONE)
    return;
  sv.iw_found = true;
  sv.iw_old = get (&in->e, in->buf + sv.iw_off, w);
  exclude (sv.iw_off, sv.iw_off + w);
}

/* The word deciding DT_INIT_ARRAY[0] (find_init_word) in OUT: if it
   changed, that is the hook.  */
static void
stub_init_array (const struct image *in, const struct image *out)
{
  if (!sv.iw_found)
    return;
  unsigned w = word (&in->e);
  uint64_t to = sv.iw_off + shift_at (sv.iw_off);
  if (!fits (to, w, out->e.size))
    {
      problem ("the word deciding DT_INIT_ARRAY[0] maps to 0x%" PRIx64 ", past the end of OUT", to);
      return;
    }
  uint64_t now = get (&out->e, out->buf + to, w);
  if (now == sv.iw_old)
    return;
  if (sv.hook != HOOK_NONE)
    problem ("both DT_INIT and DT_INIT_ARRAY[0] changed");
  sv.hook = HOOK_INIT_ARRAY;
  sv.hook_addr = now;
  sv.old_target = sv.iw_old;
}

/* The hook and the stub's parameters: e_entry of a program, or DT_INIT of a
   shared object (stub_dynamic), points into the stub's code; the target
   in the parameters leads from there to the old e_entry or DT_INIT (0 for
   none); the text ranges lie in R+X PT_LOADs at the file offsets given.  */
static void
check_hook (const struct image *in, const struct image *out)
{
  if (in->h.entry != out->h.entry)
    {
      if (sv.hook != HOOK_NONE)
	problem ("both e_entry and DT_INIT or DT_INIT_ARRAY[0] changed");
      sv.hook = HOOK_ENTRY;
      sv.hook_addr = out->h.entry;
      sv.old_target = in->h.entry;
    }
  if (sv.hook == HOOK_NONE)
    {
      problem ("neither e_entry nor DT_INIT nor DT_INIT_ARRAY[0] changed: the stub is not hooked");
      return;
    }
  const char *name = sv.hook == HOOK_ENTRY ? "e_entry"
		     : sv.hook == HOOK_INIT_ARRAY ? "DT_INIT_ARRAY[0]" : "DT_INIT";
  /* riscv64's ld.so calls no DT_INIT.  */
  const char *library = in->h.machine == EM_RISCV ? "DT_INIT_ARRAY[0]" : "DT_INIT";
  if (sv.program && sv.hook != HOOK_ENTRY)
    problem ("IN is a program, but the stub is hooked through %s, not e_entry", name);
  if (!sv.program && strcmp (name, library) != 0)
    problem ("IN is a shared object, but the stub is hooked through %s, not %s", name, library);
  uint64_t code = sv.vaddr + (sv.code_off - sv.off), end = sv.vaddr + sv.size;
  if (sv.hook_addr < code || sv.hook_addr >= end)
    problem ("%s 0x%" PRIx64 " is not in the stub's code [0x%" PRIx64 ", 0x%" PRIx64 ")", name,
	     sv.hook_addr, code, end);

  /* The parameters: found by their magic, once in the code.  */
  uint64_t at = NONE, count = 0;
  for (uint64_t x = sv.code_off; x < sv.seg_end && sv.seg_end - x >= 8 && sv.seg_end <= out->e.size; x++)
    if (get (&out->e, out->buf + x, 8) == STUB_MAGIC)
      {
	if (at == NONE)
	  at = x;
	count++;
      }
  if (count != 1)
    {
      problem ("the stub's magic 0x%016" PRIx64 " occurs %" PRIu64 " times in its code [0x%" PRIx64
	       ", 0x%" PRIx64 "), not once", (uint64_t) STUB_MAGIC, count, sv.code_off, sv.seg_end);
      return;
    }
  if (at - sv.code_off < 8 || sv.seg_end - at < 8 * (STUB_PARAM_WORDS - 1))
    {
      problem ("the stub's parameters around its magic at 0x%" PRIx64 " do not fit in its code "
	       "[0x%" PRIx64 ", 0x%" PRIx64 ")", at, sv.code_off, sv.seg_end);
      return;
    }
  const unsigned char *p = out->buf + at;
  uint64_t target = get (&out->e, p - 8, 8);
  uint64_t want = sv.old_target == 0 ? 0 : sv.old_target - sv.hook_addr;
  if (target != want && sv.old_target == 0)
    problem ("the stub's target 0x%" PRIx64 " (at 0x%" PRIx64 ") is not 0, but there was no "
	     "DT_INIT to continue to", target, at - 8);
  else if (target != want)
    problem ("the stub's target 0x%" PRIx64 " (at 0x%" PRIx64 ") leads from %s 0x%" PRIx64
	     " to 0x%" PRIx64 ", not to the old %s 0x%" PRIx64, target, at - 8, name,
	     sv.hook_addr, sv.hook_addr + target, name, sv.old_target);
  uint64_t flags = get (&out->e, p + 8, 8), pmd = get (&out->e, p + 16, 8);
  sv.nranges = get (&out->e, p + 24, 8);
  if ((flags & STUB_FLAG_EXE) != (sv.program ? STUB_FLAG_EXE : 0))
    problem ("the stub's flags 0x%" PRIx64 " %s the bit that makes it find a program's file "
	     "through /proc/self/exe", flags, sv.program ? "lack" : "have");
  if (!power_of_2 (pmd))
    problem ("the stub's PMD size 0x%" PRIx64 " is not a power of two", pmd);
  if (sv.nranges == 0 || sv.nranges > STUB_RANGES)
    {
      problem ("the stub has %" PRIu64 " text ranges, expected 1 to %d", sv.nranges, STUB_RANGES);
      return;
    }
  for (uint64_t k = 0; k < sv.nranges && power_of_2 (pmd); k++)
    {
      const unsigned char *r = p + 32 + 24 * k;
      uint64_t start = sv.hook_addr + get (&out->e, r, 8), len = get (&out->e, r + 8, 8);
      uint64_t off = get (&out->e, r + 16, 8);
      if (start % pmd != 0 || len == 0 || len % pmd != 0)
	{
	  problem ("the stub's text range %" PRIu64 " [0x%" PRIx64 ", +0x%" PRIx64 ") is not whole "
		   "PMD chunks (0x%" PRIx64 ")", k, start, len, pmd);
	  continue;
	}
      uint64_t j = 0;
      for (; j < out->h.phnum; j++)
	{
	  const uint64_t *q = out->ph[j];
	  if (j != sv.load && q[P_TYPE] == PT_LOAD && (q[P_FLAGS] & (PF_R | PF_W | PF_X)) == (PF_R | PF_X)
	      && start >= q[P_VADDR] && fits (start - q[P_VADDR], len, q[P_FILESZ]))
	    break;
	}
      if (j == out->h.phnum)
	problem ("the stub's text range %" PRIu64 " [0x%" PRIx64 ", +0x%" PRIx64 ") lies in no R+X "
		 "PT_LOAD's file contents", k, start, len);
      else if (off != out->ph[j][P_OFFSET] + (start - out->ph[j][P_VADDR]) || off % pmd != 0)
	problem ("the stub's text range %" PRIu64 " at 0x%" PRIx64 ": file offset 0x%" PRIx64
		 ", but PT_LOAD %" PRIu64 " puts it at 0x%" PRIx64 " (and it must be PMD-aligned)",
		 k, start, off, j, out->ph[j][P_OFFSET] + (start - out->ph[j][P_VADDR]));
    }
}

/* One symbol's fields.  */
/* Where sections moved: the symbols of SHT_SYMTAB (left out of the byte
   comparison) field by field, st_value following the section a symbol is
   defined in; no symbol of SHT_DYNSYM (compared byte for byte) may be
   defined in a moved section.  */
static void
stub_symbols (const struct image *in, const struct image *out)
{
  if (sv.nmoved_sh == 0)
    return;
  bool is64 = in->e.elfclass == ELFCLASS64;
  unsigned need = is64 ? 24 : 16;
  for (uint64_t t = 1; t < in->h.shnum; t++)
    {
      const uint64_t *a = in->sh[t], *b = out->sh[t];
      if ((a[SH_TYPE] != SHT_SYMTAB && a[SH_TYPE] != SHT_DYNSYM) || a[SH_SIZE] == 0)
	continue;
      uint64_t ent = need;	/* whatever sh_entsize says, as libelf reads it */
      if (!fits (a[SH_OFFSET], a[SH_SIZE], in->e.size) || !fits (b[SH_OFFSET], a[SH_SIZE], out->e.size))
	{
	  problem ("symbol table (section %" PRIu64 ") extends past the end of IN or OUT", t);
	  continue;
	}
      bool dynamic = a[SH_TYPE] == SHT_DYNSYM;
      uint64_t xs = NONE;	/* its SHT_SYMTAB_SHNDX */
      for (uint64_t k = 1; k < in->h.shnum; k++)
	if (in->sh[k][SH_TYPE] == SHT_SYMTAB_SHNDX && in->sh[k][SH_LINK] == t
	    && fits (in->sh[k][SH_OFFSET], in->sh[k][SH_SIZE], in->e.size))
	  xs = k;
      uint64_t n = a[SH_SIZE] / ent;
      for (uint64_t k = 0; k < n; k++)
	{
	  struct sym x, y;
	  if (in_header (a[SH_OFFSET] + k * ent, ent))
	    continue;		/* (a broken symbol table) */
	  read_sym (in, a[SH_OFFSET] + k * ent, &x);
	  read_sym (out, b[SH_OFFSET] + k * ent, &y);
	  uint64_t sec = x.shndx;
	  if (sec == SHN_XINDEX && xs != NONE && 4 * (k + 1) <= in->sh[xs][SH_SIZE])
	    sec = get (&in->e, in->buf + in->sh[xs][SH_OFFSET] + 4 * k, 4);
	  else if (sec >= SHN_LORESERVE)
	    sec = 0;
	  bool moved = sec != 0 && sec < in->h.shnum && sv.sh_moved[sec];
	  if (moved && dynamic)
	    problem ("dynamic symbol %" PRIu64 " (section %" PRIu64 ") is defined in moved section %"
		     PRIu64 ": other objects find it at its old address 0x%" PRIx64, k, t, sec,
		     x.value);
	  if (dynamic)
	    continue;
	  uint64_t want = x.value;
	  if (moved)
	    {
	      want += out->sh[sec][SH_ADDR] - in->sh[sec][SH_ADDR];
	      if (!is64)
		want &= 0xffffffff;
	      sv.nsyms++;
	    }
	  if (y.value != want)
	    problem ("symbol %" PRIu64 " of section %" PRIu64 ": st_value 0x%" PRIx64 " -> 0x%" PRIx64
		     ", expected 0x%" PRIx64 "%s", k, t, x.value, y.value, want,
		     moved ? " (its section moved)" : "");
	  if (x.name != y.name || x.size != y.size || x.info != y.info || x.other != y.other
	      || x.shndx != (y.shndx < SHN_LORESERVE ? canon_index (out, y.shndx) : y.shndx))
	    problem ("symbol %" PRIu64 " of section %" PRIu64 " changed other than in st_value", k, t);
	}
      uint64_t rest = a[SH_SIZE] - n * ent;
      if (!dynamic && rest != 0
	  && memcmp (in->buf + a[SH_OFFSET] + n * ent, out->buf + b[SH_OFFSET] + n * ent,
		     (size_t) rest) != 0)
	problem ("symbol table (section %" PRIu64 "): the bytes after the last whole entry differ", t);
    }
}

/* With the stub, a count that IN escapes into section 0 (e_phnum PN_XNUM,
   the count in sh_info; e_shnum 0, the count in sh_size) changes: OUT must
   escape the new count the same way, or hold it in the ELF header with 0 in
   section 0 (gABI).  NAME is the ELF header field, B its value in OUT,
   COUNT the new count and FIELD its field in section 0.  */
static void
check_escaped_count (const struct image *out, const char *name, uint64_t b, uint64_t escape,
		     uint64_t count, int field)
{
  uint64_t in0 = out->h.shnum != 0 ? out->sh[0][field] : 0;
  if (b == escape && in0 != count)
    problem ("%s stays escaped (0x%" PRIx64 "), but section 0's %s is 0x%" PRIx64
	     ", not the new count 0x%" PRIx64, name, b, elf_shdr_fields[field].name, in0, count);
  else if (b != escape && in0 != 0)
    problem ("%s was escaped into section 0 and is now the count 0x%" PRIx64 ", but section "
	     "0's %s still says 0x%" PRIx64 " (gABI: 0 when %s holds the count)", name, b,
	     elf_shdr_fields[field].name, in0, name);
}

static void
compare_ehdr (const struct image *in, const struct image *out)
{
  if (memcmp (in->buf, out->buf, EI_NIDENT) != 0)
    problem ("e_ident differs");
  for (int f = 0; f < E_NFIELDS; f++)
    {
      uint64_t a = in->ehdr[f], b = out->ehdr[f];
      if (f == E_PHOFF && sv.on && sv.table == TABLE_MOVED)
	continue;		/* check_stub_layout: the start of the stub's segment */
      else if (f == E_PHOFF)
	check_offset ("e_phoff", a, b, in->phtab == 0);
      else if (f == E_SHOFF && sv.on && sv.added != 0)
	continue;		/* check_stub_layout: after the stub's segment */
      else if (f == E_SHOFF && a != 0)
	check_offset ("e_shoff", a, b, false);
      else if (f == E_ENTRY && sv.on)
	continue;		/* check_hook */
      else if (f == E_PHNUM && sv.on && a == PN_XNUM)
	check_escaped_count (out, "e_phnum", b, PN_XNUM, out->h.phnum, SH_INFO);
      else if (f == E_PHNUM && sv.on)
	expect_value ("ELF header", "e_phnum", b, a + (sv.table != TABLE_SLOT));
      else if (f == E_SHNUM && sv.on && a == 0 && in->h.shnum != 0 && sv.added != 0)
	check_escaped_count (out, "e_shnum", b, 0, in->h.shnum + sv.added, SH_SIZE);
      else if (f == E_SHNUM && sv.on && a != 0)
	expect_value ("ELF header", "e_shnum", b, a + sv.added);
      else if (a != b)
	problem ("ELF header field %s changed: 0x%" PRIx64 " -> 0x%" PRIx64,
		 elf_ehdr_fields[f].name, a, b);
    }
}

static void
compare_phdrs (const struct image *in, const struct image *out)
{
  char what[80], b1[32];
  for (uint64_t i = 0; i < in->h.phnum; i++)
    {
      uint64_t j = omap[i];
      if (j == NONE)
	continue;		/* the slot the stub's PT_LOAD took over */
      const uint64_t *a = in->ph[i], *b = out->ph[j];
      if (j == i)
	snprintf (what, sizeof what, "program header %" PRIu64 " (%s)", i,
		  phdr_type_name ((uint32_t) a[P_TYPE], b1, sizeof b1));
      else
	snprintf (what, sizeof what, "program header %" PRIu64 " (%s, %" PRIu64 " in the output)",
		  i, phdr_type_name ((uint32_t) a[P_TYPE], b1, sizeof b1), j);
      /* PT_PHDR of a table one entry longer; moved objects.  */
      bool table = sv.on && a[P_TYPE] == PT_PHDR && sv.table != TABLE_SLOT;
      bool table_moved = table && sv.table == TABLE_MOVED;
      bool moved = sv.on && sv.ph_moved[i];
      if (moved)
	check_moved_phdr (what, a, b);
      for (int f = 0; f < P_NFIELDS; f++)
	{
	  if (moved && (f == P_OFFSET || f == P_VADDR || f == P_PADDR))
	    continue;		/* stub_moved, check_moved_phdr */
	  if (table && (f == P_FILESZ || f == P_MEMSZ))
	    expect_value (what, elf_phdr_fields[f].name, b[f], sv.new_tab);
	  else if (table_moved && f == P_OFFSET)
	    expect_value (what, "p_offset", b[f], sv.off);
	  else if (table_moved && f == P_VADDR)
	    expect_value (what, "p_vaddr", b[f], sv.vaddr);
	  else if (table_moved && f == P_PADDR)
	    {
	      if (b[f] != sv.vaddr && b[f] - sv.vaddr != a[f] - a[P_VADDR])
		problem ("%s: p_paddr 0x%" PRIx64 " -> 0x%" PRIx64 ", neither p_vaddr nor moved "
			 "with it", what, a[f], b[f]);
	    }
	  else if (f == P_OFFSET)
	    check_offset (what, a[f], b[f], a[P_FILESZ] == 0);
	  else if (f == P_ALIGN)
	    {
	      if (a[f] == b[f])
		continue;
	      if (a[P_TYPE] != PT_LOAD)
		problem ("%s: p_align of a non-LOAD segment changed: 0x%" PRIx64 " -> 0x%" PRIx64,
			 what, a[f], b[f]);
	      else if (!power_of_2 (b[f]) || b[f] < a[f])
		problem ("%s: p_align 0x%" PRIx64 " -> 0x%" PRIx64 ", not raised to a power of two",
			 what, a[f], b[f]);
	      else if ((b[P_VADDR] - b[P_OFFSET]) % b[f] != 0)
		problem ("%s: p_align raised to 0x%" PRIx64 " but p_vaddr 0x%" PRIx64
			 " - p_offset 0x%" PRIx64 " is not a multiple of it",
			 what, b[f], b[P_VADDR], b[P_OFFSET]);
	    }
	  else if (a[f] != b[f])
	    problem ("%s: %s changed: 0x%" PRIx64 " -> 0x%" PRIx64, what,
		     elf_phdr_fields[f].name, a[f], b[f]);
	}
      compare_entry_tail (what, in->buf + in->h.phoff + i * in->h.phentsize,
			  out->buf + out->h.phoff + j * out->h.phentsize,
			  in->phsize, in->h.phentsize);
      if (a[P_FILESZ] != 0 && !moved)
	check_not_split (what, a[P_OFFSET], a[P_FILESZ]);
    }
}

static void
compare_shdrs (const struct image *in, const struct image *out)
{
  char what[64];
  for (uint64_t i = 0; i < in->h.shnum; i++)
    {
      const uint64_t *a = in->sh[i], *b = out->sh[i];
      snprintf (what, sizeof what, "section header %" PRIu64, i);
      bool contents = has_contents (in, i);
      /* The section name table copied after the stub's segment; moved
	 sections.  */
      bool names = sv.on && ((sv.added != 0 && i == sv.shstrndx) || i == sv.symtab
			     || i == sv.strtab);
      bool moved = sv.on && sv.sh_moved[i];
      if (moved)
	check_moved_section (what, in, a);
      for (int f = 0; f < SH_NFIELDS; f++)
	{
	  if (names && (f == SH_OFFSET || f == SH_SIZE))
	    continue;		/* check_stub_layout, check_names */
	  if (moved && (f == SH_OFFSET || f == SH_ADDR))
	    continue;		/* stub_moved */
	  if (sv.on && i == 0 && ((f == SH_INFO && in->ehdr[E_PHNUM] == PN_XNUM)
				  || (f == SH_SIZE && in->ehdr[E_SHNUM] == 0 && sv.added != 0)))
	    continue;		/* an escaped count: compare_ehdr */
	  if (f == SH_OFFSET && i != 0)
	    check_offset (what, a[f], b[f], !contents);
	  else if (a[f] != b[f])
	    problem ("%s: %s changed: 0x%" PRIx64 " -> 0x%" PRIx64, what,
		     elf_shdr_fields[f].name, a[f], b[f]);
	}
      compare_entry_tail (what, in->buf + in->h.shoff + i * in->h.shentsize,
			  out->buf + out->h.shoff
			  + (sv.sh_pos != NULL ? sv.sh_pos[i] : i) * out->h.shentsize,
			  in->shsize, in->h.shentsize);
      if (contents && !moved)
	check_not_split (what, a[SH_OFFSET], a[SH_SIZE]);
    }
}

/* The first program header of type TYPE of IM, or NULL.  */
static const uint64_t *
first_of_type (const struct image *im, uint64_t type)
{
  for (uint64_t i = 0; i < im->h.phnum; i++)
    if (im->ph[i][P_TYPE] == type)
      return im->ph[i];
  return NULL;
}

static uint64_t
address (const struct image *im, uint64_t a)
{
  return im->e.elfclass == ELFCLASS32 ? a & 0xffffffff : a;
}

/* Whether DF_1_PIE is set in IM's dynamic section.  */
static bool
flags_1_pie (const struct image *im)
{
  const uint64_t *dyn = first_of_type (im, PT_DYNAMIC);
  unsigned w = word (&im->e);
  if (dyn == NULL || dyn[P_OFFSET] > im->e.size || dyn[P_FILESZ] > im->e.size - dyn[P_OFFSET])
    return false;
  for (uint64_t off = 0; off + 2 * w <= dyn[P_FILESZ]; off += 2 * w)
    {
      const unsigned char *d = im->buf + dyn[P_OFFSET] + off;
      uint64_t tag = get (&im->e, d, w);
      if (tag == DT_NULL)
	break;
      if (tag == DT_FLAGS_1 && (get (&im->e, d + w, w) & DF_1_PIE) != 0)
	return true;
    }
  return false;
}

/* Whether the kernel may run IM as a program, and so compute AT_PHDR for
   it: ET_EXEC; ET_DYN with PT_INTERP (a PIE, or a library that also runs,
   like libc.so.6), with DF_1_PIE, or with an entry point (a static PIE;
   the dynamic linker, which moreover finds its own program headers at
   __ehdr_start + e_phoff).  Anything else is a shared object that only the
   dynamic loader maps.  */
static bool
kernel_runs (const struct image *im)
{
  return im->h.type == ET_EXEC || first_of_type (im, PT_INTERP) != NULL
	 || im->h.entry != 0 || flags_1_pie (im);
}

/* The PT_LOAD (index in *INDEX, first in table order) whose file contents
   hold the whole program header table of IM, and the address it maps the
   table at (*AT).  */
static bool
table_load (const struct image *im, uint64_t *index, uint64_t *at)
{
  for (uint64_t i = 0; i < im->h.phnum; i++)
    {
      const uint64_t *p = im->ph[i];
      if (p[P_TYPE] == PT_LOAD && p[P_OFFSET] <= im->h.phoff
	  && im->phtab <= p[P_FILESZ] && im->h.phoff - p[P_OFFSET] <= p[P_FILESZ] - im->phtab)
	{
	  *index = i;
	  *at = address (im, p[P_VADDR] + (im->h.phoff - p[P_OFFSET]));
	  return true;
	}
    }
  return false;
}

/* The AT_PHDR that kernels before 5.18 pass: first PT_LOAD's p_vaddr -
   p_offset + e_phoff; it must be PT_PHDR's p_vaddr.  Return NULL when the
   rule holds (or does not apply), else a description.  */
static const char *
at_phdr_broken (const struct image *im, char *buf, size_t len)
{
  const uint64_t *load = first_of_type (im, PT_LOAD), *phdr = first_of_type (im, PT_PHDR);
  if (load == NULL || phdr == NULL)
    return NULL;
  uint64_t at_phdr = address (im, load[P_VADDR] - load[P_OFFSET] + im->h.phoff);
  if (at_phdr == phdr[P_VADDR])
    return NULL;
  snprintf (buf, len, "first PT_LOAD p_vaddr 0x%" PRIx64 " - p_offset 0x%" PRIx64
	    " + e_phoff 0x%" PRIx64 " = 0x%" PRIx64 ", but PT_PHDR p_vaddr is 0x%" PRIx64,
	    load[P_VADDR], load[P_OFFSET], im->h.phoff, at_phdr, phdr[P_VADDR]);
  return buf;
}

/* The AT_PHDR of kernels since 5.18 (fs/binfmt_elf.c, load_elf_binary):
   e_phoff - p_offset + p_vaddr of the last PT_LOAD whose file contents
   contain e_phoff, 0 without one; it must be PT_PHDR's p_vaddr.  Return NULL
   when the rule holds (or there is no PT_PHDR), else a description.  */
static const char *
new_at_phdr_broken (const struct image *im, char *buf, size_t len)
{
  const uint64_t *phdr = first_of_type (im, PT_PHDR);
  if (phdr == NULL)
    return NULL;
  uint64_t at_phdr = 0, index = 0;
  bool found = false;
  for (uint64_t i = 0; i < im->h.phnum; i++)
    {
      const uint64_t *p = im->ph[i];
      if (p[P_TYPE] == PT_LOAD && p[P_OFFSET] <= im->h.phoff
	  && im->h.phoff - p[P_OFFSET] < p[P_FILESZ])
	{
	  at_phdr = address (im, im->h.phoff - p[P_OFFSET] + p[P_VADDR]);
	  index = i;
	  found = true;
	}
    }
  if (found && at_phdr == phdr[P_VADDR])
    return NULL;
  if (!found)
    snprintf (buf, len, "no PT_LOAD contains e_phoff 0x%" PRIx64 ", but PT_PHDR p_vaddr is 0x%"
	      PRIx64, im->h.phoff, phdr[P_VADDR]);
  else
    snprintf (buf, len, "PT_LOAD %" PRIu64 " maps e_phoff 0x%" PRIx64 " at 0x%" PRIx64
	      ", but PT_PHDR p_vaddr is 0x%" PRIx64, index, im->h.phoff, at_phdr, phdr[P_VADDR]);
  return buf;
}

/* How the dynamic loader finds a shared object's program headers (glibc,
   elf/dl-load.c, _dl_map_object_from_fd, and elf/dl-load.h,
   _dl_postprocess_loadcmd): at PT_PHDR's p_vaddr, taken as it is; without
   PT_PHDR, where the PT_LOAD whose mapping holds [e_phoff, + table size)
   maps it; without either, in a copy it makes.  With PT_PHDR, then, a
   PT_LOAD must hold the table in its file contents at PT_PHDR's address,
   and PT_PHDR must describe the table (p_offset e_phoff, p_filesz its
   size).  Return NULL when that holds (or there is no PT_PHDR), else a
   description.  */
static const char *
dso_phdr_broken (const struct image *im, char *buf, size_t len)
{
  const uint64_t *phdr = first_of_type (im, PT_PHDR);
  uint64_t index, at;
  if (phdr == NULL)
    return NULL;
  if (!table_load (im, &index, &at))
    snprintf (buf, len, "no PT_LOAD holds the table [0x%" PRIx64 ", +0x%" PRIx64 ") in its file "
	      "contents, so PT_PHDR's p_vaddr 0x%" PRIx64 " shows no table",
	      im->h.phoff, im->phtab, phdr[P_VADDR]);
  else if (at != phdr[P_VADDR])
    snprintf (buf, len, "PT_LOAD %" PRIu64 " maps the table at 0x%" PRIx64 ", but PT_PHDR "
	      "p_vaddr is 0x%" PRIx64, index, at, phdr[P_VADDR]);
  else if (phdr[P_OFFSET] != im->h.phoff || phdr[P_FILESZ] != im->phtab)
    snprintf (buf, len, "PT_PHDR p_offset 0x%" PRIx64 " p_filesz 0x%" PRIx64 " do not describe "
	      "the table (e_phoff 0x%" PRIx64 ", 0x%" PRIx64 " bytes)", phdr[P_OFFSET],
	      phdr[P_FILESZ], im->h.phoff, im->phtab);
  else
    return NULL;
  return buf;
}

static bool
glibc_congruent (const uint64_t *ph)
{
  return ph[P_TYPE] != PT_LOAD || ph[P_ALIGN] <= 1
	 || (ph[P_VADDR] - ph[P_OFFSET]) % ph[P_ALIGN] == 0;
}

/* One rule about where the program headers are found: a problem if the
   rewrite broke it, a warning if the input breaks it too.  */
static void
check_table_rule (const char *rule, const char *(*broken) (const struct image *, char *, size_t),
		  const struct image *in, const struct image *out)
{
  char b1[256], b2[256];
  const char *now = broken (out, b1, sizeof b1);
  if (now == NULL)
    return;
  if (broken (in, b2, sizeof b2) != NULL)
    warning ("%s broken, as in the input: %s", rule, now);
  else
    problem ("%s broken by the rewrite: %s", rule, now);
}

/* Where the program headers are found at run time.  A file the kernel may
   run (kernel_runs) must keep AT_PHDR as kernels before 5.18 compute it and
   as later ones do.  A shared object only the dynamic loader maps need not
   keep the first (the kernel never computes AT_PHDR for it, and a table
   moved with the PT_LOAD that holds it is where PT_PHDR says); it must keep
   dso_phdr_broken's rule, and without PT_PHDR the table stays in the same
   PT_LOAD at the same address when it was in one.  */
static void
check_table_rules (const struct image *in, const struct image *out)
{
  if (kernel_runs (in) || kernel_runs (out))
    {
      check_table_rule ("AT_PHDR rule (kernels < 5.18)", at_phdr_broken, in, out);
      check_table_rule ("AT_PHDR rule (kernels >= 5.18)", new_at_phdr_broken, in, out);
      return;
    }
  check_table_rule ("program header rule of the dynamic loader (PT_PHDR)", dso_phdr_broken,
		    in, out);
  uint64_t in_index, in_at, out_index, out_at;
  if (first_of_type (in, PT_PHDR) == NULL && table_load (in, &in_index, &in_at)
      && (!table_load (out, &out_index, &out_at) || out_index != in_index || out_at != in_at))
    problem ("program header rule of the dynamic loader (no PT_PHDR) broken by the rewrite: "
	     "the table was in PT_LOAD %" PRIu64 " at 0x%" PRIx64 " and is not there any more",
	     in_index, in_at);
}

static void
check_loader_rules (const struct image *in, const struct image *out)
{
  char b1[256];
  check_table_rules (in, out);
  for (uint64_t j = 0; j < out->h.phnum; j++)
    {
      const uint64_t *p = out->ph[j];
      if (glibc_congruent (p))
	continue;
      snprintf (b1, sizeof b1, "PT_LOAD %" PRIu64 ": p_vaddr 0x%" PRIx64 " - p_offset 0x%"
		PRIx64 " is not a multiple of p_align 0x%" PRIx64,
		j, p[P_VADDR], p[P_OFFSET], p[P_ALIGN]);
      uint64_t i = imap[j];
      if (i != NONE && !glibc_congruent (in->ph[i]) && in->ph[i][P_ALIGN] == p[P_ALIGN])
	warning ("glibc < 2.35 rule broken, as in the input: %s", b1);
      else
	problem ("glibc < 2.35 rule broken by the rewrite: %s", b1);
    }
}

/* What the stub's injection did, for the "bytemap ok" line.  */
static void
print_stub (void)
{
  static const char *const hooks[] = {
    [HOOK_NONE] = "none", [HOOK_ENTRY] = "e_entry", [HOOK_INIT_CHAIN] = "DT_INIT chained",
    [HOOK_INIT_NEW] = "DT_INIT new",
    [HOOK_INIT_ARRAY] = "DT_INIT_ARRAY[0] chained",
  };
  char b1[32];
  printf ("; stub: ");
  if (sv.table == TABLE_SLOT)
    printf ("slot of program header %" PRIu64 " (%s) taken over", sv.dropped,
	    phdr_type_name ((uint32_t) sv.dropped_type, b1, sizeof b1));
  else if (sv.table == TABLE_MOVED)
    printf ("table moved");
  else
    printf ("table grown, %" PRIu64 " segment%s and %" PRIu64 " section%s moved (%" PRIu64
	    " dynamic entr%s and %" PRIu64 " symbol%s followed)", sv.nmoved_ph,
	    sv.nmoved_ph == 1 ? "" : "s", sv.nmoved_sh, sv.nmoved_sh == 1 ? "" : "s", sv.nhash,
	    sv.nhash == 1 ? "y" : "ies", sv.nsyms, sv.nsyms == 1 ? "" : "s");
  const char *how = sv.hook != HOOK_INIT_ARRAY ? ""
		    : sv.iw_relr ? " through the entry (DT_RELR)" : " through its r_addend";
  printf (", %" PRIu64 " section%s added, hook %s%s (old target 0x%" PRIx64 "), %" PRIu64
	  " text range%s, segment 0x%" PRIx64 " bytes at 0x%" PRIx64, sv.added,
	  sv.added == 1 ? "" : "s", hooks[sv.hook], how, sv.old_target, sv.nranges,
	  sv.nranges == 1 ? "" : "s", sv.size, sv.off);
}

static int
bytemap (const char *in_name, const char *out_name)
{
  static struct image in, out;
  load_image (&in, in_name);
  load_image (&out, out_name);
  find_build_ids (&in);

  /* One PT_LOAD more: elfpmd --madvise's stub.  */
  sv.on = count_type (&out, PT_LOAD) == count_type (&in, PT_LOAD) + 1;
  if (memcmp (in.buf, out.buf, EI_NIDENT) != 0 || in.h.phentsize != out.h.phentsize
      || (in.h.shnum != 0 && out.h.shnum != 0 && in.h.shentsize != out.h.shentsize)
      || (!sv.on && (in.h.phnum != out.h.phnum || in.h.shnum != out.h.shnum)))
    {
      problem ("%s and %s differ in e_ident, the number or the size of program or "
	       "section headers (%" PRIu64 "/%" PRIu64 " phdrs, %" PRIu64 "/%" PRIu64
	       " shdrs, %" PRIu64 "/%" PRIu64 " PT_LOADs): no map to check", in_name, out_name,
	       in.h.phnum, out.h.phnum, in.h.shnum, out.h.shnum, count_type (&in, PT_LOAD),
	       count_type (&out, PT_LOAD));
      return 1;
    }
  omap = xcalloc (&in.e, in.h.phnum + 1, sizeof *omap);
  imap = xcalloc (&out.e, out.h.phnum + 1, sizeof *imap);
  if (!sv.on)
    {
      for (uint64_t i = 0; i < in.h.phnum; i++)
	{
	  omap[i] = imap[i] = i;
	  if (in.ph[i][P_TYPE] != out.ph[i][P_TYPE])
	    problem ("program header %" PRIu64 " changed type: 0x%" PRIx64 " -> 0x%" PRIx64,
		     i, in.ph[i][P_TYPE], out.ph[i][P_TYPE]);
	}
    }
  else
    {
      sv.program = is_program (&in);
      sv.shstrndx = in.ehdr[E_SHSTRNDX] == SHN_XINDEX && in.h.shnum != 0 ? in.sh[0][SH_LINK]
		    : in.ehdr[E_SHSTRNDX];
      if (sv.shstrndx == 0 || sv.shstrndx >= in.h.shnum)
	sv.shstrndx = NONE;
      canonical_sections (&in, &out);
      sv.dyn = NONE;
      for (uint64_t i = 0; i < in.h.phnum && sv.dyn == NONE; i++)
	if (in.ph[i][P_TYPE] == PT_DYNAMIC && in.ph[i][P_FILESZ] != 0)
	  sv.dyn = i;
      stub_match (&in, &out);
    }
  if (bm_problems != 0 || !derive_map (&in, &out))
    {
      fprintf (stderr, "%s: bytemap: %s -> %s: FAILED (%lu problems; no usable map)\n",
	       progname, in_name, out_name, bm_problems);
      return 1;
    }

  uint64_t total = steps[nsteps - 1].shift;
  if (!sv.on && out.e.size != in.e.size + total)
    problem ("output size 0x%" PRIx64 " is not input size 0x%" PRIx64 " + total shift 0x%"
	     PRIx64 " = 0x%" PRIx64, out.e.size, in.e.size, total, in.e.size + total);
  if (sv.on)
    {
      check_new_load (&out, in.e.size + total);
      check_new_sections (&in, &out);
      find_grown_tables (&in, &out);
      stub_moved (&in, &out);
      check_stub_layout (&out, in.e.size + total);
      if (sv.added != 0 && sv.shstrndx != NONE)
	check_names (&in, &out);
      check_grown_tables (&in, &out);
    }
  compare_ehdr (&in, &out);
  compare_phdrs (&in, &out);
  compare_shdrs (&in, &out);
  if (in.phtab != 0)
    check_not_split ("the program header table", in.h.phoff,
		     (sv.on ? sv.table_end : in.h.phoff + in.phtab) - in.h.phoff);
  if (in.shtab != 0)
    check_not_split ("the section header table", in.h.shoff, in.shtab);
  check_not_split ("the ELF header", 0,
		   elf_ehdr_size (in.e.elfclass == ELFCLASS64));
  if (nsteps > 1 && steps[1].at == 0)
    problem ("a hole of 0x%" PRIx64 " bytes at offset 0 (PT_LOAD %" PRIu64 ") moves the "
	     "ELF header away from the start of the file", steps[1].shift, steps[1].load);

  /* What is compared field by field rather than byte by byte: the ELF
     header and the header tables rewritten in place; with the stub also the
     dynamic array and, where sections moved, the symbol tables.  The
     tables written elsewhere leave the old ones as they were.  */
  exclude (0, elf_ehdr_size (in.e.elfclass == ELFCLASS64));
  if (in.phtab != 0 && !(sv.on && sv.table == TABLE_MOVED))
    exclude (in.h.phoff, sv.on ? sv.table_end : in.h.phoff + in.phtab);
  if (in.shtab != 0 && !(sv.on && sv.added != 0))
    exclude (in.h.shoff, in.h.shoff + in.shtab);
  memcpy (sv.hdr, excl, nexcluded * sizeof excl[0]);
  sv.nhdr = nexcluded;
  if (sv.on && sv.dyn != NONE)
    exclude (in.ph[sv.dyn][P_OFFSET], in.ph[sv.dyn][P_OFFSET] + in.ph[sv.dyn][P_FILESZ]);
  for (uint64_t i = 1; sv.on && sv.nmoved_sh != 0 && i < in.h.shnum; i++)
    if (in.sh[i][SH_TYPE] == SHT_SYMTAB)
      exclude (in.sh[i][SH_OFFSET], in.sh[i][SH_OFFSET] + in.sh[i][SH_SIZE]);
  if (sv.on)
    find_init_word (&in);
  for (size_t k = 0; k < nbid; k++)
    exclude (bid[k][0], bid[k][1]);
  uint64_t compared = compare_bytes (&in, &out);
  size_t bid_changed = 0;
  for (size_t k = 0; k < nbid; k++)
    {
      uint64_t x = bid[k][0], len = bid[k][1] - bid[k][0];
      bool moved = sv.on && sv.table == TABLE_GROWN && sv.mv_end > sv.mv_start
		   && x >= sv.mv_start && x < sv.mv_end;
      uint64_t to = moved ? x + sv.mv_delta : x + shift_at (x);
      if (!fits (to, len, out.e.size))
	problem ("the build-id at input 0x%" PRIx64 " maps past the output's end", x);
      else if (memcmp (in.buf + x, out.buf + to, (size_t) len) != 0)
	bid_changed++;
    }
  if (sv.on)
    {
      stub_dynamic (&in, &out);
      stub_init_array (&in, &out);
      check_hook (&in, &out);
      stub_symbols (&in, &out);
    }
  check_loader_rules (&in, &out);

  if (bm_problems != 0)
    {
      fprintf (stderr, "%s: bytemap: %s -> %s: FAILED (%lu problem%s)\n", progname,
	       in_name, out_name, bm_problems, bm_problems == 1 ? "" : "s");
      return 1;
    }
  printf ("bytemap ok: %" PRIu64 " program headers, %" PRIu64 " section headers, %zu hole%s, 0x%"
	  PRIx64 " bytes of padding, size 0x%" PRIx64 " -> 0x%" PRIx64 ", 0x%" PRIx64
	  " bytes compared%s",
	  in.h.phnum, in.h.shnum, nsteps - 1, nsteps == 2 ? "" : "s", total, in.e.size, out.e.size,
	  compared, bm_warnings != 0 ? " (with warnings)" : "");
  if (nbid != 0)
    printf (", build-id %s", bid_changed == 0 ? "kept" : bid_changed == nbid ? "changed"
	    : "partly changed");
  if (sv.on)
    print_stub ();
  putchar ('\n');
  for (size_t i = 1; i < nsteps; i++)
    printf ("hole 0x%" PRIx64 " bytes at input offset 0x%" PRIx64 " (PT_LOAD %" PRIu64
	    "): output [0x%" PRIx64 ", 0x%" PRIx64 ")\n",
	    steps[i].shift - steps[i - 1].shift, steps[i].at, steps[i].load,
	    steps[i].at + steps[i - 1].shift, steps[i].at + steps[i].shift);
  return 0;
}

static void __attribute__ ((noreturn))
usage (void)
{
  fprintf (stderr,
	   "usage: %s FILE\n"
	   "       %s --expect-relaxed PMD FILE\n"
	   "       %s --expect-kernel PMD FILE\n"
	   "       %s --bytemap IN OUT\n", progname, progname, progname, progname);
  exit (2);
}

enum mode { MODE_DUMP, MODE_RELAXED, MODE_KERNEL };

int
main (int argc, char **argv)
{
  enum mode mode = MODE_DUMP;
  uint64_t pmd = 0;
  const char *file;

  if (argc == 4 && strcmp (argv[1], "--bytemap") == 0)
    {
      int status = bytemap (argv[2], argv[3]);
      if (fflush (stdout) != 0 || ferror (stdout))
	{
	  fprintf (stderr, "%s: write error\n", progname);
	  return 1;
	}
      return status;
    }
  if (argc == 2 && argv[1][0] != '-')
    file = argv[1];
  else if (argc == 4 && (strcmp (argv[1], "--expect-relaxed") == 0
			 || strcmp (argv[1], "--expect-kernel") == 0))
    {
      mode = strcmp (argv[1], "--expect-relaxed") == 0 ? MODE_RELAXED : MODE_KERNEL;
      pmd = parse_pmd (argv[2]);
      if (!power_of_2 (pmd))
	{
	  fprintf (stderr, "%s: PMD size '%s' is not a power of two\n",
		   progname, argv[2]);
	  usage ();
	}
      file = argv[3];
    }
  else
    usage ();

  struct elf e;
  struct ehdr h;
  char b1[32], b2[32];
  open_elf (&e, file, &h);

  if (mode == MODE_DUMP)
    printf ("ehdr type=%s class=%d data=%s phoff=0x%" PRIx64 " shoff=0x%" PRIx64
	    " phnum=%" PRIu64 " shnum=%" PRIu64 " entry=0x%" PRIx64 "\n",
	    ehdr_type_name (h.type, b1, sizeof b1),
	    e.elfclass == ELFCLASS64 ? 64 : 32,
	    e.data == ELFDATA2LSB ? "LSB" : "MSB",
	    h.phoff, h.shoff, h.phnum, h.shnum, h.entry);

  for (uint64_t i = 0; i < h.phnum; i++)
    {
      struct phdr p;
      read_phdr (&e, &h, i, &p);
      if (mode == MODE_DUMP)
	{
	  printf ("%" PRIu64 " %s %s 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
		  " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
		  i, phdr_type_name (p.type, b1, sizeof b1),
		  flags_string (p.flags, b2, sizeof b2),
		  p.offset, p.vaddr, p.filesz, p.memsz, p.align, p.paddr);
	  continue;
	}
      if (p.type != PT_LOAD)
	continue;
      const char *why = mode == MODE_RELAXED ? relaxed_verdict (&p, pmd)
					     : kernel_verdict (&p, pmd);
      printf ("%" PRIu64 " 0x%" PRIx64 " %s\n", i, why == NULL ? pmd : p.align,
	      why == NULL ? "eligible" : why);
    }

  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "%s: write error\n", progname);
      return 1;
    }
  close (e.fd);
  return 0;
}
