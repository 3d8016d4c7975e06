/* phdr-dump: an independent reader of ELF program headers, used by the tests
   to check what elfpmd wrote.

   It deliberately shares nothing with elfpmd: no libelf, no project headers,
   only raw bytes decoded by hand, so that a bug in elfpmd's reading code cannot
   hide itself by making the checker read the file the same wrong way.

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
       nothing else changed but offsets and raised p_aligns (see the comment
       before bytemap() below); prints one "bytemap ok: ..." line, or one
       line per problem on stderr and exits 1.

   Exit status: 0 success, 1 the file cannot be read or is not a valid ELF
   file (a message on stderr names the reason), 2 usage error.  */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Sizes of the on-disk structures per class.  */
#define EHDR32_SIZE 52
#define EHDR64_SIZE 64
#define PHDR32_SIZE 32
#define PHDR64_SIZE 56
#define SHDR32_SIZE 40
#define SHDR64_SIZE 64

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
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++)
    {
      unsigned byte = e->data == ELFDATA2LSB ? p[width - 1 - i] : p[i];
      v = (v << 8) | byte;
    }
  return v;
}

/* Width of an address or offset field of E's class.  */
static unsigned
word (const struct elf *e)
{
  return e->elfclass == ELFCLASS64 ? 8 : 4;
}

/* Read section header 0 of E at H->SHOFF and return its sh_size (WANT_SIZE)
   or sh_info: where the real section and program header counts live when
   they do not fit into the ELF header.  */
static uint64_t
section0_field (const struct elf *e, const struct ehdr *h, bool want_size)
{
  unsigned char buf[SHDR64_SIZE];
  unsigned need = e->elfclass == ELFCLASS64 ? SHDR64_SIZE : SHDR32_SIZE;
  if (h->shoff == 0)
    die (e, "e_phnum or e_shnum is escaped but there is no section header 0");
  if (h->shentsize < need)
    die (e, "e_shentsize %u is smaller than a section header (%u)",
	 h->shentsize, need);
  read_at (e, h->shoff, buf, need, "section header 0");
  if (e->elfclass == ELFCLASS64)
    return want_size ? get (e, buf + 32, 8) : get (e, buf + 44, 4);
  return want_size ? get (e, buf + 20, 4) : get (e, buf + 28, 4);
}

/* Open NAME and decode its ELF header into *H.  */
static void
open_elf (struct elf *e, const char *name, struct ehdr *h)
{
  unsigned char buf[EHDR64_SIZE];
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

  bool is64 = e->elfclass == ELFCLASS64;
  read_at (e, 0, buf, is64 ? EHDR64_SIZE : EHDR32_SIZE, "ELF header");
  unsigned w = word (e);
  h->type = (unsigned) get (e, buf + 16, 2);
  h->machine = (unsigned) get (e, buf + 18, 2);
  h->entry = get (e, buf + 24, w);
  h->phoff = get (e, buf + 24 + w, w);
  h->shoff = get (e, buf + 24 + 2 * w, w);
  const unsigned char *rest = buf + 24 + 3 * w + 4;	/* after e_flags */
  /* rest: e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx */
  h->phentsize = (unsigned) get (e, rest + 2, 2);
  h->phnum = get (e, rest + 4, 2);
  h->shentsize = (unsigned) get (e, rest + 6, 2);
  h->shnum = get (e, rest + 8, 2);

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
  unsigned char buf[PHDR64_SIZE];
  bool is64 = e->elfclass == ELFCLASS64;
  unsigned need = is64 ? PHDR64_SIZE : PHDR32_SIZE;
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

  p->type = (uint32_t) get (e, buf, 4);
  if (is64)
    {
      p->flags = (uint32_t) get (e, buf + 4, 4);
      p->offset = get (e, buf + 8, 8);
      p->vaddr = get (e, buf + 16, 8);
      p->paddr = get (e, buf + 24, 8);
      p->filesz = get (e, buf + 32, 8);
      p->memsz = get (e, buf + 40, 8);
      p->align = get (e, buf + 48, 8);
    }
  else
    {
      p->offset = get (e, buf + 4, 4);
      p->vaddr = get (e, buf + 8, 4);
      p->paddr = get (e, buf + 12, 4);
      p->filesz = get (e, buf + 16, 4);
      p->memsz = get (e, buf + 20, 4);
      p->flags = (uint32_t) get (e, buf + 24, 4);
      p->align = get (e, buf + 28, 4);
    }
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
       output breaking it the same way is only a warning.  */

#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_PHDR 6
#define ET_EXEC 2
#define DT_NULL 0
#define DT_FLAGS_1 0x6ffffffb
#define DF_1_PIE 0x08000000
#define SHT_NULL 0
#define SHT_NOBITS 8

/* One field of an on-disk structure: its name and where it lies in the
   32-bit and the 64-bit layout.  */
struct field
{
  const char *name;
  unsigned off32, size32, off64, size64;
};

enum { E_TYPE, E_MACHINE, E_VERSION, E_ENTRY, E_PHOFF, E_SHOFF, E_FLAGS,
       E_EHSIZE, E_PHENTSIZE, E_PHNUM, E_SHENTSIZE, E_SHNUM, E_SHSTRNDX, E_NFIELDS };
static const struct field ehdr_fields[E_NFIELDS] = {
  { "e_type", 16, 2, 16, 2 }, { "e_machine", 18, 2, 18, 2 },
  { "e_version", 20, 4, 20, 4 }, { "e_entry", 24, 4, 24, 8 },
  { "e_phoff", 28, 4, 32, 8 }, { "e_shoff", 32, 4, 40, 8 },
  { "e_flags", 36, 4, 48, 4 }, { "e_ehsize", 40, 2, 52, 2 },
  { "e_phentsize", 42, 2, 54, 2 }, { "e_phnum", 44, 2, 56, 2 },
  { "e_shentsize", 46, 2, 58, 2 }, { "e_shnum", 48, 2, 60, 2 },
  { "e_shstrndx", 50, 2, 62, 2 },
};

enum { P_TYPE, P_OFFSET, P_VADDR, P_PADDR, P_FILESZ, P_MEMSZ, P_FLAGS, P_ALIGN, P_NFIELDS };
static const struct field phdr_fields[P_NFIELDS] = {
  { "p_type", 0, 4, 0, 4 }, { "p_offset", 4, 4, 8, 8 },
  { "p_vaddr", 8, 4, 16, 8 }, { "p_paddr", 12, 4, 24, 8 },
  { "p_filesz", 16, 4, 32, 8 }, { "p_memsz", 20, 4, 40, 8 },
  { "p_flags", 24, 4, 4, 4 }, { "p_align", 28, 4, 48, 8 },
};

enum { SH_NAME, SH_TYPE, SH_FLAGS, SH_ADDR, SH_OFFSET, SH_SIZE, SH_LINK, SH_INFO,
       SH_ADDRALIGN, SH_ENTSIZE, SH_NFIELDS };
static const struct field shdr_fields[SH_NFIELDS] = {
  { "sh_name", 0, 4, 0, 4 }, { "sh_type", 4, 4, 4, 4 },
  { "sh_flags", 8, 4, 8, 8 }, { "sh_addr", 12, 4, 16, 8 },
  { "sh_offset", 16, 4, 24, 8 }, { "sh_size", 20, 4, 32, 8 },
  { "sh_link", 24, 4, 40, 4 }, { "sh_info", 28, 4, 44, 4 },
  { "sh_addralign", 32, 4, 48, 8 }, { "sh_entsize", 36, 4, 56, 8 },
};

/* A whole ELF file in memory with its header tables decoded.  */
struct image
{
  struct elf e;
  struct ehdr h;		/* counts after PN_XNUM and section 0 */
  unsigned char *buf;
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

static void
decode (const struct elf *e, const unsigned char *p, const struct field *f, size_t n,
	uint64_t *out)
{
  bool is64 = e->elfclass == ELFCLASS64;
  for (size_t i = 0; i < n; i++)
    out[i] = get (e, p + (is64 ? f[i].off64 : f[i].off32), is64 ? f[i].size64 : f[i].size32);
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
  im->buf = malloc (e->size ? (size_t) e->size : 1);
  if (im->buf == NULL)
    die (e, "out of memory");
  read_at (e, 0, im->buf, (size_t) e->size, "the file");
  decode (e, im->buf, ehdr_fields, E_NFIELDS, im->ehdr);

  im->phsize = is64 ? PHDR64_SIZE : PHDR32_SIZE;
  im->shsize = is64 ? SHDR64_SIZE : SHDR32_SIZE;
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
	decode (e, im->buf + h->phoff + i * h->phentsize, phdr_fields, P_NFIELDS, im->ph[i]);
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
	decode (e, im->buf + h->shoff + i * h->shentsize, shdr_fields, SH_NFIELDS, im->sh[i]);
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

/* Derive the map from the PT_LOADs of IN and OUT.  Return false when it
   cannot be derived (the problems are reported).  */
static bool
derive_map (const struct image *in, const struct image *out)
{
  uint64_t n = 0;
  struct load_ref *loads = xcalloc (&in->e, in->h.phnum + 1, sizeof *loads);
  for (uint64_t i = 0; i < in->h.phnum; i++)
    if (in->ph[i][P_TYPE] == PT_LOAD && in->ph[i][P_FILESZ] != 0)
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
      uint64_t old = in->ph[i][P_OFFSET], new = out->ph[i][P_OFFSET];
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

/* Compare the bytes of IN outside the header tables with their images in
   OUT, and check that the holes read as zeros.  Return the number of bytes
   compared.  */
static uint64_t
compare_bytes (const struct image *in, const struct image *out)
{
  /* Excluded input ranges: the ELF header structure and the two tables.  */
  uint64_t ex[3][2];
  size_t nex = 0;
  uint64_t ehsize = in->e.elfclass == ELFCLASS64 ? EHDR64_SIZE : EHDR32_SIZE;
  ex[nex][0] = 0, ex[nex][1] = ehsize, nex++;
  if (in->phtab != 0)
    ex[nex][0] = in->h.phoff, ex[nex][1] = in->h.phoff + in->phtab, nex++;
  if (in->shtab != 0)
    ex[nex][0] = in->h.shoff, ex[nex][1] = in->h.shoff + in->shtab, nex++;

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

static void
compare_ehdr (const struct image *in, const struct image *out)
{
  if (memcmp (in->buf, out->buf, EI_NIDENT) != 0)
    problem ("e_ident differs");
  for (int f = 0; f < E_NFIELDS; f++)
    {
      uint64_t a = in->ehdr[f], b = out->ehdr[f];
      if (f == E_PHOFF)
	check_offset ("e_phoff", a, b, in->phtab == 0);
      else if (f == E_SHOFF && a != 0)
	check_offset ("e_shoff", a, b, false);
      else if (a != b)
	problem ("ELF header field %s changed: 0x%" PRIx64 " -> 0x%" PRIx64,
		 ehdr_fields[f].name, a, b);
    }
}

static void
compare_phdrs (const struct image *in, const struct image *out)
{
  char what[64], b1[32];
  for (uint64_t i = 0; i < in->h.phnum; i++)
    {
      const uint64_t *a = in->ph[i], *b = out->ph[i];
      snprintf (what, sizeof what, "program header %" PRIu64 " (%s)", i,
		phdr_type_name ((uint32_t) a[P_TYPE], b1, sizeof b1));
      for (int f = 0; f < P_NFIELDS; f++)
	{
	  if (f == P_OFFSET)
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
		     phdr_fields[f].name, a[f], b[f]);
	}
      compare_entry_tail (what, in->buf + in->h.phoff + i * in->h.phentsize,
			  out->buf + out->h.phoff + i * out->h.phentsize,
			  in->phsize, in->h.phentsize);
      if (a[P_FILESZ] != 0)
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
      bool contents = i != 0 && a[SH_TYPE] != SHT_NOBITS && a[SH_TYPE] != SHT_NULL
		      && a[SH_SIZE] != 0;
      for (int f = 0; f < SH_NFIELDS; f++)
	{
	  if (f == SH_OFFSET && i != 0)
	    check_offset (what, a[f], b[f], !contents);
	  else if (a[f] != b[f])
	    problem ("%s: %s changed: 0x%" PRIx64 " -> 0x%" PRIx64, what,
		     shdr_fields[f].name, a[f], b[f]);
	}
      compare_entry_tail (what, in->buf + in->h.shoff + i * in->h.shentsize,
			  out->buf + out->h.shoff + i * out->h.shentsize,
			  in->shsize, in->h.shentsize);
      if (contents)
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
  for (uint64_t i = 0; i < out->h.phnum; i++)
    {
      const uint64_t *p = out->ph[i];
      if (glibc_congruent (p))
	continue;
      snprintf (b1, sizeof b1, "PT_LOAD %" PRIu64 ": p_vaddr 0x%" PRIx64 " - p_offset 0x%"
		PRIx64 " is not a multiple of p_align 0x%" PRIx64,
		i, p[P_VADDR], p[P_OFFSET], p[P_ALIGN]);
      if (!glibc_congruent (in->ph[i]) && in->ph[i][P_ALIGN] == p[P_ALIGN])
	warning ("glibc < 2.35 rule broken, as in the input: %s", b1);
      else
	problem ("glibc < 2.35 rule broken by the rewrite: %s", b1);
    }
}

static int
bytemap (const char *in_name, const char *out_name)
{
  static struct image in, out;
  load_image (&in, in_name);
  load_image (&out, out_name);

  if (memcmp (in.buf, out.buf, EI_NIDENT) != 0 || in.h.phnum != out.h.phnum
      || in.h.shnum != out.h.shnum || in.h.phentsize != out.h.phentsize
      || (in.h.shnum != 0 && in.h.shentsize != out.h.shentsize))
    {
      problem ("%s and %s differ in e_ident, the number or the size of program or "
	       "section headers (%" PRIu64 "/%" PRIu64 " phdrs, %" PRIu64 "/%" PRIu64
	       " shdrs): no map to check", in_name, out_name, in.h.phnum, out.h.phnum,
	       in.h.shnum, out.h.shnum);
      return 1;
    }
  for (uint64_t i = 0; i < in.h.phnum; i++)
    if (in.ph[i][P_TYPE] != out.ph[i][P_TYPE])
      problem ("program header %" PRIu64 " changed type: 0x%" PRIx64 " -> 0x%" PRIx64,
	       i, in.ph[i][P_TYPE], out.ph[i][P_TYPE]);
  if (bm_problems != 0 || !derive_map (&in, &out))
    {
      fprintf (stderr, "%s: bytemap: %s -> %s: FAILED (%lu problems; no usable map)\n",
	       progname, in_name, out_name, bm_problems);
      return 1;
    }

  uint64_t total = steps[nsteps - 1].shift;
  if (out.e.size != in.e.size + total)
    problem ("output size 0x%" PRIx64 " is not input size 0x%" PRIx64 " + total shift 0x%"
	     PRIx64 " = 0x%" PRIx64, out.e.size, in.e.size, total, in.e.size + total);
  compare_ehdr (&in, &out);
  compare_phdrs (&in, &out);
  compare_shdrs (&in, &out);
  if (in.phtab != 0)
    check_not_split ("the program header table", in.h.phoff, in.phtab);
  if (in.shtab != 0)
    check_not_split ("the section header table", in.h.shoff, in.shtab);
  check_not_split ("the ELF header", 0,
		   in.e.elfclass == ELFCLASS64 ? EHDR64_SIZE : EHDR32_SIZE);
  if (nsteps > 1 && steps[1].at == 0)
    problem ("a hole of 0x%" PRIx64 " bytes at offset 0 (PT_LOAD %" PRIu64 ") moves the "
	     "ELF header away from the start of the file", steps[1].shift, steps[1].load);
  uint64_t compared = compare_bytes (&in, &out);
  check_loader_rules (&in, &out);

  if (bm_problems != 0)
    {
      fprintf (stderr, "%s: bytemap: %s -> %s: FAILED (%lu problem%s)\n", progname,
	       in_name, out_name, bm_problems, bm_problems == 1 ? "" : "s");
      return 1;
    }
  printf ("bytemap ok: %" PRIu64 " program headers, %" PRIu64 " section headers, %zu hole%s, 0x%"
	  PRIx64 " bytes of padding, size 0x%" PRIx64 " -> 0x%" PRIx64 ", 0x%" PRIx64
	  " bytes compared%s\n",
	  in.h.phnum, in.h.shnum, nsteps - 1, nsteps == 2 ? "" : "s", total, in.e.size, out.e.size,
	  compared, bm_warnings != 0 ? " (with warnings)" : "");
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
