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

static void __attribute__ ((noreturn))
usage (void)
{
  fprintf (stderr,
	   "usage: %s FILE\n"
	   "       %s --expect-relaxed PMD FILE\n"
	   "       %s --expect-kernel PMD FILE\n", progname, progname, progname);
  exit (2);
}

enum mode { MODE_DUMP, MODE_RELAXED, MODE_KERNEL };

int
main (int argc, char **argv)
{
  enum mode mode = MODE_DUMP;
  uint64_t pmd = 0;
  const char *file;

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
