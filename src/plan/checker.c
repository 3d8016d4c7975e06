/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The independent checker (see check.h).  Nothing here calls the planner:
   the output is judged from its final tables, the input's tables, and the
   list of copies and patches, as plain data.  */
#include <config.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arith.h"
#include "checker.h"
#include "stub_params.h"

/* The output's headers, from a plan or read back from a file.  */
struct view
{
  const GElf_Ehdr *eh;
  size_t phnum;
  const GElf_Phdr *ph;
  size_t shnum;
  const GElf_Shdr *sh;
  uint64_t size;
};

struct checker
{
  const struct elf_file *in;
  struct view out;		/* its sections in the input's order (canonical) */
  size_t *out_index;		/* the output's section index -> canonical */
  const struct plan_pieces *pieces;
  uint64_t pmd, page;
  const GElf_Phdr *extra;	/* the output's PT_LOAD the input does not have */
  int out_fd;			/* the written output, or -1 for a plan */
  const unsigned char *in_map, *out_map; /* the files' mapped images, or NULL */
  struct diag *err;
};

#ifndef EM_RISCV
# define EM_RISCV 243
#endif
#ifndef R_RISCV_RELATIVE
# define R_RISCV_RELATIVE 3
#endif
#ifndef DT_RELR
# define DT_RELRSZ 35
# define DT_RELR 36
#endif

#define FAIL(c, ...) diag_set ((c)->err, "internal error: " __VA_ARGS__)

/* The output's section I in the canonical order of C->out: the output
   holds the input's sections in their order, with the new ones anywhere
   among them; canonically those come after the input's
   (canonical_sections).  */
static size_t
canonical_index (const struct checker *c, size_t i)
{
  return c->out_index != NULL && i < c->out.shnum ? c->out_index[i] : i;
}

static bool
section_has_bytes (const GElf_Shdr *sh)
{
  return sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL && sh->sh_size != 0;
}

/* Whether [OFF, OFF + LEN) lies inside [0, SIZE).  */
static bool
inside (uint64_t off, uint64_t len, uint64_t size)
{
  return off <= size && len <= size - off;
}

static bool
ranges_overlap (uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
  return alen != 0 && blen != 0 && a < b + blen && b < a + alen;
}

/* Whether the bytes at file offset OFF, LEN long, are what some PT_LOAD of
   PH (N entries) maps at address ADDR.  */
static bool
loaded_in_place (const GElf_Phdr *ph, size_t n, uint64_t off, uint64_t addr, uint64_t len)
{
  for (size_t i = 0; i < n; i++)
    {
      const GElf_Phdr *l = &ph[i];
      if (l->p_type != PT_LOAD || off < l->p_offset || addr < l->p_vaddr)
	continue;
      uint64_t at = off - l->p_offset;
      if (at == addr - l->p_vaddr && at <= l->p_filesz && len <= l->p_filesz - at)
	return true;
    }
  return false;
}

/* The PT_LOAD of the output with address VADDR, or NULL.  */
static const GElf_Phdr *
out_load_at (const struct checker *c, uint64_t vaddr)
{
  for (size_t i = 0; i < c->out.phnum; i++)
    if (c->out.ph[i].p_type == PT_LOAD && c->out.ph[i].p_vaddr == vaddr)
      return &c->out.ph[i];
  return NULL;
}

/* Whether [ADDR, ADDR + LEN) lies in the extra PT_LOAD's memory.  */
static bool
in_extra (const struct checker *c, uint64_t addr, uint64_t len)
{
  const GElf_Phdr *x = c->extra;
  return x != NULL && addr >= x->p_vaddr && addr - x->p_vaddr <= x->p_memsz
	 && len <= x->p_memsz - (addr - x->p_vaddr);
}

/* --- Which output bytes come from where.  */

/* One piece of the output, for sorting.  */
struct span
{
  uint64_t start, end;
};

static int
span_cmp (const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether output [TO, TO + LEN) is covered by copies of input [FROM, ...)
   at the same distance and by patches.  */
static int
covered (const struct checker *c, uint64_t from, uint64_t to, uint64_t len, bool *ok)
{
  const struct plan_pieces *p = c->pieces;
  struct span *s = calloc (p->ncopies + p->npatches + 1, sizeof *s);
  if (s == NULL)
    return diag_set (c->err, "out of memory");
  size_t n = 0;
  uint64_t end = to + len;
  for (size_t k = 0; k < p->ncopies; k++)
    {
      const struct plan_copy *cp = &p->copies[k];
      if (cp->to - cp->from != to - from || !ranges_overlap (cp->to, cp->len, to, len))
	continue;
      s[n++] = (struct span) { cp->to > to ? cp->to : to,
			       cp->to + cp->len < end ? cp->to + cp->len : end };
    }
  for (size_t k = 0; k < p->npatches; k++)
    {
      const struct plan_patch *pt = &p->patches[k];
      if (ranges_overlap (pt->offset, pt->len, to, len))
	s[n++] = (struct span) { pt->offset > to ? pt->offset : to,
				 pt->offset + pt->len < end ? pt->offset + pt->len : end };
    }
  qsort (s, n, sizeof *s, span_cmp);
  uint64_t pos = to;
  for (size_t k = 0; k < n && pos < end; k++)
    if (s[k].start <= pos && s[k].end > pos)
      pos = s[k].end;
  *ok = len == 0 || pos >= end;
  free (s);
  return 0;
}

/* Read LEN bytes at OFF of FD into BUF, all of them.  */
static bool
read_full (int fd, void *buf, size_t len, uint64_t off)
{
  for (size_t done = 0; done < len;)
    {
      ssize_t n = pread (fd, (char *) buf + done, len - done, (off_t) (off + done));
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	return false;
      done += (size_t) n;
    }
  return true;
}

/* Whether output byte AT is inside a patch.  */
static bool
patched (const struct checker *c, uint64_t at)
{
  for (size_t k = 0; k < c->pieces->npatches; k++)
    {
      const struct plan_patch *pt = &c->pieces->patches[k];
      if (at >= pt->offset && at - pt->offset < pt->len)
	return true;
    }
  return false;
}

/* Compare LEN bytes of the input at FROM with the output at TO, but for
   patched bytes: in the files' mapped images (libelf maps both), or read
   where a file is not mapped.  */
static int
compare_bytes (const struct checker *c, uint64_t from, uint64_t to, uint64_t len, const char *what)
{
  unsigned char a[65536], b[65536];
  while (len > 0)
    {
      size_t n = len < sizeof a ? (size_t) len : sizeof a;
      const unsigned char *x = c->in_map != NULL ? c->in_map + from : a;
      const unsigned char *y = c->out_map != NULL ? c->out_map + to : b;
      if ((c->in_map == NULL && !read_full (c->in->fd, a, n, from))
	  || (c->out_map == NULL && !read_full (c->out_fd, b, n, to)))
	return diag_set (c->err, "cannot read back the output: %s",
			 errno != 0 ? strerror (errno) : "short read");
      if (memcmp (x, y, n) != 0)
	for (size_t k = 0; k < n; k++)
	  if (x[k] != y[k] && !patched (c, to + k))
	    return FAIL (c, "%s: input byte %#" PRIx64 " is not at output offset %#" PRIx64,
			 what, from + k, to + k);
      from += n;
      to += n;
      len -= n;
    }
  return 0;
}

/* Check that the LEN bytes of WHAT at input FROM are the output's at TO:
   through the copies and patches of a plan, or read back.  */
static int
check_content (const struct checker *c, uint64_t from, uint64_t to, uint64_t len, const char *what)
{
  if (len == 0)
    return 0;
  if (!inside (to, len, c->out.size))
    return FAIL (c, "%s [%#" PRIx64 ", +%#" PRIx64 ") extends past the output's end", what, to, len);
  if (c->out_fd < 0)
    {
      bool ok = false;
      if (covered (c, from, to, len, &ok) != 0)
	return -1;
      return ok ? 0 : FAIL (c, "%s: input [%#" PRIx64 ", +%#" PRIx64 ") does not land at %#" PRIx64,
			    what, from, len, to);
    }
  const uint64_t edge = 16 << 10, stride = (uint64_t) 4 << 20;
  if (c->out.size <= CHECK_READ_BACK_WHOLE || len <= 2 * edge)
    return compare_bytes (c, from, to, len, what);
  if (compare_bytes (c, from, to, edge, what) != 0
      || compare_bytes (c, from + len - edge, to + len - edge, edge, what) != 0)
    return -1;
  for (uint64_t at = edge; at + 4096 <= len - edge; at += stride)
    if (compare_bytes (c, from + at, to + at, 4096, what) != 0)
      return -1;
  return 0;
}

/* --- The header tables.  */

static int
check_ehdr (const struct checker *c)
{
  const GElf_Ehdr *a = &c->in->ehdr, *b = c->out.eh;
  if (memcmp (a->e_ident, b->e_ident, EI_NIDENT) != 0 || a->e_type != b->e_type
      || a->e_machine != b->e_machine || a->e_version != b->e_version || a->e_flags != b->e_flags
      || a->e_ehsize != b->e_ehsize || (a->e_phnum != 0 && a->e_phentsize != b->e_phentsize)
      || (c->in->shnum != 0 && a->e_shentsize != b->e_shentsize))
    return FAIL (c, "the ELF header changed beyond offsets, counts and the entry point");
  if (b->e_entry != a->e_entry && !in_extra (c, b->e_entry, 1))
    return FAIL (c, "e_entry %#" PRIx64 " moved, but not into the stub's segment",
		 (uint64_t) b->e_entry);
  return 0;
}

/* A byte range of the output or input, named for messages.  */
struct range
{
  uint64_t start, len;
  int kind;			/* 0 ELF header, 1 program headers, 2 section headers, 3 section, 4 patch */
  size_t index;
};

static int
range_cmp (const void *a, const void *b)
{
  const struct range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static const char *
range_name (const struct range *r, char *buf, size_t len)
{
  static const char *const names[] = {
    "the ELF header", "the program header table", "the section header table",
  };
  if (r->kind < 3)
    return names[r->kind];
  snprintf (buf, len, r->kind == 3 ? "section %zu" : "patch %zu", r->index);
  return buf;
}

/* The input's range for the same thing as R, if it has one.  */
static bool
input_range (const struct checker *c, const struct range *r, struct range *out)
{
  const struct elf_file *in = c->in;
  *out = *r;
  switch (r->kind)
    {
    case 0: out->start = 0; out->len = elf_ehdr_size (in->elfclass); return true;
    case 1: out->start = in->ehdr.e_phoff; out->len = (uint64_t) in->phnum * elf_phdr_size (in->elfclass); return true;
    case 2: out->start = in->ehdr.e_shoff; out->len = (uint64_t) in->shnum * elf_shdr_size (in->elfclass); return in->shnum != 0;
    case 3:
      if (r->index >= in->shnum || !section_has_bytes (&in->shdrs[r->index]))
	return false;
      out->start = in->shdrs[r->index].sh_offset;
      out->len = in->shdrs[r->index].sh_size;
      return true;
    default: return false;
    }
}

/* Whether R is a new section that describes the program header table T
   (a table moved into the stub's segment gets one, so that strip keeps it,
   up to the stub's 16-byte aligned code).  */
static bool
covers_table (const struct checker *c, const struct range *r, const struct range *t)
{
  return r->kind == 3 && r->index >= c->in->shnum && t->kind == 1 && r->start == t->start
	 && r->len >= t->len && r->len - t->len < 16;
}

/* Every byte range of the output inside it, and no two overlapping unless
   the same two overlapped in the input.  */
static int
check_ranges (const struct checker *c)
{
  const struct view *o = &c->out;
  size_t max = 3 + o->shnum + c->pieces->npatches;
  struct range *r = calloc (max, sizeof *r);
  if (r == NULL)
    return diag_set (c->err, "out of memory");
  size_t n = 0;
  r[n++] = (struct range) { 0, elf_ehdr_size (c->in->elfclass), 0, 0 };
  if (o->phnum != 0)
    r[n++] = (struct range) { o->eh->e_phoff, (uint64_t) o->phnum * elf_phdr_size (c->in->elfclass), 1, 0 };
  if (o->shnum != 0)
    r[n++] = (struct range) { o->eh->e_shoff, (uint64_t) o->shnum * elf_shdr_size (c->in->elfclass), 2, 0 };
  for (size_t i = 1; i < o->shnum; i++)
    if (section_has_bytes (&o->sh[i]))
      r[n++] = (struct range) { o->sh[i].sh_offset, o->sh[i].sh_size, 3, i };
  for (size_t k = 0; k < c->pieces->npatches; k++)
    if (c->pieces->patches[k].kind == PATCH_CLEAR)
      r[n++] = (struct range) { c->pieces->patches[k].offset, c->pieces->patches[k].len, 4, k };
  int ret = 0;
  char b1[32], b2[32];
  for (size_t k = 0; k < n && ret == 0; k++)
    if (!inside (r[k].start, r[k].len, o->size))
      ret = FAIL (c, "%s [%#" PRIx64 ", +%#" PRIx64 ") extends past the output's end %#" PRIx64,
		  range_name (&r[k], b1, sizeof b1), r[k].start, r[k].len, o->size);
  qsort (r, n, sizeof *r, range_cmp);
  size_t reach = SIZE_MAX;	/* the range reaching furthest so far */
  for (size_t k = 0; k < n && ret == 0; k++)
    {
      if (r[k].len == 0)
	continue;
      if (reach != SIZE_MAX && r[k].start < r[reach].start + r[reach].len)
	{
	  struct range a, b;
	  if (!covers_table (c, &r[reach], &r[k]) && !covers_table (c, &r[k], &r[reach])
	      && (!input_range (c, &r[reach], &a) || !input_range (c, &r[k], &b)
		  || !ranges_overlap (a.start, a.len, b.start, b.len)))
	    ret = FAIL (c, "%s [%#" PRIx64 ", +%#" PRIx64 ") would overlap %s [%#" PRIx64 ", +%#" PRIx64 ")",
			range_name (&r[k], b1, sizeof b1), r[k].start, r[k].len,
			range_name (&r[reach], b2, sizeof b2), r[reach].start, r[reach].len);
	}
      if (reach == SIZE_MAX || r[k].start + r[k].len > r[reach].start + r[reach].len)
	reach = k;
    }
  free (r);
  return ret;
}

/* PT_LOADs: each of the input's present with its address, sizes and flags,
   at most one more (the stub's, read-only and above all), sorted and apart
   in memory, congruent as the kernel and glibc before 2.35 require, and a
   raised p_align only the PMD size on a read-only segment.  */
static int
check_loads (struct checker *c)
{
  const struct elf_file *in = c->in;
  size_t nin = 0, nout = 0;
  for (size_t i = 0; i < in->phnum; i++)
    {
      const GElf_Phdr *a = &in->phdrs[i];
      if (a->p_type != PT_LOAD)
	continue;
      nin++;
      const GElf_Phdr *b = out_load_at (c, a->p_vaddr);
      if (b == NULL || b->p_memsz != a->p_memsz || b->p_filesz != a->p_filesz
	  || b->p_flags != a->p_flags)
	return FAIL (c, "PT_LOAD %zu (address %#" PRIx64 ") is not in the output as it was", i,
		     (uint64_t) a->p_vaddr);
      uint64_t d0 = a->p_vaddr - a->p_offset, d1 = b->p_vaddr - b->p_offset;
      if ((d0 & (c->page - 1)) == 0 && (d1 & (c->page - 1)) != 0)
	return FAIL (c, "PT_LOAD %zu would not be page-congruent", i);
      if (a->p_align > 1 && (d0 & (a->p_align - 1)) == 0 && (d1 & (b->p_align - 1)) != 0)
	return FAIL (c, "PT_LOAD %zu would not be congruent modulo p_align (glibc < 2.35 rule)", i);
      if (b->p_align != a->p_align
	  && (b->p_align != c->pmd || b->p_align < a->p_align || (b->p_flags & PF_W)
	      || (d1 & (c->pmd - 1)) != 0))
	return FAIL (c, "PT_LOAD %zu: p_align %#" PRIx64 " -> %#" PRIx64 " is not a congruent PMD "
		     "alignment of a read-only segment", i, (uint64_t) a->p_align, (uint64_t) b->p_align);
      if (!inside (b->p_offset, b->p_filesz, c->out.size))
	return FAIL (c, "PT_LOAD %zu would extend past the output's end", i);
      if (check_content (c, a->p_offset, b->p_offset, a->p_filesz, "a PT_LOAD") != 0)
	return -1;
    }
  const GElf_Phdr *prev = NULL;
  uint64_t top = 0, file_top = 0;
  for (size_t i = 0; i < c->out.phnum; i++)
    {
      const GElf_Phdr *b = &c->out.ph[i];
      if (b->p_type != PT_LOAD)
	continue;
      nout++;
      if (prev != NULL && (b->p_vaddr < prev->p_vaddr || b->p_vaddr - prev->p_vaddr < prev->p_memsz))
	return FAIL (c, "PT_LOAD %zu would not be sorted, or would overlap the one before", i);
      prev = b;
      bool known = false;
      for (size_t k = 0; k < in->phnum && !known; k++)
	known = in->phdrs[k].p_type == PT_LOAD && in->phdrs[k].p_vaddr == b->p_vaddr;
      if (known)
	{
	  if (b->p_vaddr + b->p_memsz > top)
	    top = b->p_vaddr + b->p_memsz;
	  if (b->p_offset + b->p_filesz > file_top)
	    file_top = b->p_offset + b->p_filesz;
	  continue;
	}
      if (c->extra != NULL)
	return FAIL (c, "the output would have more than one new PT_LOAD");
      c->extra = b;
    }
  if (nout != nin + (c->extra != NULL))
    return FAIL (c, "the output's PT_LOADs are not the input's plus at most one");
  const GElf_Phdr *x = c->extra;
  if (x != NULL
      && ((x->p_flags & PF_W) || x->p_vaddr < top || x->p_offset < file_top || x->p_filesz > x->p_memsz
	  || !inside (x->p_offset, x->p_filesz, c->out.size)
	  || (x->p_align & (x->p_align - 1)) != 0 || x->p_align < c->page
	  || (x->p_align > c->page && x->p_align > ((uint64_t) 64 << 10))
	  || ((x->p_vaddr - x->p_offset) & (x->p_align - 1)) != 0))
    return FAIL (c, "the stub's PT_LOAD at %#" PRIx64 " is not a read-only segment congruent "
		 "modulo its p_align (the page size, or a power of two above it up to 64 KiB), "
		 "above every other and after every other's contents", (uint64_t) x->p_vaddr);
  return 0;
}

/* A program header the stub may take over.  */
static bool
droppable (const GElf_Phdr *ph)
{
  return ph->p_type == PT_NULL || ph->p_type == PT_NOTE || ph->p_type == PT_PHDR;
}

/* Other program headers: the input's in order, at most one dropped, each
   with its type, flags, sizes and alignment, at its address or moved into
   the stub's segment, loaded in place if it was, with its bytes.  */
static int
check_other_segments (const struct checker *c)
{
  const struct elf_file *in = c->in;
  size_t j = 0, dropped = 0;
  uint64_t table = (uint64_t) c->out.phnum * elf_phdr_size (in->elfclass);
  for (size_t i = 0; i < in->phnum; i++)
    {
      const GElf_Phdr *a = &in->phdrs[i];
      if (a->p_type == PT_LOAD)
	continue;
      while (j < c->out.phnum && c->out.ph[j].p_type == PT_LOAD)
	j++;
      const GElf_Phdr *b = j < c->out.phnum ? &c->out.ph[j] : NULL;
      /* A PT_PHDR that describes the table follows it as it grows or moves;
	 one that does not (a hostile input) is like any other header.  */
      bool phdr = a->p_type == PT_PHDR && a->p_offset == in->ehdr.e_phoff
		  && a->p_filesz == (uint64_t) in->phnum * elf_phdr_size (in->elfclass);
      bool same = b != NULL && b->p_type == a->p_type && b->p_flags == a->p_flags
		  && b->p_align == a->p_align
		  && (phdr || (b->p_filesz == a->p_filesz && b->p_memsz == a->p_memsz))
		  && (b->p_vaddr == a->p_vaddr || in_extra (c, b->p_vaddr, b->p_memsz));
      if (!same)
	{
	  if (droppable (a) && dropped++ == 0 && c->extra != NULL)
	    continue;
	  return FAIL (c, "program header %zu (%s) is not in the output as it was", i,
		       elf_phdr_type_name (a->p_type));
	}
      j++;
      if (phdr && (b->p_offset != c->out.eh->e_phoff || b->p_filesz != table))
	return FAIL (c, "PT_PHDR would not describe the program header table");
      if (b->p_vaddr != a->p_vaddr && !in_extra (c, b->p_vaddr, b->p_memsz))
	return FAIL (c, "program header %zu moved in memory, but not into the stub's segment", i);
      if (a->p_filesz != 0
	  && loaded_in_place (in->phdrs, in->phnum, a->p_offset, a->p_vaddr, a->p_filesz)
	  && !loaded_in_place (c->out.ph, c->out.phnum, b->p_offset, b->p_vaddr, b->p_filesz))
	return FAIL (c, "%s %zu would not be loaded where its address says", elf_phdr_type_name (a->p_type), i);
      if (!phdr && check_content (c, a->p_offset, b->p_offset, a->p_filesz, elf_phdr_type_name (a->p_type)) != 0)
	return -1;
    }
  for (; j < c->out.phnum; j++)
    if (c->out.ph[j].p_type != PT_LOAD)
      return FAIL (c, "program header %zu of the output is new", j);
  return 0;
}

/* The program header table where programs find it: AT_PHDR as kernels
   before 5.18 compute it (first PT_LOAD's address minus offset, plus
   e_phoff) inside a PT_LOAD that maps the table there, and PT_PHDR saying
   the same; for shared objects, PT_PHDR inside the PT_LOAD holding it.
   Only what held in the input is required.  */
static bool
table_found (const struct elf_file *f, const GElf_Ehdr *eh, const GElf_Phdr *ph, size_t n,
	     bool by_kernel)
{
  uint64_t size = (uint64_t) n * elf_phdr_size (f->elfclass);
  const GElf_Phdr *first = NULL, *phdr = NULL;
  for (size_t i = 0; i < n; i++)
    {
      if (ph[i].p_type == PT_LOAD && first == NULL)
	first = &ph[i];
      if (ph[i].p_type == PT_PHDR && phdr == NULL)
	phdr = &ph[i];
    }
  if (by_kernel)
    {
      if (first == NULL)
	return false;
      uint64_t at = first->p_vaddr - first->p_offset + eh->e_phoff;
      return loaded_in_place (ph, n, eh->e_phoff, at, size) && (phdr == NULL || phdr->p_vaddr == at);
    }
  return phdr == NULL || (phdr->p_offset == eh->e_phoff
			  && loaded_in_place (ph, n, phdr->p_offset, phdr->p_vaddr, size));
}

static int
check_at_phdr (const struct checker *c)
{
  const struct elf_file *in = c->in;
  if (in->phnum == 0)
    return 0;
  bool by_kernel = in->kind != OBJECT_SHARED || in->has_interp || in->ehdr.e_entry != 0;
  if (table_found (in, &in->ehdr, in->phdrs, in->phnum, by_kernel)
      && !table_found (in, c->out.eh, c->out.ph, c->out.phnum, by_kernel))
    return FAIL (c, "%s", by_kernel ? "AT_PHDR for kernels before 5.18 would miss the program header table"
		 : "PT_PHDR would not find the program header table");
  return 0;
}

/* Whether the pieces hold a patch of KIND at output offset OFFSET, LEN
   bytes long.  */
static bool
has_patch (const struct checker *c, enum patch_kind kind, uint64_t offset, uint64_t len)
{
  for (size_t k = 0; k < c->pieces->npatches; k++)
    {
      const struct plan_patch *p = &c->pieces->patches[k];
      if (p->kind == kind && p->offset == offset && p->len == len)
	return true;
    }
  return false;
}

/* Whether the input's section I (A in the input, B in the output) is a
   symbol table, or the string table of one, that grew by exactly the patch
   of the stub's symbols, or of their names, right after its old bytes.  */
static bool
grown_by_stub (const struct checker *c, size_t i, const GElf_Shdr *a, const GElf_Shdr *b)
{
  if ((a->sh_flags & SHF_ALLOC) || b->sh_size <= a->sh_size || b->sh_offset > UINT64_MAX - a->sh_size)
    return false;
  if (a->sh_type == SHT_SYMTAB)
    return has_patch (c, PATCH_STUB_SYMBOLS, b->sh_offset + a->sh_size, b->sh_size - a->sh_size);
  if (a->sh_type != SHT_STRTAB || i == c->out.eh->e_shstrndx)
    return false;
  for (size_t j = 1; j < c->in->shnum; j++)
    if (c->in->shdrs[j].sh_type == SHT_SYMTAB && c->in->shdrs[j].sh_link == i)
      return has_patch (c, PATCH_STUB_NAMES, b->sh_offset + a->sh_size, b->sh_size - a->sh_size);
  return false;
}

/* Sections: the input's with their types, sizes and addresses (or moved
   into the stub's segment), loaded in place if they were, their bytes where
   their offsets say, and the map monotone for those that stay.  Only the
   section name table and a symbol table and its string table extended by
   the stub's symbols grow (and move after the stub's segment).  */
static int
check_sections (const struct checker *c)
{
  const struct elf_file *in = c->in;
  if (c->out.shnum < in->shnum)
    return FAIL (c, "the output would have fewer sections");
  struct span *moves = calloc (in->shnum + in->phnum + 1, sizeof *moves);
  if (moves == NULL)
    return diag_set (c->err, "out of memory");
  size_t nmoves = 0;
  int ret = 0;
  for (size_t i = 1; i < in->shnum && ret == 0; i++)
    {
      const GElf_Shdr *a = &in->shdrs[i], *b = &c->out.sh[i];
      bool names = (a->sh_type == SHT_STRTAB && b->sh_size > a->sh_size && !(a->sh_flags & SHF_ALLOC)
		    && i == c->out.eh->e_shstrndx)
		   || grown_by_stub (c, i, a, b);
      if (a->sh_name != b->sh_name || a->sh_type != b->sh_type || a->sh_flags != b->sh_flags
	  || (a->sh_size != b->sh_size && !names) || a->sh_link != b->sh_link
	  || a->sh_info != b->sh_info || a->sh_addralign != b->sh_addralign
	  || a->sh_entsize != b->sh_entsize)
	ret = FAIL (c, "section %zu changed beyond its place", i);
      else if (a->sh_addr != b->sh_addr && !((a->sh_flags & SHF_ALLOC) && in_extra (c, b->sh_addr, b->sh_size)))
	ret = FAIL (c, "section %zu moved in memory, but not into the stub's segment", i);
      else if (!section_has_bytes (a))
	continue;
      else if ((a->sh_flags & SHF_ALLOC)
	       && loaded_in_place (in->phdrs, in->phnum, a->sh_offset, a->sh_addr, a->sh_size)
	       && !loaded_in_place (c->out.ph, c->out.phnum, b->sh_offset, b->sh_addr, b->sh_size))
	ret = FAIL (c, "section %zu at offset %#" PRIx64 " would not be loaded where its address says",
		    i, (uint64_t) b->sh_offset);
      else
	{
	  char what[32];
	  snprintf (what, sizeof what, "section %zu", i);
	  ret = check_content (c, a->sh_offset, b->sh_offset, a->sh_size, what);
	  if (a->sh_addr == b->sh_addr && !names)
	    moves[nmoves++] = (struct span) { a->sh_offset, b->sh_offset };
	}
    }
  for (size_t i = 0; i < in->phnum && ret == 0; i++)
    {
      const GElf_Phdr *b = in->phdrs[i].p_type == PT_LOAD ? out_load_at (c, in->phdrs[i].p_vaddr) : NULL;
      if (b != NULL && in->phdrs[i].p_filesz != 0)
	moves[nmoves++] = (struct span) { in->phdrs[i].p_offset, b->p_offset };
    }
  /* What stays in place keeps its order, and the distance it moved never
     shrinks along the file: holes only open.  */
  qsort (moves, nmoves, sizeof *moves, span_cmp);
  for (size_t k = 1; k < nmoves && ret == 0; k++)
    if (moves[k].end - moves[k].start < moves[k - 1].end - moves[k - 1].start
	|| moves[k].end < moves[k].start || moves[k - 1].end < moves[k - 1].start)
      ret = FAIL (c, "the offset map would not be monotone at input offset %#" PRIx64, moves[k].start);
  free (moves);
  return ret;
}

/* The output grows by at most one PMD per PT_LOAD (a hole before each)
   plus the stub's segment and the tables after it.  */
static int
check_growth (const struct checker *c)
{
  const struct elf_file *in = c->in;
  uint64_t bound = (uint64_t) in->st.st_size, pad;
  if (!mul_checked (in->nloads, c->pmd, &pad) || !add_checked (bound, pad, &bound))
    return 0;
  if (c->extra != NULL)
    {
      /* (the copies of the string and symbol tables, and 16 KiB for the
	 MiniDebugInfo, the stub's symbols and their names) */
      uint64_t stub = c->pmd + c->extra->p_filesz + c->extra->p_align
		      + (uint64_t) c->out.shnum * elf_shdr_size (in->elfclass) + (16 << 10);
      for (size_t i = 0; i < in->shnum; i++)
	if (in->shdrs[i].sh_type == SHT_STRTAB || in->shdrs[i].sh_type == SHT_SYMTAB)
	  stub += in->shdrs[i].sh_size;
      if (!add_checked (bound, stub, &bound))
	return 0;
    }
  if (c->out.size > bound)
    return FAIL (c, "the output would grow from %#" PRIx64 " to %#" PRIx64 " bytes, past the bound %#" PRIx64,
		 (uint64_t) in->st.st_size, c->out.size, bound);
  return 0;
}

/* --- Patches: each where its kind belongs, saying what it must.  */

/* Decode one dynamic entry or symbol of the input's class and byte order.  */
static bool
decode (const struct elf_file *f, Elf_Type type, const unsigned char *bytes, size_t len, void *out)
{
  unsigned char native[sizeof (GElf_Sym) > sizeof (GElf_Dyn) ? sizeof (GElf_Sym) : sizeof (GElf_Dyn)];
  size_t fsize = f->elfclass == ELFCLASS32 ? elf32_fsize (type, 1, EV_CURRENT) : elf64_fsize (type, 1, EV_CURRENT);
  if (len != fsize || fsize > sizeof native)
    return false;
  Elf_Data s = { .d_buf = (void *) bytes, .d_type = type, .d_size = len, .d_version = EV_CURRENT };
  Elf_Data d = { .d_buf = native, .d_type = type, .d_size = len, .d_version = EV_CURRENT };
  if ((f->elfclass == ELFCLASS32 ? elf32_xlatetom (&d, &s, (unsigned) f->data)
       : elf64_xlatetom (&d, &s, (unsigned) f->data)) == NULL)
    return false;
  if (f->elfclass == ELFCLASS64)
    memcpy (out, native, len);
  else if (type == ELF_T_DYN)
    {
      const Elf32_Dyn *x = (const Elf32_Dyn *) native;
      *(GElf_Dyn *) out = (GElf_Dyn) { .d_tag = x->d_tag, .d_un.d_val = x->d_un.d_val };
    }
  else
    {
      const Elf32_Sym *x = (const Elf32_Sym *) native;
      *(GElf_Sym *) out = (GElf_Sym) { .st_name = x->st_name, .st_value = x->st_value,
				       .st_size = x->st_size, .st_info = x->st_info,
				       .st_other = x->st_other, .st_shndx = x->st_shndx };
    }
  return true;
}

/* Entry INDEX of the input's first PT_DYNAMIC into *D.  */
static bool
input_dyn (const struct elf_file *in, size_t index, GElf_Dyn *d)
{
  return in->dyn != NULL && index < in->ndyn && gelf_getdyn (in->dyn, (int) index, d) != NULL;
}

/* What the stub's hook points at and what it continues to, for the check of
   its parameters.  */
struct hook
{
  bool found;
  uint64_t entry;		/* the stub's entry point */
  uint64_t target;		/* what it must continue to (0: return) */
};

static int
check_dyn_patch (const struct checker *c, const struct plan_patch *p, struct hook *h)
{
  const struct elf_file *in = c->in;
  size_t entsize = gelf_fsize (in->elf, ELF_T_DYN, 1, EV_CURRENT);
  const GElf_Phdr *dyn = NULL;
  for (size_t i = 0; i < c->out.phnum && dyn == NULL; i++)
    if (c->out.ph[i].p_type == PT_DYNAMIC)
      dyn = &c->out.ph[i];
  GElf_Dyn now, was;
  if (dyn == NULL || p->offset < dyn->p_offset || p->offset - dyn->p_offset >= dyn->p_filesz
      || (p->offset - dyn->p_offset) % entsize != 0 || !decode (in, ELF_T_DYN, p->bytes, p->len, &now))
    return FAIL (c, "a dynamic entry patch at %#" PRIx64 " is not one entry of PT_DYNAMIC", p->offset);
  size_t k = (p->offset - dyn->p_offset) / entsize;
  GElf_Dyn next;
  if (!input_dyn (in, k, &was))
    return FAIL (c, "dynamic entry %zu of the input cannot be read", k);
  if (now.d_tag == DT_INIT && in_extra (c, now.d_un.d_ptr, 1)
      && (was.d_tag == DT_INIT
	  || (was.d_tag == DT_NULL && input_dyn (in, k + 1, &next) && next.d_tag == DT_NULL)))
    {
      if (h->found)
	return FAIL (c, "the stub would be hooked twice (DT_INIT too)");
      *h = (struct hook) { true, now.d_un.d_ptr, was.d_tag == DT_INIT ? was.d_un.d_ptr : 0 };
      return 0;
    }
  if (now.d_tag == was.d_tag && (now.d_tag == DT_GNU_HASH || now.d_tag == DT_HASH))
    for (size_t i = 1; i < in->shnum; i++)
      if (in->shdrs[i].sh_type == (now.d_tag == DT_HASH ? SHT_HASH : SHT_GNU_HASH)
	  && in->shdrs[i].sh_addr == was.d_un.d_ptr && c->out.sh[i].sh_addr == now.d_un.d_ptr)
	return 0;
  return FAIL (c, "dynamic entry %zu would change from tag %" PRId64 " value %#" PRIx64
	       " to tag %" PRId64 " value %#" PRIx64, k, (int64_t) was.d_tag,
	       (uint64_t) was.d_un.d_val, (int64_t) now.d_tag, (uint64_t) now.d_un.d_val);
}

/* --- The hook through the first entry of DT_INIT_ARRAY (riscv64), read
   here from the input's dynamic section and relocations on its own.  */

/* The relative relocation type of MACHINE, 0 if not known here.  */
static uint64_t
relative_type (unsigned machine)
{
  switch (machine)
    {
    case EM_X86_64: return R_X86_64_RELATIVE;
    case EM_AARCH64: return R_AARCH64_RELATIVE;
    case EM_RISCV: return R_RISCV_RELATIVE;
    default: return 0;
    }
}

/* The unsigned integer of SIZE bytes at P in byte order DATA.  */
static uint64_t
word_at (const unsigned char *p, size_t size, int data)
{
  uint64_t v = 0;
  for (size_t k = 0; k < size; k++)
    v |= (uint64_t) p[k] << (8 * (data == ELFDATA2LSB ? k : size - 1 - k));
  return v;
}

/* Where the LEN bytes at address ADDR are: in the file contents of a
   PT_LOAD of the input, at *IN_OFF, and in the output's PT_LOAD at the same
   address, at *OUT_OFF.  False if they are not.  */
static bool
locate (const struct checker *c, uint64_t addr, uint64_t len, uint64_t *in_off, uint64_t *out_off)
{
  for (size_t i = 0; i < c->in->phnum; i++)
    {
      const GElf_Phdr *a = &c->in->phdrs[i];
      if (a->p_type != PT_LOAD || addr < a->p_vaddr)
	continue;
      uint64_t at = addr - a->p_vaddr;
      if (at > a->p_filesz || len > a->p_filesz - at)
	continue;
      const GElf_Phdr *b = out_load_at (c, a->p_vaddr);
      if (b == NULL || b->p_filesz != a->p_filesz)
	return false;
      *in_off = a->p_offset + at;
      *out_off = b->p_offset + at;
      return true;
    }
  return false;
}

/* How many entries of tag TAG the input's dynamic section has before
   DT_NULL; the value of the last one into *VAL.  */
static size_t
input_tag (const struct elf_file *in, int64_t tag, uint64_t *val)
{
  size_t n = 0;
  GElf_Dyn d;
  for (size_t k = 0; input_dyn (in, k, &d) && d.d_tag != DT_NULL; k++)
    if (d.d_tag == tag)
      {
	n++;
	*val = d.d_un.d_val;
      }
  return n;
}

/* The word of the input that decides what ld.so calls as DT_INIT_ARRAY[0]:
   the r_addend of its one relative RELA relocation, or the entry itself
   when DT_RELR relocates it; its size and offsets, and its old value.  */
struct init_word
{
  size_t size;
  uint64_t in_off, out_off;
  uint64_t old;
  uint64_t nrela, nrelr;	/* the relocations of the entry found */
  uint64_t rela_at;		/* the address of the RELA one */
  uint64_t info;		/* its r_info */
};

/* Read the input's table of SIZE bytes at address ADDR, ENT bytes an entry,
   into a new buffer *BUF, its input offset into *OFF.  Return 0, or -1.  */
static int
read_table (const struct checker *c, uint64_t addr, uint64_t size, uint64_t ent,
	    unsigned char **buf, uint64_t *off)
{
  uint64_t out_off;
  *buf = NULL;
  if (ent == 0 || size % ent != 0 || !locate (c, addr, size, off, &out_off))
    return FAIL (c, "the relocation table at %#" PRIx64 " (%#" PRIx64 " bytes) is not in a "
		 "PT_LOAD's file contents in whole entries", addr, size);
  *buf = malloc (size != 0 ? size : 1);
  if (*buf == NULL)
    return diag_set (c->err, "out of memory");
  if (!read_full (c->in->fd, *buf, size, *off))
    {
      free (*buf);
      return diag_set (c->err, "cannot read the input: %s", errno != 0 ? strerror (errno) : "short read");
    }
  return 0;
}

/* Look for relocations of SLOT in the RELA (IS_RELA) or REL table of SIZE
   bytes at address ADDR, and count them into *W.  */
static int
scan_rel (const struct checker *c, uint64_t addr, uint64_t size, bool is_rela, uint64_t slot,
	  struct init_word *w)
{
  uint64_t ent = (is_rela ? 3 : 2) * w->size, off;
  unsigned char *buf;
  if (read_table (c, addr, size, ent, &buf, &off) != 0)
    return -1;
  int ret = 0;
  for (uint64_t k = 0; k < size / ent && ret == 0; k++)
    {
      const unsigned char *e = buf + k * ent;
      if (word_at (e, w->size, c->in->data) != slot)
	continue;
      if (!is_rela)
	ret = FAIL (c, "a REL relocation at %#" PRIx64 " fills DT_INIT_ARRAY[0]", addr + k * ent);
      else if (w->nrela == 0 || w->rela_at != addr + k * ent)
	{
	  /* (DT_JMPREL may lie inside DT_RELA: the same entry counts once) */
	  w->nrela++;
	  w->rela_at = addr + k * ent;
	  w->info = word_at (e + w->size, w->size, c->in->data);
	  w->old = word_at (e + 2 * w->size, w->size, c->in->data);
	}
    }
  free (buf);
  return ret;
}

/* Count the relocations of SLOT in the DT_RELR table of SIZE bytes at ADDR
   into *W: an even entry is an address relocated, an odd one a bitmap of
   the words after the last address or bitmap, bit I for word I - 1.  */
static int
scan_relr_table (const struct checker *c, uint64_t addr, uint64_t size, uint64_t slot,
		 struct init_word *w)
{
  uint64_t off, next = 0;
  unsigned char *buf;
  if (read_table (c, addr, size, w->size, &buf, &off) != 0)
    return -1;
  for (uint64_t k = 0; k < size / w->size; k++)
    {
      uint64_t e = word_at (buf + k * w->size, w->size, c->in->data);
      if ((e & 1) == 0)
	{
	  w->nrelr += e == slot;
	  next = e + w->size;
	  continue;
	}
      for (uint64_t bit = 1; bit < 8 * w->size; bit++)
	w->nrelr += ((e >> bit) & 1) != 0 && next + (bit - 1) * w->size == slot;
      next += (8 * w->size - 1) * w->size;
    }
  free (buf);
  return 0;
}

/* Find the word deciding DT_INIT_ARRAY[0] of the input into *W.  */
static int
find_init_word (const struct checker *c, struct init_word *w)
{
  const struct elf_file *in = c->in;
  *w = (struct init_word) { .size = in->elfclass == ELFCLASS64 ? 8 : 4 };
  uint64_t slot = 0, count = 0, a = 0, n = 0, ent = 0, pltrel = 0;
  if (input_tag (in, DT_INIT_ARRAY, &slot) != 1 || input_tag (in, DT_INIT_ARRAYSZ, &count) != 1
      || count < w->size)
    return FAIL (c, "DT_INIT_ARRAY[0] is patched, but the input has no one DT_INIT_ARRAY with "
		 "an entry");
  if (input_tag (in, DT_RELA, &a) == 1 && input_tag (in, DT_RELASZ, &n) == 1)
    {
      if (input_tag (in, DT_RELAENT, &ent) != 0 && ent != 3 * w->size)
	return FAIL (c, "DT_RELAENT is %#" PRIx64 ", not the size of a relocation", ent);
      if (scan_rel (c, a, n, true, slot, w) != 0)
	return -1;
    }
  if (input_tag (in, DT_REL, &a) == 1 && input_tag (in, DT_RELSZ, &n) == 1
      && scan_rel (c, a, n, false, slot, w) != 0)
    return -1;
  if (input_tag (in, DT_JMPREL, &a) == 1 && input_tag (in, DT_PLTRELSZ, &n) == 1
      && input_tag (in, DT_PLTREL, &pltrel) == 1
      && scan_rel (c, a, n, pltrel == DT_RELA, slot, w) != 0)
    return -1;
  if (input_tag (in, DT_RELR, &a) == 1 && input_tag (in, DT_RELRSZ, &n) == 1
      && scan_relr_table (c, a, n, slot, w) != 0)
    return -1;
  if (w->nrela + w->nrelr != 1)
    return FAIL (c, "DT_INIT_ARRAY[0] at %#" PRIx64 " is patched, but %" PRIu64 " RELA and %"
		 PRIu64 " RELR relocations fill it, not one", slot, w->nrela, w->nrelr);
  uint64_t type = w->size == 8 ? w->info & 0xffffffff : w->info & 0xff;
  uint64_t sym = w->size == 8 ? w->info >> 32 : w->info >> 8;
  if (w->nrela == 1 && (type != relative_type (in->ehdr.e_machine) || sym != 0))
    return FAIL (c, "the relocation of DT_INIT_ARRAY[0] (r_info %#" PRIx64 ") is not a "
		 "relative one", w->info);
  uint64_t at = w->nrela == 1 ? w->rela_at + 2 * w->size : slot;
  if (!locate (c, at, w->size, &w->in_off, &w->out_off))
    return FAIL (c, "the word deciding DT_INIT_ARRAY[0], at %#" PRIx64 ", is not in a PT_LOAD's "
		 "file contents", at);
  if (w->nrelr == 1)
    {
      unsigned char b[8];
      if (!read_full (in->fd, b, w->size, w->in_off))
	return diag_set (c->err, "cannot read the input: %s", errno != 0 ? strerror (errno) : "short read");
      w->old = word_at (b, w->size, in->data);
    }
  return 0;
}

/* A patch of DT_INIT_ARRAY[0]: the one word that decides it, now the
   stub's entry in its segment; the stub continues to the old value.  */
static int
check_init_array_patch (const struct checker *c, const struct plan_patch *p, struct hook *h)
{
  struct init_word w;
  if (h->found)
    return FAIL (c, "the stub would be hooked twice (DT_INIT_ARRAY[0] too)");
  if (find_init_word (c, &w) != 0)
    return -1;
  if (p->offset != w.out_off || p->len != w.size)
    return FAIL (c, "the DT_INIT_ARRAY[0] patch at %#" PRIx64 " (%zu bytes) is not the word that "
		 "decides the entry, at %#" PRIx64 " (%zu bytes)", p->offset, p->len, w.out_off, w.size);
  uint64_t ph = (uint64_t) c->out.phnum * elf_phdr_size (c->in->elfclass);
  uint64_t sh = (uint64_t) c->out.shnum * elf_shdr_size (c->in->elfclass);
  if (ranges_overlap (p->offset, p->len, 0, elf_ehdr_size (c->in->elfclass))
      || ranges_overlap (p->offset, p->len, c->out.eh->e_phoff, ph)
      || ranges_overlap (p->offset, p->len, c->out.eh->e_shoff, sh))
    return FAIL (c, "the DT_INIT_ARRAY[0] patch at %#" PRIx64 " overlaps the output's headers",
		 p->offset);
  uint64_t now = word_at (p->bytes, p->len, c->in->data);
  if (!in_extra (c, now, 1))
    return FAIL (c, "DT_INIT_ARRAY[0] would become %#" PRIx64 ", outside the stub's segment", now);
  *h = (struct hook) { true, now, w.old };
  return 0;
}

static int
check_symbol_patch (const struct checker *c, const struct plan_patch *p)
{
  const struct elf_file *in = c->in;
  size_t entsize = gelf_fsize (in->elf, ELF_T_SYM, 1, EV_CURRENT);
  for (size_t i = 1; i < in->shnum; i++)
    {
      const GElf_Shdr *a = &in->shdrs[i], *b = &c->out.sh[i];
      if (a->sh_type != SHT_SYMTAB || p->offset < b->sh_offset || p->offset - b->sh_offset >= b->sh_size)
	continue;
      size_t k = (p->offset - b->sh_offset) / entsize;
      GElf_Sym now, was;
      Elf_Data *data = elf_file_section_data (in, i, ELF_T_SYM);
      if ((p->offset - b->sh_offset) % entsize != 0 || data == NULL
	  || gelf_getsym (data, (int) k, &was) == NULL || !decode (in, ELF_T_SYM, p->bytes, p->len, &now))
	break;
      uint64_t delta = was.st_shndx != SHN_UNDEF && was.st_shndx < in->shnum
	? c->out.sh[was.st_shndx].sh_addr - in->shdrs[was.st_shndx].sh_addr : 0;
      if (delta != 0 && now.st_value == was.st_value + delta && now.st_name == was.st_name
	  && now.st_size == was.st_size && now.st_info == was.st_info
	  && now.st_other == was.st_other && now.st_shndx == was.st_shndx)
	return 0;
      return FAIL (c, "symbol %zu of section %zu would not follow its section", k, i);
    }
  return FAIL (c, "a symbol patch at %#" PRIx64 " is not one symbol of a symbol table", p->offset);
}

/* The new section at output offset OFFSET, LEN bytes, of TYPE, beyond the
   input's sections; 0 if there is none.  */
static size_t
new_section_at (const struct checker *c, uint64_t offset, size_t len, GElf_Word type)
{
  for (size_t i = c->in->shnum; i < c->out.shnum; i++)
    if (c->out.sh[i].sh_type == type && c->out.sh[i].sh_offset == offset
	&& c->out.sh[i].sh_size == len)
      return i;
  return 0;
}

/* Whether the LEN bytes at P are one xz stream and nothing more, which
   liblzma's decoder (no code of the writer's) reads to its end with its
   check verified, holding an ELF file of the class and byte order IDENT
   (an ELF identification) gives.  The decoder may use 16 MiB at most; its
   output is only counted.  */
static bool
xz_holds_elf (const unsigned char *p, size_t len, const unsigned char *ident)
{
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder (&s, UINT64_C (16) << 20, 0) != LZMA_OK)
    return false;
  unsigned char out[4096], head[EI_NIDENT];
  size_t got = 0;
  lzma_ret r;
  s.next_in = p;
  s.avail_in = len;
  do
    {
      s.next_out = out;
      s.avail_out = sizeof out;
      r = lzma_code (&s, LZMA_FINISH);
      size_t n = sizeof out - s.avail_out;
      if (got < EI_NIDENT)
	memcpy (head + got, out, n < EI_NIDENT - got ? n : EI_NIDENT - got);
      got += n;
    }
  while (r == LZMA_OK);
  bool ok = r == LZMA_STREAM_END && s.avail_in == 0 && got >= EI_NIDENT
	    && memcmp (head, ELFMAG, SELFMAG) == 0 && head[EI_CLASS] == ident[EI_CLASS]
	    && head[EI_DATA] == ident[EI_DATA];
  lzma_end (&s);
  return ok;
}

/* The stub's MiniDebugInfo, given only to a file without MiniDebugInfo (a
   section named .gnu_debugdata): a new section that is not loaded,
   holding one xz stream that decodes to an ELF file of the file's class
   and byte order (xz_holds_elf).  What it says is checked by
   tests/run-stub-symbols-minidebuginfo.sh with xz and readelf.  */
static int
check_debugdata (const struct checker *c, const struct plan_patch *p)
{
  const struct elf_file *in = c->in;
  Elf_Data *names = elf_file_section_data (in, in->shstrndx, ELF_T_BYTE);
  static const char dd[] = ".gnu_debugdata";
  for (size_t i = 1; i < in->shnum && names != NULL; i++)
    {
      GElf_Word at = in->shdrs[i].sh_name;
      if (at < names->d_size && names->d_size - at >= sizeof dd
	  && memcmp ((const char *) names->d_buf + at, dd, sizeof dd) == 0)
	return FAIL (c, "MiniDebugInfo would be added to a file that has MiniDebugInfo");
    }
  size_t t = new_section_at (c, p->offset, p->len, SHT_PROGBITS);
  static const unsigned char head[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
  if (t == 0 || (c->out.sh[t].sh_flags & SHF_ALLOC) != 0 || p->len < 32
      || memcmp (p->bytes, head, 6) != 0 || memcmp (p->bytes + p->len - 2, "YZ", 2) != 0
      || !xz_holds_elf (p->bytes, p->len, in->ehdr.e_ident))
    return FAIL (c, "the stub's MiniDebugInfo at %#" PRIx64 " is not one xz stream of an ELF "
		 "file in a new, unloaded section", p->offset);
  return 0;
}

/* The input's non-loaded section of TYPE that patch P extends: its old
   bytes followed by P in the output, its size grown by P's length; 0 if
   none.  */
static size_t
extended_table (const struct checker *c, const struct plan_patch *p, GElf_Word type)
{
  const struct elf_file *in = c->in;
  for (size_t i = 1; i < in->shnum; i++)
    {
      const GElf_Shdr *a = &in->shdrs[i], *b = &c->out.sh[i];
      if (a->sh_type == type && !(a->sh_flags & SHF_ALLOC) && b->sh_size - a->sh_size == p->len
	  && b->sh_size > a->sh_size && b->sh_offset + a->sh_size == p->offset)
	return i;
    }
  return 0;
}

/* The names of the stub's symbols in patch P: appended to the string
   table of the input's symbol table (not the section name table), each a
   whole string that starts with "elfpmd.", an empty string first at most.  */
static int
check_stub_names (const struct checker *c, const struct plan_patch *p)
{
  size_t t = extended_table (c, p, SHT_STRTAB);
  bool linked = false;
  for (size_t j = 1; j < c->in->shnum && t != 0; j++)
    linked |= c->in->shdrs[j].sh_type == SHT_SYMTAB && c->in->shdrs[j].sh_link == t;
  if (t == 0 || !linked || t == c->out.eh->e_shstrndx)
    return FAIL (c, "the names of the stub's symbols at %#" PRIx64 " do not extend the string "
		 "table of the symbol table", p->offset);
  const char *s = (const char *) p->bytes, *end = s + p->len;
  if (p->len == 0 || end[-1] != 0)
    return FAIL (c, "the names of the stub's symbols do not end with a NUL");
  if (*s == 0)
    s++;
  for (; s < end; s += strlen (s) + 1)
    if (strncmp (s, "elfpmd.", 7) != 0 || s[7] == 0)
      return FAIL (c, "the stub's symbol name \"%.40s\" does not start with \"elfpmd.\"", s);
  return 0;
}

/* The stub's symbols in patch P: appended to the input's symbol table,
   whole entries, none of them local (they follow its globals), each hidden
   (not an interface of the file), a function or data object inside a new
   executable section in the stub's segment, and named by the names patch
   of the table's string table.  */
static int
check_stub_symbols (const struct checker *c, const struct plan_patch *p)
{
  const struct elf_file *in = c->in;
  size_t t = extended_table (c, p, SHT_SYMTAB);
  size_t entsize = gelf_fsize (in->elf, ELF_T_SYM, 1, EV_CURRENT);
  if (t == 0 || entsize == 0 || p->len % entsize != 0 || in->shdrs[t].sh_link >= in->shnum)
    return FAIL (c, "the stub's symbols at %#" PRIx64 " do not extend the symbol table by whole "
		 "entries", p->offset);
  size_t str = in->shdrs[t].sh_link;
  const GElf_Shdr *sa = &in->shdrs[str], *sb = &c->out.sh[str];
  const struct plan_patch *names = NULL;
  for (size_t k = 0; k < c->pieces->npatches && names == NULL; k++)
    if (c->pieces->patches[k].kind == PATCH_STUB_NAMES
	&& c->pieces->patches[k].offset == sb->sh_offset + sa->sh_size)
      names = &c->pieces->patches[k];
  if (names == NULL)
    return FAIL (c, "the stub's symbols are added without their names");
  for (size_t k = 0; k < p->len / entsize; k++)
    {
      GElf_Sym y;
      if (!decode (in, ELF_T_SYM, p->bytes + k * entsize, entsize, &y))
	return FAIL (c, "the stub's symbol %zu cannot be decoded", k);
      size_t at = canonical_index (c, y.st_shndx);
      const GElf_Shdr *sec = at >= in->shnum && at < c->out.shnum
			     && y.st_shndx < SHN_LORESERVE ? &c->out.sh[at] : NULL;
      uint64_t name = y.st_name;
      if (GELF_ST_BIND (y.st_info) == STB_LOCAL || GELF_ST_VISIBILITY (y.st_other) != STV_HIDDEN
	  || (GELF_ST_TYPE (y.st_info) != STT_FUNC && GELF_ST_TYPE (y.st_info) != STT_OBJECT))
	return FAIL (c, "the stub's symbol %zu is local, not hidden, or neither a function nor "
		     "an object", k);
      if (sec == NULL || sec->sh_type != SHT_PROGBITS
	  || (sec->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR)
	  || !in_extra (c, sec->sh_addr, sec->sh_size) || y.st_value < sec->sh_addr
	  || y.st_size > sec->sh_size || y.st_value - sec->sh_addr > sec->sh_size - y.st_size)
	return FAIL (c, "the stub's symbol %zu (section %u, %#" PRIx64 ", %" PRIu64 " bytes) is "
		     "not inside a new executable section in the stub's segment", k,
		     (unsigned) y.st_shndx, (uint64_t) y.st_value, (uint64_t) y.st_size);
      if (name < sa->sh_size || name - sa->sh_size >= names->len
	  || names->len - (name - sa->sh_size) < 8
	  || strncmp ((const char *) names->bytes + (name - sa->sh_size), "elfpmd.", 7) != 0)
	return FAIL (c, "the stub's symbol %zu is not named by the names added", k);
    }
  return 0;
}

/* The stub's parameters: found by their magic, continuing where the hook
   came from.  */
static int
check_stub_patch (const struct checker *c, const struct plan_patch *p, const struct hook *h)
{
  const GElf_Phdr *x = c->extra;
  if (x == NULL || p->offset < x->p_offset || !inside (p->offset - x->p_offset, p->len, x->p_filesz))
    return FAIL (c, "the stub's code would lie outside its segment");
  for (size_t at = 8; at + 8 <= p->len; at++)
    {
      uint64_t magic = 0, target = 0;
      for (int k = 0; k < 8; k++)
	{
	  int shift = 8 * (c->in->data == ELFDATA2LSB ? k : 7 - k);
	  magic |= (uint64_t) p->bytes[at + (size_t) k] << shift;
	  target |= (uint64_t) p->bytes[at - 8 + (size_t) k] << shift;
	}
      if (magic != STUB_MAGIC)
	continue;
      if (!h->found)
	return FAIL (c, "the stub is hooked neither through e_entry nor through DT_INIT or "
		     "DT_INIT_ARRAY[0]");
      if (!in_extra (c, h->entry, 1) || (target == 0 ? h->target != 0 : h->entry + target != h->target))
	return FAIL (c, "the stub would not continue to %#" PRIx64, h->target);
      return 0;
    }
  return FAIL (c, "the stub's parameters are missing");
}

/* --- The build-id.  */

/* LEN bytes of the output at OFF into BUF: read back, or as the plan makes
   them (the input's bytes the copies put there, then the patches over
   them, zeros elsewhere).  */
static int
output_bytes (const struct checker *c, uint64_t off, size_t len, unsigned char *buf)
{
  if (!inside (off, len, c->out.size))
    return FAIL (c, "output bytes [%#" PRIx64 ", +%#zx) are past the output's end", off, len);
  if (c->out_fd >= 0)
    {
      if (c->out_map != NULL)
	memcpy (buf, c->out_map + off, len);
      else if (!read_full (c->out_fd, buf, len, off))
	return diag_set (c->err, "cannot read back the output: %s",
			 errno != 0 ? strerror (errno) : "short read");
      return 0;
    }
  memset (buf, 0, len);
  const struct plan_pieces *p = c->pieces;
  for (size_t k = 0; k < p->ncopies; k++)
    {
      const struct plan_copy *cp = &p->copies[k];
      if (!ranges_overlap (cp->to, cp->len, off, len))
	continue;
      uint64_t from = cp->to > off ? cp->to : off;
      uint64_t to = cp->to + cp->len < off + len ? cp->to + cp->len : off + len;
      if (!read_full (c->in->fd, buf + (from - off), to - from, cp->from + (from - cp->to)))
	return diag_set (c->err, "cannot read the input: %s",
			 errno != 0 ? strerror (errno) : "short read");
    }
  for (size_t k = 0; k < p->npatches; k++)
    {
      const struct plan_patch *pt = &p->patches[k];
      if (!ranges_overlap (pt->offset, pt->len, off, len))
	continue;
      uint64_t from = pt->offset > off ? pt->offset : off;
      uint64_t to = pt->offset + pt->len < off + len ? pt->offset + pt->len : off + len;
      memcpy (buf + (from - off), pt->bytes + (from - pt->offset), to - from);
    }
  return 0;
}

/* Whether the output's notes in [START, START + SIZE), aligned to ALIGN (4
   or 8) from START, have a GNU build-id note (type 3, name "GNU") whose
   desc is exactly [OFF, OFF + LEN): into *FOUND.  The notes are walked
   from their headers, as a reader of the file walks them.  */
static int
build_id_note_at (const struct checker *c, uint64_t start, uint64_t size, uint64_t align,
		  uint64_t off, size_t len, bool *found)
{
  int data = c->in->data;
  uint64_t at = 0;
  *found = false;
  while (at <= size && size - at >= 12 && start + at < off + len)
    {
      unsigned char h[16];
      if (output_bytes (c, start + at, size - at >= 16 ? 16 : 12, h) != 0)
	return -1;
      uint64_t namesz = word_at (h, 4, data), descsz = word_at (h + 4, 4, data);
      uint64_t type = word_at (h + 8, 4, data);
      uint64_t desc = (at + 12 + namesz + align - 1) & ~(align - 1);
      uint64_t next = (desc + descsz + align - 1) & ~(align - 1);
      if (desc > size || descsz > size - desc)
	return 0;		/* a note past the end: no more notes */
      if (type == 3 && namesz == 4 && size - at >= 16 && memcmp (h + 12, "GNU", 4) == 0
	  && start + desc == off && descsz == len)
	{
	  *found = true;
	  return 0;
	}
      if (next <= at)
	return 0;
      at = next;
    }
  return 0;
}

/* The build-id patch P, a new build-id: exactly the desc of a GNU build-id
   note of the output, in one of its SHT_NOTE sections or PT_NOTE segments,
   clear of the ELF header and the header tables, and not patched twice.  */
static int
check_build_id_patch (const struct checker *c, const struct plan_patch *p)
{
  const struct view *o = &c->out;
  uint64_t ph = (uint64_t) o->phnum * elf_phdr_size (c->in->elfclass);
  uint64_t sh = (uint64_t) o->shnum * elf_shdr_size (c->in->elfclass);
  if (p->len == 0 || ranges_overlap (p->offset, p->len, 0, elf_ehdr_size (c->in->elfclass))
      || ranges_overlap (p->offset, p->len, o->eh->e_phoff, ph)
      || ranges_overlap (p->offset, p->len, o->eh->e_shoff, sh))
    return FAIL (c, "the build-id patch at %#" PRIx64 " is empty or overlaps the output's headers",
		 p->offset);
  for (size_t k = 0; k < c->pieces->npatches; k++)
    {
      const struct plan_patch *q = &c->pieces->patches[k];
      if (q != p && q->kind == PATCH_BUILD_ID && ranges_overlap (p->offset, p->len, q->offset, q->len))
	return FAIL (c, "two build-id patches at %#" PRIx64, p->offset);
    }
  bool found = false;
  for (size_t i = 1; i < o->shnum && !found; i++)
    if (o->sh[i].sh_type == SHT_NOTE && section_has_bytes (&o->sh[i])
	&& build_id_note_at (c, o->sh[i].sh_offset, o->sh[i].sh_size,
			     o->sh[i].sh_addralign == 8 ? 8 : 4, p->offset, p->len, &found) != 0)
      return -1;
  for (size_t i = 0; i < o->phnum && !found; i++)
    if (o->ph[i].p_type == PT_NOTE && o->ph[i].p_filesz != 0
	&& build_id_note_at (c, o->ph[i].p_offset, o->ph[i].p_filesz,
			     o->ph[i].p_align == 8 ? 8 : 4, p->offset, p->len, &found) != 0)
      return -1;
  if (!found)
    return FAIL (c, "the build-id patch at %#" PRIx64 " (%zu bytes) is not the desc of a GNU "
		 "build-id note of the output", p->offset, p->len);
  return 0;
}

static int
check_patches (const struct checker *c)
{
  const struct elf_file *in = c->in;
  const struct view *o = &c->out;
  struct hook h = { false, 0, 0 };
  if (o->eh->e_entry != in->ehdr.e_entry)
    h = (struct hook) { true, o->eh->e_entry, in->ehdr.e_entry };
  const struct plan_patch *stub = NULL;
  size_t nstub = 0;
  for (size_t k = 0; k < c->pieces->npatches; k++)
    {
      const struct plan_patch *p = &c->pieces->patches[k];
      if (!inside (p->offset, p->len, o->size))
	return FAIL (c, "%s at %#" PRIx64 " would extend past the end", patch_kind_name (p->kind), p->offset);
      int ret = 0;
      switch (p->kind)
	{
	case PATCH_EHDR:
	  if (p->offset != 0 || p->len != elf_ehdr_size (in->elfclass))
	    ret = FAIL (c, "the ELF header patch is misplaced");
	  break;
	case PATCH_PHDRS:
	  if (p->offset != o->eh->e_phoff || p->len != o->phnum * elf_phdr_size (in->elfclass))
	    ret = FAIL (c, "the program header table patch is not where e_phoff says");
	  break;
	case PATCH_SHDRS:
	  if (p->offset != o->eh->e_shoff || p->len != o->shnum * elf_shdr_size (in->elfclass))
	    ret = FAIL (c, "the section header table patch is not where e_shoff says");
	  break;
	case PATCH_DYNAMIC:
	  ret = check_dyn_patch (c, p, &h);
	  break;
	case PATCH_SYMBOL:
	  ret = check_symbol_patch (c, p);
	  break;
	case PATCH_STUB:
	  stub = p;
	  nstub++;
	  break;
	case PATCH_NAMES:
	  {
	    size_t i = o->eh->e_shstrndx;
	    Elf_Data *old = elf_file_section_data (in, i, ELF_T_BYTE);
	    if (old == NULL || p->offset != o->sh[i].sh_offset || p->len != o->sh[i].sh_size
		|| p->len < old->d_size || memcmp (p->bytes, old->d_buf, old->d_size) != 0)
	      ret = FAIL (c, "the section name table copy does not extend the old one");
	    break;
	  }
	case PATCH_INIT_ARRAY:
	  ret = check_init_array_patch (c, p, &h);
	  break;
	case PATCH_DEBUGDATA:
	  ret = check_debugdata (c, p);
	  break;
	case PATCH_STUB_SYMBOLS:
	  ret = check_stub_symbols (c, p);
	  break;
	case PATCH_STUB_NAMES:
	  ret = check_stub_names (c, p);
	  break;
	case PATCH_BUILD_ID:
	  ret = check_build_id_patch (c, p);
	  break;
	case PATCH_CLEAR:
	  for (size_t b = 0; b < p->len && ret == 0; b++)
	    if (p->bytes[b] != 0)
	      ret = FAIL (c, "the cleared bytes at %#" PRIx64 " are not zeros", p->offset);
	  break;
	default:
	  /* A kind of patch this checker has no test for proves nothing.  */
	  ret = FAIL (c, "a patch of unknown kind %d at %#" PRIx64, (int) p->kind, p->offset);
	  break;
	}
      if (ret != 0)
	return -1;
    }
  if ((c->extra != NULL) != (nstub == 1))
    return FAIL (c, "a new PT_LOAD needs exactly one stub, and the stub one new PT_LOAD");
  return stub != NULL ? check_stub_patch (c, stub, &h) : 0;
}

/* Every copy reads inside the input and writes inside the output.  */
static int
check_copies (const struct checker *c)
{
  for (size_t k = 0; k < c->pieces->ncopies; k++)
    {
      const struct plan_copy *p = &c->pieces->copies[k];
      if (!inside (p->from, p->len, (uint64_t) c->in->st.st_size) || !inside (p->to, p->len, c->out.size))
	return FAIL (c, "copy %zu [%#" PRIx64 ", +%#" PRIx64 ") -> %#" PRIx64 " is out of bounds", k,
		     p->from, p->len, p->to);
    }
  return 0;
}

/* Whether output section header B can be input section header A, moved
   or grown: the fields elfpmd never changes are the same.  */
static bool
same_section (const GElf_Shdr *a, const GElf_Shdr *b)
{
  return a->sh_name == b->sh_name && a->sh_type == b->sh_type && a->sh_flags == b->sh_flags
	 && a->sh_addralign == b->sh_addralign && a->sh_entsize == b->sh_entsize;
}

/* Put C->out's section headers (and e_shstrndx, sh_link, and sh_info
   where it names a section) in the canonical order, into *SH and *EH,
   which C->out then points at: an output header is the next input
   section's where it can be, else a new one, named past the end of the
   input's section name table.  Return 0, or -1.  */
static int
canonical_sections (struct checker *c, GElf_Shdr **sh, GElf_Ehdr *eh)
{
  const struct elf_file *in = c->in;
  size_t n = c->out.shnum;
  *sh = NULL;
  if (n == 0 || in->shnum == 0 || n < in->shnum || in->shstrndx == 0 || in->shstrndx >= in->shnum)
    return 0;
  uint64_t old_names = in->shdrs[in->shstrndx].sh_size;
  *sh = calloc (n, sizeof **sh);
  c->out_index = calloc (n, sizeof *c->out_index);
  if (*sh == NULL || c->out_index == NULL)
    return diag_set (c->err, "out of memory");
  size_t old = 0, added = in->shnum;
  for (size_t j = 0; j < n; j++)
    {
      bool is_new = old == in->shnum || !same_section (&in->shdrs[old], &c->out.sh[j]);
      if (is_new && (j == 0 || c->out.sh[j].sh_name < old_names || added == n))
	return FAIL (c, "output section %zu is neither the input's section %zu nor a new one", j,
		     old);
      c->out_index[j] = is_new ? added++ : old++;
    }
  if (old != in->shnum)
    return FAIL (c, "the output has %zu of the input's %zu sections", old, (size_t) in->shnum);
  for (size_t j = 0; j < n; j++)
    {
      GElf_Shdr s = c->out.sh[j];
      s.sh_link = (GElf_Word) canonical_index (c, s.sh_link);
      if ((s.sh_flags & SHF_INFO_LINK) != 0 || s.sh_type == SHT_REL || s.sh_type == SHT_RELA)
	s.sh_info = (GElf_Word) canonical_index (c, s.sh_info);
      (*sh)[c->out_index[j]] = s;
    }
  *eh = *c->out.eh;
  eh->e_shstrndx = (GElf_Half) canonical_index (c, eh->e_shstrndx);
  c->out.sh = *sh;
  c->out.eh = eh;
  return 0;
}

static int
check_view_canonical (struct checker *c)
{
  if (check_copies (c) != 0 || check_loads (c) != 0 || check_ehdr (c) != 0
      || check_ranges (c) != 0 || check_other_segments (c) != 0 || check_at_phdr (c) != 0
      || check_sections (c) != 0 || check_growth (c) != 0 || check_patches (c) != 0)
    return -1;
  return 0;
}

static int
check_view (struct checker *c)
{
  GElf_Shdr *sh;
  GElf_Ehdr eh;
  const struct view real = c->out;
  int ret = canonical_sections (c, &sh, &eh);
  if (ret == 0)
    ret = check_view_canonical (c);
  free (sh);
  free (c->out_index);
  c->out_index = NULL;
  c->out = real;
  return ret;
}

int
check_plan (const struct rewrite_plan *plan, const struct elf_file *file, struct diag *err)
{
  if (file->skip_reason != NULL || !plan->changed)
    return 0;
  struct checker c = {
    .in = file, .pieces = &plan->pieces, .pmd = plan->pmd, .page = plan->page, .out_fd = -1,
    .err = err,
    .out = { &plan->tables.ehdr, plan->tables.phnum, plan->tables.phdrs, plan->tables.shnum,
	     plan->tables.shdrs, plan->tables.size },
  };
  return check_view (&c);
}

/* The bytes of the output no copy and no patch wrote read as zeros: holes
   (skipped quickly where the file system keeps them sparse) and padding.  */
static int
check_zeros (const struct checker *c)
{
  const struct plan_pieces *p = c->pieces;
  struct span *s = calloc (p->ncopies + p->npatches + 1, sizeof *s);
  if (s == NULL)
    return diag_set (c->err, "out of memory");
  size_t n = 0;
  for (size_t k = 0; k < p->ncopies; k++)
    s[n++] = (struct span) { p->copies[k].to, p->copies[k].to + p->copies[k].len };
  for (size_t k = 0; k < p->npatches; k++)
    s[n++] = (struct span) { p->patches[k].offset, p->patches[k].offset + p->patches[k].len };
  qsort (s, n, sizeof *s, span_cmp);
  int ret = 0;
  uint64_t pos = 0;
  for (size_t k = 0; k <= n && ret == 0; k++)
    {
      uint64_t end = k < n ? s[k].start : c->out.size;
      while (pos < end && ret == 0)
	{
	  off_t data = lseek (c->out_fd, (off_t) pos, SEEK_DATA);
	  if (data < 0 && errno == ENXIO)
	    break;
	  uint64_t from = data < 0 ? pos : (uint64_t) data;
	  if (from >= end)
	    break;
	  unsigned char z[4096];
	  size_t len = end - from < sizeof z ? (size_t) (end - from) : sizeof z;
	  if (!read_full (c->out_fd, z, len, from))
	    ret = diag_set (c->err, "cannot read back the output: %s", strerror (errno));
	  for (size_t b = 0; b < len && ret == 0; b++)
	    if (z[b] != 0)
	      ret = FAIL (c, "padding at %#" PRIx64 " is not zero", from + b);
	  pos = from + len;
	}
      if (k < n && s[k].end > pos)
	pos = s[k].end;
    }
  free (s);
  return ret;
}

/* Every patch reads back byte for byte.  */
static int
check_patch_bytes (const struct checker *c)
{
  for (size_t k = 0; k < c->pieces->npatches; k++)
    {
      const struct plan_patch *p = &c->pieces->patches[k];
      unsigned char buf[4096];
      for (size_t at = 0; at < p->len; at += sizeof buf)
	{
	  size_t len = p->len - at < sizeof buf ? p->len - at : sizeof buf;
	  if (!read_full (c->out_fd, buf, len, p->offset + at))
	    return diag_set (c->err, "cannot read back the output: %s", strerror (errno));
	  if (memcmp (buf, p->bytes + at, len) != 0)
	    return FAIL (c, "%s at %#" PRIx64 " does not read back", patch_kind_name (p->kind), p->offset);
	}
    }
  return 0;
}

int
check_output (const struct rewrite_plan *plan, const struct elf_file *file,
	      const struct elf_file *out, struct diag *err)
{
  struct checker c = {
    .in = file, .pieces = &plan->pieces, .pmd = plan->pmd, .page = plan->page, .out_fd = out->fd,
    .err = err,
    .out = { &out->ehdr, out->phnum, out->phdrs, out->shnum, out->shdrs, (uint64_t) out->st.st_size },
  };
  if (out->skip_reason != NULL)
    return FAIL (&c, "the output reads back as skipped: %s", out->skip_reason);
  size_t in_len = 0, out_len = 0;
  c.in_map = (const unsigned char *) elf_rawfile (file->elf, &in_len);
  c.out_map = (const unsigned char *) elf_rawfile (out->elf, &out_len);
  if (in_len != (uint64_t) file->st.st_size)
    c.in_map = NULL;
  if (out_len != (uint64_t) out->st.st_size)
    c.out_map = NULL;
  /* Sampled, the input is read a page here and there: with the read-ahead
     of a mapping (read_ahead_kb, up to 8 MiB around each page) those pages,
     once the writer dropped them, would read the whole file back.  */
  if (c.in_map != NULL && c.out.size > CHECK_READ_BACK_WHOLE)
    madvise ((void *) c.in_map, in_len, MADV_RANDOM);
  if (c.out.size != plan->tables.size)
    return FAIL (&c, "the output has %#" PRIx64 " bytes, not %#" PRIx64, c.out.size, plan->tables.size);
  if (check_view (&c) != 0 || check_patch_bytes (&c) != 0 || check_zeros (&c) != 0)
    return -1;
  return 0;
}
