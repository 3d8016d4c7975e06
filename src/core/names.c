/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The names of an object's functions, for map: from DWARF in the file or in
   its separate debug file (found by build ID or .gnu_debuglink, as gdb
   does), else from its symbol table; demangled on request (names.h).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBDWARF
# if defined HAVE_LIBDWARF_H
#  include <dwarf.h>
#  include <libdwarf.h>
# elif defined HAVE_LIBDWARF_0_LIBDWARF_H
#  include <libdwarf-0/dwarf.h>
#  include <libdwarf-0/libdwarf.h>
# else
#  include <libdwarf/dwarf.h>
#  include <libdwarf/libdwarf.h>
# endif
#endif

#include "arith.h"
#include "crc32.h"
#include "diag.h"
#include "elf_file.h"
#include "names.h"
#include "safe_open.h"

/* Append a function NAME (LINKAGE: its mangled name or NULL) at [LO, HI) of
   compilation unit CU to N.  Return 0, or -1 when out of memory.  */
static int
names_add (struct names *n, const char *name, const char *linkage, uint64_t lo, uint64_t hi,
	   size_t cu)
{
  if (n->nfuncs == n->cap)
    {
      size_t cap = n->cap == 0 ? 256 : 2 * n->cap;
      struct function *grown = realloc (n->funcs, cap * sizeof *grown);
      if (grown == NULL)
	return -1;
      n->funcs = grown;
      n->cap = cap;
    }
  struct function *f = &n->funcs[n->nfuncs];
  f->name = strdup (name);
  f->linkage = linkage != NULL ? strdup (linkage) : NULL;
  if (f->name == NULL || (linkage != NULL && f->linkage == NULL))
    {
      free (f->name);
      free (f->linkage);
      return -1;
    }
  f->lo = lo;
  f->hi = hi;
  f->cu = cu;
  n->nfuncs++;
  return 0;
}

#ifdef HAVE_CXA_DEMANGLE
/* libstdc++'s demangler (the C++ ABI's), as elfutils and binutils use it.  */
char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status);
#endif

/* Names longer than this are left mangled: the demangler's work grows with
   the name, and the names come from the file, which may be hostile.  */
#define DEMANGLE_MAX 4096

/* -C: give each function of N that has a C++ mangled name (its linkage
   name, or its symbol) the demangled one, the mangled one kept as its
   linkage name, so that --hot finds it by either.  Names that do not
   demangle stay as they are.  Return 0, or -1 when out of memory.  */
int
names_demangle (struct names *n)
{
#ifdef HAVE_CXA_DEMANGLE
  for (size_t i = 0; i < n->nfuncs; i++)
    {
      struct function *f = &n->funcs[i];
      const char *mangled = f->linkage != NULL ? f->linkage : f->name;
      if (strncmp (mangled, "_Z", 2) != 0 || strlen (mangled) > DEMANGLE_MAX)
	continue;
      int status = -1;
      char *shown = __cxa_demangle (mangled, NULL, NULL, &status);
      if (status != 0 || shown == NULL)
	{
	  free (shown);
	  continue;
	}
      if (f->linkage == NULL)
	f->linkage = f->name;
      else
	free (f->name);
      f->name = shown;
    }
  return 0;
#else
  (void) n;
  return 0;
#endif
}

bool
names_can_demangle (void)
{
#ifdef HAVE_CXA_DEMANGLE
  return true;
#else
  return false;
#endif
}

/* Free everything N holds.  */
void
names_free (struct names *n)
{
  for (size_t i = 0; i < n->nfuncs; i++)
    {
      free (n->funcs[i].name);
      free (n->funcs[i].linkage);
    }
  free (n->funcs);
  for (size_t i = 0; i < n->ncus; i++)
    free (n->cus[i]);
  free (n->cus);
  free (n->file);
  memset (n, 0, sizeof *n);
}

static int
function_by_address (const void *a, const void *b)
{
  const struct function *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi < y->hi ? -1 : 1;
  return 0;
}

/* Sort N's functions by address and drop the second of two with the same
   range (symbol aliases such as memcpy and __memcpy), so that no byte is
   counted twice for one function.  */
static void
names_sort (struct names *n)
{
  if (n->nfuncs == 0)
    return;
  qsort (n->funcs, n->nfuncs, sizeof *n->funcs, function_by_address);
  size_t k = 1;
  for (size_t i = 1; i < n->nfuncs; i++)
    {
      if (n->funcs[i].lo == n->funcs[k - 1].lo && n->funcs[i].hi == n->funcs[k - 1].hi)
	{
	  free (n->funcs[i].name);
	  free (n->funcs[i].linkage);
	  continue;
	}
      n->funcs[k++] = n->funcs[i];
    }
  n->nfuncs = k;
}

/* ---- Sections of any ELF handle ------------------------------------------ */

/* The first section of ELF named NAME, with its header in *SHDR, or NULL.  */
static Elf_Scn *
section_by_name (Elf *elf, const char *name, GElf_Shdr *shdr)
{
  size_t shstrndx;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL; scn = elf_nextscn (elf, scn))
    {
      if (gelf_getshdr (scn, shdr) == NULL)
	continue;
      const char *s = elf_strptr (elf, shstrndx, shdr->sh_name);
      if (s != NULL && strcmp (s, name) == 0)
	return scn;
    }
  return NULL;
}

/* Whether ELF has DWARF to read: a .debug_info section with contents.  */
static bool
has_dwarf (Elf *elf)
{
  GElf_Shdr sh;
  return section_by_name (elf, ".debug_info", &sh) != NULL && sh.sh_type != SHT_NOBITS
	 && sh.sh_size != 0;
}

/* The GNU build ID of ELF into ID (at most LEN bytes): its length, or 0
   when it has none.  */
static size_t
build_id (Elf *elf, unsigned char *id, size_t len)
{
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL; scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr sh;
      if (gelf_getshdr (scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
	continue;
      Elf_Data *d = elf_getdata (scn, NULL);
      if (d == NULL)
	continue;
      GElf_Nhdr nh;
      size_t off = 0, name_off, desc_off, next;
      while (off < d->d_size && (next = gelf_getnote (d, off, &nh, &name_off, &desc_off)) > 0)
	{
	  if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4
	      && memcmp ((char *) d->d_buf + name_off, "GNU", 4) == 0
	      && nh.n_descsz != 0 && nh.n_descsz <= len)
	    {
	      memcpy (id, (char *) d->d_buf + desc_off, nh.n_descsz);
	      return nh.n_descsz;
	    }
	  off = next;
	}
    }
  return 0;
}

/* The file name and CRC of ELF's .gnu_debuglink (in the byte order DATA)
   into NAME (LEN bytes) and *CRC.  Return false when it has none that can
   be used: the name must end inside the section and be a plain file name,
   and the CRC must follow it.  */
static bool
debuglink (Elf *elf, int data, char *name, size_t len, uint32_t *crc)
{
  GElf_Shdr sh;
  Elf_Scn *scn = section_by_name (elf, ".gnu_debuglink", &sh);
  Elf_Data *d = scn != NULL && sh.sh_type != SHT_NOBITS ? elf_rawdata (scn, NULL) : NULL;
  if (d == NULL || d->d_buf == NULL)
    return false;
  const unsigned char *p = d->d_buf;
  const unsigned char *nul = memchr (p, '\0', d->d_size);
  if (nul == NULL || nul == p || (size_t) (nul - p) >= len || memchr (p, '/', nul - p) != NULL)
    return false;
  size_t at = ((size_t) (nul - p) + 4) & ~(size_t) 3;
  if (at > d->d_size || d->d_size - at < 4)
    return false;
  const unsigned char *c = p + at;
  *crc = data == ELFDATA2MSB
	 ? (uint32_t) c[0] << 24 | (uint32_t) c[1] << 16 | (uint32_t) c[2] << 8 | c[3]
	 : (uint32_t) c[3] << 24 | (uint32_t) c[2] << 16 | (uint32_t) c[1] << 8 | c[0];
  memcpy (name, p, (size_t) (nul - p) + 1);
  return true;
}

/* The CRC-32 of the contents of FD, as .gnu_debuglink records it (the
   zlib polynomial), into *CRC.  Return false on a read error.  */
static bool
file_crc32 (int fd, uint32_t *crc)
{
  unsigned char buf[65536];
  uint32_t c = 0;
  off_t off = 0;
  for (;;)
    {
      ssize_t n = pread (fd, buf, sizeof buf, off);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	return false;
      if (n == 0)
	break;
      c = crc32_update (c, buf, (size_t) n);
      off += n;
    }
  *crc = c;
  return true;
}

/* A separate debug file, open.  */
struct debug_file
{
  char *path;
  int fd;
  Elf *elf;
  const char *found_by;
};

static void
debug_file_close (struct debug_file *d)
{
  if (d->elf != NULL)
    elf_end (d->elf);
  if (d->fd >= 0)
    close (d->fd);
  free (d->path);
  d->path = NULL;
  d->elf = NULL;
  d->fd = -1;
}

/* Open PATH into *D if it is an ELF file other than the one with status
   SELF.  Only a regular file is opened, as for the file itself
   (safe_open.h): a FIFO or a device under a debug file's name is passed
   over, never opened; symbolic links are followed, as gdb follows them.
   Return false (D closed) if not.  */
static bool
debug_file_open (struct debug_file *d, const char *path, const struct stat *self)
{
  struct stat st;
  struct diag why = { "" };
  d->fd = open_regular (AT_FDCWD, path, true, &st, &why);
  if (d->fd < 0)
    return false;
  d->path = strdup (path);
  if (d->path == NULL || (st.st_dev == self->st_dev && st.st_ino == self->st_ino))
    {
      debug_file_close (d);
      return false;
    }
  d->elf = elf_begin (d->fd, ELF_C_READ_MMAP, NULL);
  if (d->elf == NULL || elf_kind (d->elf) != ELF_K_ELF)
    {
      debug_file_close (d);
      return false;
    }
  return true;
}

/* Find the separate debug file of FILE (named NAME) into *D, as gdb does: by build
   ID under the debug root (ROOT/.build-id/xx/yyyy.debug, the build ID
   checked), then by .gnu_debuglink beside the file, in its .debug
   directory, and under ROOT followed by the file's directory (the CRC
   checked).  A candidate whose build ID or CRC does not match is named in a
   warning to ERRORS and passed over.  Return whether one was found.  */
static bool
find_debug_file (const struct elf_file *file, const char *name, const char *root, struct debug_file *d,
		 FILE *errors)
{
  unsigned char id[64], other[64];
  size_t idlen = build_id (file->elf, id, sizeof id);
  d->fd = -1;
  d->elf = NULL;
  d->path = NULL;
  if (idlen >= 2)
    {
      char hex[2 * sizeof id + 1];
      for (size_t i = 0; i < idlen; i++)
	sprintf (hex + 2 * i, "%02x", id[i]);
      char *path;
      if (asprintf (&path, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) >= 0)
	{
	  if (debug_file_open (d, path, &file->st))
	    {
	      if (build_id (d->elf, other, sizeof other) == idlen && memcmp (id, other, idlen) == 0
		  && has_dwarf (d->elf))
		{
		  d->found_by = "build-id";
		  free (path);
		  return true;
		}
	      fprintf (errors, "%s: %s: warning: %s: %s; passed over\n", diag_program, name, path,
		       has_dwarf (d->elf) ? "its build ID differs" : "no DWARF in it");
	      debug_file_close (d);
	    }
	  free (path);
	}
    }

  char link[256];
  uint32_t want;
  if (!debuglink (file->elf, file->data, link, sizeof link, &want))
    return false;
  char *real = realpath (name, NULL);
  if (real == NULL)
    return false;
  char *dir = dirname (real);
  for (int k = 0; k < 3; k++)
    {
      char *path;
      int len = k == 0 ? asprintf (&path, "%s/%s", dir, link)
		: k == 1 ? asprintf (&path, "%s/.debug/%s", dir, link)
		: asprintf (&path, "%s%s/%s", root, strcmp (dir, "/") == 0 ? "" : dir, link);
      if (len < 0)
	break;
      if (!debug_file_open (d, path, &file->st))
	{
	  free (path);
	  continue;
	}
      uint32_t crc;
      if (!file_crc32 (d->fd, &crc) || crc != want)
	fprintf (errors, "%s: %s: warning: %s: CRC %#010" PRIx32 " is not the %#010" PRIx32
		 " of .gnu_debuglink; passed over\n", diag_program, name, path, crc, want);
      else if (!has_dwarf (d->elf))
	fprintf (errors, "%s: %s: warning: %s: no DWARF in it; passed over\n", diag_program, name, path);
      else
	{
	  d->found_by = ".gnu_debuglink";
	  free (path);
	  free (real);
	  return true;
	}
      debug_file_close (d);
      free (path);
    }
  free (real);
  return false;
}

/* ---- Names from a symbol table ------------------------------------------ */

/* The functions of ELF's first section of TYPE (SHT_SYMTAB or SHT_DYNSYM)
   into N: defined STT_FUNC and STT_GNU_IFUNC symbols with a size.  Return
   1 when there is such a section, 0 when not, -1 when out of memory.  */
static int
symbols_of (Elf *elf, Elf64_Word type, struct names *n)
{
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL; scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr sh;
      if (gelf_getshdr (scn, &sh) == NULL || sh.sh_type != type)
	continue;
      Elf_Data *d = elf_getdata (scn, NULL);
      if (d == NULL)
	continue;
      GElf_Sym sym;
      for (int i = 1; gelf_getsym (d, i, &sym) != NULL; i++)
	{
	  int t = GELF_ST_TYPE (sym.st_info);
	  uint64_t hi;
	  if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF
	      || sym.st_size == 0 || !add_checked (sym.st_value, sym.st_size, &hi))
	    continue;
	  const char *s = elf_strptr (elf, sh.sh_link, sym.st_name);
	  if (s == NULL || *s == '\0')
	    continue;
	  if (names_add (n, s, NULL, sym.st_value, hi, NO_CU) != 0)
	    return -1;
	}
      return 1;
    }
  return 0;
}

/* The symbol names of FILE (named NAME) into N: its .symtab, else that of the debug
   file DEBUG (may be NULL), else its .dynsym.  Return 0, or -1 when out of
   memory.  */
static int
load_symbols (const struct elf_file *file, const char *name, Elf *debug, const char *debug_path,
	      struct names *n)
{
  int r = symbols_of (file->elf, SHT_SYMTAB, n);
  if (r > 0)
    {
      n->source = NAMES_SYMTAB;
      n->file = strdup (name);
    }
  else if (r == 0 && debug != NULL && (r = symbols_of (debug, SHT_SYMTAB, n)) > 0)
    {
      n->source = NAMES_SYMTAB;
      n->file = strdup (debug_path);
    }
  else if (r == 0 && (r = symbols_of (file->elf, SHT_DYNSYM, n)) > 0)
    {
      n->source = NAMES_DYNSYM;
      n->file = strdup (name);
    }
  if (r < 0 || (r > 0 && n->file == NULL))
    return -1;
  names_sort (n);
  return 0;
}

/* ---- Names from DWARF ----------------------------------------------------- */

#ifdef HAVE_LIBDWARF
/* libdwarf's two APIs, 0.x (HAVE_LIBDWARF_0; from 0.9.0 also
   HAVE_DWARF_NEXT_CU_HEADER_E) and the one before 0.1 (Debian 12's
   20210528), differ for elfpmd only in the four functions below.  */

/* Open the DWARF of the file FD into *DBG; as dwarf_init_b.  */
static int
libdwarf_begin (int fd, Dwarf_Debug *dbg, Dwarf_Error *err)
{
#ifdef HAVE_LIBDWARF_0
  return dwarf_init_b (fd, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, err);
#else
  return dwarf_init_b (fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, err);
#endif
}

/* Close DBG and free all that libdwarf holds for it.  */
static void
libdwarf_end (Dwarf_Debug dbg)
{
#ifdef HAVE_LIBDWARF_0
  dwarf_finish (dbg);
#else
  dwarf_finish (dbg, NULL);
#endif
}

/* The DIE of DBG's next compilation unit in .debug_info into *CU (NULL,
   with DW_DLV_OK, for a unit without one); as dwarf_next_cu_header_e.  */
static int
libdwarf_next_unit (Dwarf_Debug dbg, Dwarf_Die *cu, Dwarf_Error *err)
{
  Dwarf_Unsigned hlen, typeoff, next;
  Dwarf_Half version, asize, lsize, esize, cutype;
  Dwarf_Off abbrev;
  Dwarf_Sig8 sig;
  *cu = NULL;
#ifdef HAVE_DWARF_NEXT_CU_HEADER_E
  return dwarf_next_cu_header_e (dbg, true, cu, &hlen, &version, &abbrev, &asize, &lsize, &esize,
				 &sig, &typeoff, &next, &cutype, err);
#else
  int r = dwarf_next_cu_header_d (dbg, true, &hlen, &version, &abbrev, &asize, &lsize, &esize,
				  &sig, &typeoff, &next, &cutype, err);
  if (r == DW_DLV_OK && dwarf_siblingof_b (dbg, NULL, true, cu, err) == DW_DLV_ERROR)
    r = DW_DLV_ERROR;
  return r;
#endif
}

/* The sibling of DIE (of DBG's .debug_info) into *NEXT; as
   dwarf_siblingof_c.  */
static int
libdwarf_sibling (Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Die *next, Dwarf_Error *err)
{
#ifdef HAVE_DWARF_NEXT_CU_HEADER_E
  (void) dbg;
  return dwarf_siblingof_c (die, next, err);
#else
  return dwarf_siblingof_b (dbg, die, true, next, err);
#endif
}

/* DIEs nest no deeper than this here: a hostile file's nesting is cut.  */
#define DWARF_MAX_DEPTH 32
/* DW_AT_specification and DW_AT_abstract_origin chains are followed this far.  */
#define DWARF_MAX_HOPS 4

struct dwarf_walk
{
  Dwarf_Debug dbg;
  struct names *n;
  size_t cu;
  bool nomem;
};

/* The string attribute AT of DIE (following DW_AT_specification and
   DW_AT_abstract_origin for at most HOPS more DIEs, as an out-of-line
   definition names itself through its declaration), or NULL.  The string
   belongs to libdwarf.  */
static char *
die_string (Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int hops)
{
  Dwarf_Error err = NULL;
  Dwarf_Attribute attr;
  char *s = NULL;
  if (dwarf_attr (die, at, &attr, &err) == DW_DLV_OK)
    {
      if (dwarf_formstring (attr, &s, &err) != DW_DLV_OK)
	s = NULL;
      dwarf_dealloc (dbg, attr, DW_DLA_ATTR);
      if (s != NULL)
	return s;
    }
  if (err != NULL)
    dwarf_dealloc (dbg, err, DW_DLA_ERROR);
  if (hops <= 0)
    return NULL;
  static const Dwarf_Half via[2] = { DW_AT_specification, DW_AT_abstract_origin };
  for (int k = 0; k < 2 && s == NULL; k++)
    {
      err = NULL;
      Dwarf_Off off;
      Dwarf_Die target;
      if (dwarf_attr (die, via[k], &attr, &err) != DW_DLV_OK)
	{
	  if (err != NULL)
	    dwarf_dealloc (dbg, err, DW_DLA_ERROR);
	  continue;
	}
      int ok = dwarf_global_formref (attr, &off, &err);
      dwarf_dealloc (dbg, attr, DW_DLA_ATTR);
      if (ok == DW_DLV_OK && dwarf_offdie_b (dbg, off, true, &target, &err) == DW_DLV_OK)
	{
	  s = die_string (dbg, target, at, hops - 1);
	  dwarf_dealloc (dbg, target, DW_DLA_DIE);
	}
      if (err != NULL)
	dwarf_dealloc (dbg, err, DW_DLA_ERROR);
    }
  return s;
}

/* Add the function DIE of W's compilation unit, when it has an address
   range (DW_AT_low_pc and DW_AT_high_pc) and a name.  Functions in several
   ranges (DW_AT_ranges: a hot part and a cold one) are left to the symbol
   table.  */
static void
add_subprogram (struct dwarf_walk *w, Dwarf_Die die)
{
  Dwarf_Error err = NULL;
  Dwarf_Addr lo, hi;
  Dwarf_Half form;
  enum Dwarf_Form_Class cls;
  if (dwarf_lowpc (die, &lo, &err) != DW_DLV_OK
      || dwarf_highpc_b (die, &hi, &form, &cls, &err) != DW_DLV_OK)
    {
      if (err != NULL)
	dwarf_dealloc (w->dbg, err, DW_DLA_ERROR);
      return;
    }
  /* DWARF 4 and later give the high PC as a length.  */
  uint64_t end = hi;
  if (cls == DW_FORM_CLASS_CONSTANT && !add_checked (lo, hi, &end))
    return;
  if (end <= lo)
    return;
  const char *name = die_string (w->dbg, die, DW_AT_name, DWARF_MAX_HOPS);
  const char *linkage = die_string (w->dbg, die, DW_AT_linkage_name, DWARF_MAX_HOPS);
  if (linkage == NULL)
    linkage = die_string (w->dbg, die, DW_AT_MIPS_linkage_name, DWARF_MAX_HOPS);
  if (name == NULL)
    name = linkage;
  if (name == NULL)
    return;
  if (names_add (w->n, name, linkage, lo, end, w->cu) != 0)
    w->nomem = true;
}

/* Walk DIE and its siblings (DIE is then freed) at DEPTH, adding the
   functions to W: subprograms, and those inside namespaces, classes and
   modules.  Return DW_DLV_OK or DW_DLV_ERROR with *ERR set.  */
static int
walk_dies (struct dwarf_walk *w, Dwarf_Die die, int depth, Dwarf_Error *err)
{
  while (die != NULL && !w->nomem)
    {
      Dwarf_Half tag;
      if (dwarf_tag (die, &tag, err) != DW_DLV_OK)
	{
	  dwarf_dealloc (w->dbg, die, DW_DLA_DIE);
	  return DW_DLV_ERROR;
	}
      if (tag == DW_TAG_subprogram)
	add_subprogram (w, die);
      else if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type
		|| tag == DW_TAG_structure_type || tag == DW_TAG_union_type
		|| tag == DW_TAG_module) && depth < DWARF_MAX_DEPTH)
	{
	  Dwarf_Die child;
	  int r = dwarf_child (die, &child, err);
	  if (r == DW_DLV_OK)
	    r = walk_dies (w, child, depth + 1, err);
	  if (r == DW_DLV_ERROR)
	    {
	      dwarf_dealloc (w->dbg, die, DW_DLA_DIE);
	      return r;
	    }
	}
      Dwarf_Die next = NULL;
      int r = libdwarf_sibling (w->dbg, die, &next, err);
      dwarf_dealloc (w->dbg, die, DW_DLA_DIE);
      if (r == DW_DLV_ERROR)
	return r;
      die = r == DW_DLV_OK ? next : NULL;
    }
  if (die != NULL)
    dwarf_dealloc (w->dbg, die, DW_DLA_DIE);
  return DW_DLV_OK;
}

/* Append NAME as a compilation unit of N.  Return its index, or NO_CU
   when out of memory.  */
static size_t
add_cu (struct names *n, const char *name)
{
  if (n->ncus == n->cucap)
    {
      size_t cap = n->cucap == 0 ? 64 : 2 * n->cucap;
      char **grown = realloc (n->cus, cap * sizeof *grown);
      if (grown == NULL)
	return NO_CU;
      n->cus = grown;
      n->cucap = cap;
    }
  n->cus[n->ncus] = strdup (name);
  return n->cus[n->ncus] == NULL ? NO_CU : n->ncus++;
}

/* Read the functions and compilation units of the DWARF in FD into N.
   Return 0, or -1 with the reason in WHY (LEN bytes).  */
static int
dwarf_names (int fd, struct names *n, char *why, size_t len)
{
  Dwarf_Debug dbg = NULL;
  Dwarf_Error err = NULL;
  int r = libdwarf_begin (fd, &dbg, &err);
  if (r != DW_DLV_OK)
    {
      snprintf (why, len, "%s", r == DW_DLV_ERROR ? dwarf_errmsg (err) : "no DWARF");
      if (err != NULL)
	dwarf_dealloc (NULL, err, DW_DLA_ERROR);
      return -1;
    }
  struct dwarf_walk w = { .dbg = dbg, .n = n };
  int ret = 0;
  for (;;)
    {
      Dwarf_Die cu;
      r = libdwarf_next_unit (dbg, &cu, &err);
      if (r == DW_DLV_NO_ENTRY)
	break;
      if (r == DW_DLV_OK && cu == NULL)
	continue;
      if (r == DW_DLV_ERROR)
	{
	  snprintf (why, len, "%s", dwarf_errmsg (err));
	  ret = -1;
	  break;
	}
      char *cuname = NULL;
      Dwarf_Error e2 = NULL;
      if (dwarf_diename (cu, &cuname, &e2) != DW_DLV_OK)
	cuname = NULL;
      if (e2 != NULL)
	dwarf_dealloc (dbg, e2, DW_DLA_ERROR);
      w.cu = add_cu (n, cuname != NULL ? cuname : "?");
      Dwarf_Die child = NULL;
      if (w.cu == NO_CU)
	w.nomem = true;
      else if ((r = dwarf_child (cu, &child, &err)) == DW_DLV_OK)
	r = walk_dies (&w, child, 1, &err);
      dwarf_dealloc (dbg, cu, DW_DLA_DIE);
      if (w.nomem)
	{
	  snprintf (why, len, "out of memory");
	  ret = -1;
	  break;
	}
      if (r == DW_DLV_ERROR)
	{
	  snprintf (why, len, "%s", dwarf_errmsg (err));
	  ret = -1;
	  break;
	}
    }
  if (err != NULL)
    dwarf_dealloc (dbg, err, DW_DLA_ERROR);
  libdwarf_end (dbg);
  return ret;
}
#endif

/* Add to N (from DWARF) the functions of SYMBOLS whose address DWARF does
   not cover: the cold parts of split functions, assembly.  Both sorted.
   Return 0, or -1 when out of memory.  */
static int
add_uncovered_symbols (struct names *n, const struct names *symbols)
{
  size_t have = n->nfuncs, j = 0;
  uint64_t covered = 0;		/* DWARF covers [.., COVERED) of those before J */
  for (size_t i = 0; i < symbols->nfuncs; i++)
    {
      const struct function *s = &symbols->funcs[i];
      while (j < have && n->funcs[j].lo <= s->lo)
	{
	  if (n->funcs[j].hi > covered)
	    covered = n->funcs[j].hi;
	  j++;
	}
      if (s->lo < covered || (j < have && n->funcs[j].lo < s->hi))
	continue;
      if (names_add (n, s->name, NULL, s->lo, s->hi, NO_CU) != 0)
	return -1;
      n->from_symbols++;
    }
  names_sort (n);
  return 0;
}

/* Find the names of FILE (named NAME) into *NAMES, and its symbols into
   *SYMBOLS: DWARF from the file or its separate debug file when this
   build reads DWARF, else (or when the DWARF cannot be read, which is said
   once on ERRORS) the symbol table.  Return 0, or -1 when out of memory.  */
int
names_find (const struct elf_file *file, const char *name, const char *debug_root, bool no_dwarf,
	    struct names *names, struct names *symbols, FILE *errors)
{
  struct debug_file d = { .fd = -1 };
  const char *dwarf_path = NULL;
  int dwarf_fd = -1;
  const char *found_by = NULL;
  if (has_dwarf (file->elf))
    {
      dwarf_path = name;
      dwarf_fd = file->fd;
      found_by = "file";
    }
  else if (find_debug_file (file, name, debug_root, &d, errors))
    {
      dwarf_path = d.path;
      dwarf_fd = d.fd;
      found_by = d.found_by;
    }
  int ret = -1;
  if (load_symbols (file, name, d.elf, d.path, symbols) != 0)
    goto done;

  if (dwarf_path != NULL)
    {
      char why[512] = "built without libdwarf";
#ifdef HAVE_LIBDWARF
      if (no_dwarf)
	snprintf (why, sizeof why, "DWARF reading is off (ELFPMD_MAP_NO_DWARF)");
      else if (dwarf_names (dwarf_fd, names, why, sizeof why) == 0)
	{
	  names->source = NAMES_DWARF;
	  names->found_by = found_by;
	  names->file = strdup (dwarf_path);
	  names_sort (names);
	  if (names->file == NULL || add_uncovered_symbols (names, symbols) != 0)
	    goto done;
	  ret = 0;
	  goto done;
	}
#else
      (void) dwarf_fd;
      (void) found_by;
#endif
      /* libdwarf's messages may span lines: the warning is one.  */
      for (char *c = why; *c != '\0'; c++)
	if (*c == '\n' || *c == '\r')
	  *c = ' ';
      fprintf (errors, "%s: %s: %s: %s: names from the symbol table\n", diag_program, name,
	       dwarf_path, why);
      names_free (names);
    }
  /* The symbol table is the names.  */
  *names = *symbols;
  memset (symbols, 0, sizeof *symbols);
  ret = 0;
done:
  debug_file_close (&d);
  return ret;
}
