/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd map: what lies in each whole PMD chunk of a file's text.

   Only whole PMD chunks of text can be mapped with PMD pages: a PMD-aligned
   address range [C, C + PMD) inside a read-only executable PT_LOAD whose
   address is congruent with its file offset modulo the PMD size, in an
   object whose load base is PMD-aligned.  The head and the tail of each
   executable segment stay on small pages.  elfpmd never moves addresses,
   only file offsets, so the chunks are the same address ranges before and
   after elfpmd; what aligning changes is which segments have them.  The
   map shows the chunks of the file as elfpmd's layout plan would align it
   (the file as it is, when it is aligned already) and says how many of them
   the file as it is has.

   The map runs in three passes: find the names (functions with their
   address ranges and compilation units: from DWARF in the file or in its
   separate debug file, else from the symbol table), cut the text into
   ranges (the whole chunks, and the heads and tails outside them), and
   attribute each function's bytes to the ranges it overlaps.  A --hot
   profile is then weighed against the same ranges.  */
#include <config.h>

#include <argp.h>
#include <sysexits.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "arith.h"
#include "elf_file.h"
#include "layout.h"
#include "map.h"
#include "names.h"
#include "cmdline.h"
#include "machine.h"
#include "phdr_align.h"
#include "report.h"
#include "sizes.h"
#include "text_chunks.h"

/* How many functions and compilation units each range lists.  */
#define TOP_FUNCTIONS 5
#define TOP_CUS 3

/* One range of text: a whole chunk, or a part of an executable segment
   outside whole chunks.  */
struct range
{
  uint64_t start, end;
  size_t segment;		/* program header index */
  bool chunk;
  size_t number;		/* chunk number, in address order */
  bool now;			/* a chunk the file as it is already has */
  const char *part;		/* outside: "head", "tail" or "whole" */

  size_t nfuncs;		/* functions overlapping it */
  size_t top[TOP_FUNCTIONS];	/* the largest of them, by bytes inside */
  uint64_t top_bytes[TOP_FUNCTIONS];
  size_t ntop;
  struct cu_bytes *cus;		/* bytes per compilation unit, merged later */
  size_t ncus, cucap;
  double hot;			/* --hot weight inside */
};

struct cu_bytes
{
  size_t cu;
  uint64_t bytes;
};

struct hot_total
{
  double total;			/* weight of the lines resolved */
  double in_chunks;
  double outside;
  size_t lines;
  size_t unresolved;		/* lines naming no text */
  double unresolved_weight;
};

struct map
{
  const char *name;
  const struct map_options *opts;
  struct elf_file file;
  uint64_t pmd, page;
  char pmd_source[128];
  bool as_aligned;		/* the chunks are those elfpmd's plan would make */
  uint64_t chunks_now;		/* whole chunks of text in the file as it is */
  struct range *ranges;		/* sorted by address, disjoint */
  size_t nranges, rcap;
  size_t nchunks;
  struct names names;
  struct names symbols;		/* the symbol table, for --hot names DWARF lacks */
  bool has_hot;
  struct hot_total hot;
};

bool
map_has_demangler (void)
{
  return names_can_demangle ();
}

/* ---- The ranges of text --------------------------------------------------- */

/* Append the range [START, END) of segment SEG to M.  Return 0, or -1 when
   out of memory.  */
static int
add_range (struct map *m, uint64_t start, uint64_t end, size_t seg, bool chunk, bool now,
	   const char *part)
{
  if (m->nranges == m->rcap)
    {
      size_t cap = m->rcap == 0 ? 16 : 2 * m->rcap;
      struct range *grown = realloc (m->ranges, cap * sizeof *grown);
      if (grown == NULL)
	return -1;
      m->ranges = grown;
      m->rcap = cap;
    }
  struct range *r = &m->ranges[m->nranges++];
  memset (r, 0, sizeof *r);
  r->start = start;
  r->end = end;
  r->segment = seg;
  r->chunk = chunk;
  r->now = now;
  r->part = part;
  if (chunk)
    r->number = m->nchunks++;
  return 0;
}

static int
range_by_address (const void *a, const void *b)
{
  const struct range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Cut M's text into ranges: the whole chunks of each read-only executable
   PT_LOAD that PLAN leaves congruent in an object with a PMD-aligned load
   base, and the parts outside them.  Text is the file-backed part of a
   segment.  Overlapping segments (a hostile file) keep only the first.
   Return 0, or -1 with the reason in *ERR.  */
static int
cut_ranges (struct map *m, const struct layout_plan *plan, struct diag *err)
{
  const struct elf_file *f = &m->file;
  uint64_t pmd = m->pmd;
  bool base_now = load_base_aligned (f, NULL, pmd);
  bool base_new = load_base_aligned (f, plan, pmd);
  for (size_t i = 0; i < f->phnum; i++)
    {
      const GElf_Phdr *ph = &f->phdrs[i];
      if (!text_segment (f, i))
	continue;
      uint64_t size = ph->p_filesz < ph->p_memsz ? ph->p_filesz : ph->p_memsz;
      uint64_t start = ph->p_vaddr, end;
      if (size == 0 || !add_checked (start, size, &end))
	continue;
      bool overlaps = false;
      for (size_t k = 0; k < m->nranges; k++)
	if (m->ranges[k].segment != i && m->ranges[k].start < end && start < m->ranges[k].end)
	  overlaps = true;
      if (overlaps)
	continue;
      struct chunk_run now, new;
      bool whole_now = text_chunk_run (f, NULL, i, pmd, base_now, &now);
      if (whole_now)
	m->chunks_now += now.n;
      if (!text_chunk_run (f, plan, i, pmd, base_new, &new))
	{
	  if (add_range (m, start, end, i, false, false, "whole") != 0)
	    return diag_set (err, "out of memory");
	  continue;
	}
      /* The run's chunks are inside the segment: nothing below wraps.  */
      uint64_t n = new.n, first = new.vaddr;
      uint64_t last_end = first + n * pmd;
      if (first > start && add_range (m, start, first, i, false, false, "head") != 0)
	return diag_set (err, "out of memory");
      for (uint64_t c = 0; c < n; c++)
	if (add_range (m, first + c * pmd, first + (c + 1) * pmd, i, true, whole_now, NULL) != 0)
	  return diag_set (err, "out of memory");
      if (last_end < end && add_range (m, last_end, end, i, false, false, "tail") != 0)
	return diag_set (err, "out of memory");
    }
  qsort (m->ranges, m->nranges, sizeof *m->ranges, range_by_address);
  /* Chunk numbers in address order.  */
  size_t c = 0;
  for (size_t k = 0; k < m->nranges; k++)
    if (m->ranges[k].chunk)
      m->ranges[k].number = c++;
  /* The file as it is has these chunks unless some need elfpmd first.  */
  for (size_t k = 0; k < m->nranges; k++)
    if (m->ranges[k].chunk && !m->ranges[k].now)
      m->as_aligned = true;
  return 0;
}

/* The index of the first range of M ending after A (M->nranges if none).  */
static size_t
first_range_after (const struct map *m, uint64_t a)
{
  size_t lo = 0, hi = m->nranges;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (m->ranges[mid].end <= a)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}

/* The index of the range of M holding address A, or SIZE_MAX.  */
static size_t
range_at (const struct map *m, uint64_t a)
{
  size_t k = first_range_after (m, a);
  return k < m->nranges && m->ranges[k].start <= a ? k : SIZE_MAX;
}

/* Count BYTES of function F (index FI) in range R.  Return 0, or -1 when
   out of memory.  */
static int
attribute (struct range *r, const struct function *f, size_t fi, uint64_t bytes)
{
  r->nfuncs++;
  /* Keep the largest TOP_FUNCTIONS, by bytes, the lower address first.  */
  size_t k = r->ntop;
  if (k < TOP_FUNCTIONS)
    r->ntop++;
  else if (bytes <= r->top_bytes[TOP_FUNCTIONS - 1])
    k = TOP_FUNCTIONS;
  else
    k = TOP_FUNCTIONS - 1;
  if (k < TOP_FUNCTIONS)
    {
      while (k > 0 && r->top_bytes[k - 1] < bytes)
	{
	  r->top[k] = r->top[k - 1];
	  r->top_bytes[k] = r->top_bytes[k - 1];
	  k--;
	}
      r->top[k] = fi;
      r->top_bytes[k] = bytes;
    }
  if (f->cu == NO_CU)
    return 0;
  if (r->ncus > 0 && r->cus[r->ncus - 1].cu == f->cu)
    {
      r->cus[r->ncus - 1].bytes += bytes;
      return 0;
    }
  if (r->ncus == r->cucap)
    {
      size_t cap = r->cucap == 0 ? 16 : 2 * r->cucap;
      struct cu_bytes *grown = realloc (r->cus, cap * sizeof *grown);
      if (grown == NULL)
	return -1;
      r->cus = grown;
      r->cucap = cap;
    }
  r->cus[r->ncus].cu = f->cu;
  r->cus[r->ncus++].bytes = bytes;
  return 0;
}

static int
cu_by_index (const void *a, const void *b)
{
  const struct cu_bytes *x = a, *y = b;
  return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int
cu_by_bytes (const void *a, const void *b)
{
  const struct cu_bytes *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* Attribute each of M's functions, by bytes, to the ranges it overlaps; a
   function across a chunk boundary counts in each range with the bytes it
   has there.  Then merge each range's compilation units, largest first.
   Return 0, or -1 when out of memory.  */
static int
attribute_functions (struct map *m)
{
  const struct names *n = &m->names;
  for (size_t i = 0; i < n->nfuncs; i++)
    {
      const struct function *f = &n->funcs[i];
      for (size_t k = first_range_after (m, f->lo); k < m->nranges && m->ranges[k].start < f->hi;
	   k++)
	{
	  struct range *r = &m->ranges[k];
	  uint64_t lo = f->lo > r->start ? f->lo : r->start;
	  uint64_t hi = f->hi < r->end ? f->hi : r->end;
	  if (attribute (r, f, i, hi - lo) != 0)
	    return -1;
	}
    }
  for (size_t k = 0; k < m->nranges; k++)
    {
      struct range *r = &m->ranges[k];
      if (r->ncus == 0)
	continue;
      qsort (r->cus, r->ncus, sizeof *r->cus, cu_by_index);
      size_t j = 0;
      for (size_t i = 1; i < r->ncus; i++)
	if (r->cus[i].cu == r->cus[j].cu)
	  r->cus[j].bytes += r->cus[i].bytes;
	else
	  r->cus[++j] = r->cus[i];
      r->ncus = j + 1;
      qsort (r->cus, r->ncus, sizeof *r->cus, cu_by_bytes);
    }
  return 0;
}

/* ---- The hot profile ------------------------------------------------------ */

/* An index of function names for the --hot lookups.  */
struct name_index
{
  const char *name;
  const struct function *f;
};

static int
index_by_name (const void *a, const void *b)
{
  const struct name_index *x = a, *y = b;
  return strcmp (x->name, y->name);
}

/* The functions of N (and of EXTRA, may be empty) by name and by mangled
   name, sorted, into *INDEX (*COUNT of them).  Return 0, or -1 when out of
   memory.  */
static int
build_index (const struct names *n, const struct names *extra, struct name_index **index,
	     size_t *count)
{
  size_t cap = 2 * (n->nfuncs + extra->nfuncs) + 1;
  struct name_index *x = malloc (cap * sizeof *x);
  if (x == NULL)
    return -1;
  size_t k = 0;
  const struct names *both[2] = { n, extra };
  for (int b = 0; b < 2; b++)
    for (size_t i = 0; i < both[b]->nfuncs; i++)
      {
	const struct function *f = &both[b]->funcs[i];
	x[k].name = f->name;
	x[k++].f = f;
	if (f->linkage != NULL && strcmp (f->linkage, f->name) != 0)
	  {
	    x[k].name = f->linkage;
	    x[k++].f = f;
	  }
      }
  qsort (x, k, sizeof *x, index_by_name);
  *index = x;
  *count = k;
  return 0;
}

/* Add WEIGHT spread over the bytes of [LO, HI) to M's ranges, the share
   of bytes outside any range into *LOST.  */
static void
weigh_span (struct map *m, uint64_t lo, uint64_t hi, double weight, double *lost)
{
  double size = (double) (hi - lo), placed = 0;
  for (size_t k = first_range_after (m, lo); k < m->nranges && m->ranges[k].start < hi; k++)
    {
      struct range *r = &m->ranges[k];
      uint64_t a = lo > r->start ? lo : r->start;
      uint64_t b = hi < r->end ? hi : r->end;
      double w = weight * (double) (b - a) / size;
      r->hot += w;
      placed += w;
    }
  *lost += weight - placed;
}

/* Parse WORD as a weight: a non-negative decimal number, a trailing '%'
   allowed (perf's overhead column).  Return false if it is not one.  */
static bool
parse_weight (const char *word, double *w)
{
  /* strtod would also take "inf", "nan", hexadecimal and a sign.  */
  if ((*word < '0' || *word > '9') && *word != '.')
    return false;
  for (const char *c = word; *c != '\0'; c++)
    if (*c == 'x' || *c == 'X' || *c == 'n' || *c == 'N')
      return false;
  char *end;
  errno = 0;
  *w = strtod (word, &end);
  if (end == word || errno != 0 || !isfinite (*w) || *w > 1e18)
    return false;
  if (*end == '%')
    end++;
  return *end == '\0';
}

/* Parse WORD as a hexadecimal address "0x..." into *A.  */
static bool
parse_address (const char *word, uint64_t *a)
{
  if (word[0] != '0' || (word[1] != 'x' && word[1] != 'X') || word[2] == '\0')
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull (word + 2, &end, 16);
  if (*end != '\0' || errno != 0 || word[2] == '-' || word[2] == '+' || word[2] == ' ')
    return false;
  *a = v;
  return true;
}

/* Weigh the --hot line naming SYM (a function's name, or NAME+OFFSET for
   one place in it) with WEIGHT: spread over every function of that name
   by size, or put at the one place.  Return whether it named text; the
   weight that fell outside every range adds to *LOST.  */
static bool
weigh_symbol (struct map *m, const struct name_index *index, size_t nindex, char *sym,
	      double weight, double *lost)
{
  uint64_t off = 0;
  bool has_off = false, resolved = false;
  char *plus = strrchr (sym, '+');
  if (plus != NULL && plus != sym && parse_address (plus + 1, &off))
    {
      *plus = '\0';
      has_off = true;
    }
  struct name_index key = { .name = sym };
  const struct name_index *hit = bsearch (&key, index, nindex, sizeof *index, index_by_name);
  if (hit == NULL)
    return false;
  while (hit > index && strcmp (hit[-1].name, sym) == 0)
    hit--;
  const struct name_index *e;
  uint64_t bytes = 0;
  for (e = hit; e < index + nindex && strcmp (e->name, sym) == 0; e++)
    bytes += e->f->hi - e->f->lo;
  for (e = hit; e < index + nindex && strcmp (e->name, sym) == 0; e++)
    if (has_off)
      {
	size_t k;
	if (off < e->f->hi - e->f->lo && (k = range_at (m, e->f->lo + off)) != SIZE_MAX)
	  {
	    m->ranges[k].hot += weight;
	    resolved = true;
	  }
	break;	/* the first of that name: an offset names one place */
      }
    else
      {
	double w = weight * (double) (e->f->hi - e->f->lo) / (double) bytes;
	double part = 0;
	weigh_span (m, e->f->lo, e->f->hi, w, &part);
	*lost += part;
	resolved = true;
      }
  return resolved;
}

/* Weigh the lines of M's --hot file against M's ranges: each line
   "ADDRESS-or-SYMBOL WEIGHT" (ADDRESS 0x-hexadecimal, SYMBOL a function
   name, mangled or not, optionally +0xOFFSET into it); blank lines and
   lines starting with '#' are skipped.  A symbol without an offset spreads
   its weight over the function's bytes, and over every function of that
   name.  Return 0, or -1 with the reason (the line number in it) in *ERR.  */
static int
weigh_hot (struct map *m, struct diag *err)
{
  const char *path = m->opts->hot;
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return diag_set (err, "--hot: %s: %s", path, strerror (errno));
  struct name_index *index = NULL;
  size_t nindex = 0;
  if (build_index (&m->names, &m->symbols, &index, &nindex) != 0)
    {
      fclose (f);
      return diag_set (err, "out of memory");
    }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  size_t lineno = 0;
  int ret = 0;
  struct hot_total *h = &m->hot;
  while ((len = getline (&line, &cap, f)) >= 0)
    {
      lineno++;
      if ((size_t) len != strlen (line))
	{
	  ret = diag_set (err, "%s:%zu: a NUL byte in the line", path, lineno);
	  break;
	}
      char *words[3] = { NULL, NULL, NULL };
      size_t nwords = 0;
      for (char *save = NULL, *w = strtok_r (line, " \t\r\n", &save); w != NULL;
	   w = strtok_r (NULL, " \t\r\n", &save))
	{
	  if (nwords < 3)
	    words[nwords] = w;
	  nwords++;
	}
      if (nwords == 0 || words[0][0] == '#')
	continue;
      double weight;
      if (nwords != 2)
	{
	  ret = diag_set (err, "%s:%zu: %zu words, not 'ADDRESS-or-SYMBOL WEIGHT'", path, lineno,
			  nwords);
	  break;
	}
      if (!parse_weight (words[1], &weight))
	{
	  ret = diag_set (err, "%s:%zu: '%.64s' is not a weight (a non-negative number)", path,
			  lineno, words[1]);
	  break;
	}
      h->lines++;
      uint64_t a;
      double lost = 0;
      bool resolved = false;
      if (words[0][0] == '0' && (words[0][1] == 'x' || words[0][1] == 'X'))
	{
	  if (!parse_address (words[0], &a))
	    {
	      ret = diag_set (err, "%s:%zu: '%.64s' is not a hexadecimal address", path, lineno,
			      words[0]);
	      break;
	    }
	  size_t k = range_at (m, a);
	  if (k != SIZE_MAX)
	    {
	      m->ranges[k].hot += weight;
	      resolved = true;
	    }
	}
      else
	resolved = weigh_symbol (m, index, nindex, words[0], weight, &lost);
      if (!resolved || lost >= weight)
	{
	  h->unresolved++;
	  h->unresolved_weight += weight;
	}
      else
	h->unresolved_weight += lost;
    }
  if (ret == 0 && ferror (f))
    ret = diag_set (err, "--hot: %s: %s", path, strerror (errno));
  free (line);
  free (index);
  fclose (f);
  if (ret != 0)
    return ret;
  for (size_t k = 0; k < m->nranges; k++)
    if (m->ranges[k].chunk)
      h->in_chunks += m->ranges[k].hot;
    else
      h->outside += m->ranges[k].hot;
  h->total = h->in_chunks + h->outside;
  m->has_hot = true;
  return 0;
}

/* ---- The report ----------------------------------------------------------- */

static const char *
source_name (enum name_source s)
{
  switch (s)
    {
    case NAMES_DWARF: return "dwarf";
    case NAMES_SYMTAB: return "symtab";
    case NAMES_DYNSYM: return "dynsym";
    default: return "none";
    }
}

/* The text line of range R of M.  */
static void
text_range (FILE *out, const struct map *m, const struct range *r)
{
  if (r->chunk)
    fprintf (out, "chunk %zu %#" PRIx64 "-%#" PRIx64 ":", r->number, r->start, r->end);
  else
    fprintf (out, "outside %#" PRIx64 "-%#" PRIx64 " (segment %zu, %s):", r->start, r->end,
	     r->segment, r->part);
  if (m->names.source == NAMES_DWARF)
    fprintf (out, " %zu CU%s,", r->ncus, r->ncus == 1 ? "" : "s");
  fprintf (out, " %zu function%s", r->nfuncs, r->nfuncs == 1 ? "" : "s");
  for (size_t i = 0; i < r->ntop; i++)
    fprintf (out, "%s%s (%" PRIu64 ")", i == 0 ? "; largest: " : ", ",
	     m->names.funcs[r->top[i]].name, r->top_bytes[i]);
  for (size_t i = 0; i < r->ncus && i < TOP_CUS; i++)
    fprintf (out, "%s%s (%" PRIu64 ")", i == 0 ? "; CUs: " : ", ", m->names.cus[r->cus[i].cu],
	     r->cus[i].bytes);
  if (m->has_hot)
    fprintf (out, "; hot %.6g", r->hot);
  fputc ('\n', out);
}

static void
report_text_map (FILE *out, const struct map *m)
{
  char pmd[32];
  fprintf (out, "%s: %s %s, PMD size %s (%s)\n", m->name,
	   machine_name (m->file.ehdr.e_machine, m->file.elfclass), object_kind_name (m->file.kind),
	   format_size (m->pmd, pmd, sizeof pmd), m->pmd_source);
  const struct names *n = &m->names;
  if (n->source == NAMES_DWARF)
    fprintf (out, "names: DWARF in %s (%s)%s\n", n->file,
	     strcmp (n->found_by, "file") == 0 ? "the file itself" : n->found_by,
	     n->from_symbols != 0 ? ", and the symbol table where DWARF has none" : "");
  else if (n->source != NAMES_NONE)
    fprintf (out, "names: %s of %s (no DWARF: no compilation units)\n",
	     n->source == NAMES_SYMTAB ? ".symtab" : ".dynsym", n->file);
  else
    fprintf (out, "names: none (no DWARF, no symbol table)\n");
  if (m->as_aligned)
    fprintf (out, "chunks: %zu whole chunk%s of text once elfpmd aligns the file (as it is: %"
	     PRIu64 ")\n", m->nchunks, m->nchunks == 1 ? "" : "s", m->chunks_now);
  else if (m->nchunks == 0)
    fprintf (out, "chunks: none: no executable segment holds a whole chunk, aligned or not\n");
  else
    fprintf (out, "chunks: %zu whole chunk%s of text (the file is aligned as it is)\n",
	     m->nchunks, m->nchunks == 1 ? "" : "s");
  fprintf (out, "sizes in bytes inside each range\n");
  for (size_t k = 0; k < m->nranges; k++)
    text_range (out, m, &m->ranges[k]);
  if (m->has_hot)
    {
      const struct hot_total *h = &m->hot;
      fprintf (out, "hot: %zu lines, total weight %.6g, in whole chunks %.6g", h->lines,
	       h->total, h->in_chunks);
      if (h->total > 0)
	fprintf (out, " (%.1f%%)", 100 * h->in_chunks / h->total);
      fprintf (out, ", outside %.6g; unresolved %zu line%s (weight %.6g)\n", h->outside,
	       h->unresolved, h->unresolved == 1 ? "" : "s", h->unresolved_weight);
    }
}

/* The JSON object of range R of M.  */
static void
json_range (FILE *out, const struct map *m, const struct range *r)
{
  fputc ('{', out);
  if (r->chunk)
    fprintf (out, "\"index\":%zu,", r->number);
  fprintf (out, "\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"segment\":%zu,", r->start, r->end,
	   r->segment);
  if (r->chunk)
    fprintf (out, "\"now\":%s,", r->now ? "true" : "false");
  else
    fprintf (out, "\"part\":\"%s\",", r->part);
  if (m->names.source == NAMES_DWARF)
    fprintf (out, "\"cus\":%zu,", r->ncus);
  else
    fputs ("\"cus\":null,", out);
  fprintf (out, "\"functions\":%zu,\"largest\":[", r->nfuncs);
  for (size_t i = 0; i < r->ntop; i++)
    {
      fputs (i == 0 ? "{\"name\":" : ",{\"name\":", out);
      json_string (out, m->names.funcs[r->top[i]].name);
      fprintf (out, ",\"bytes\":%" PRIu64 "}", r->top_bytes[i]);
    }
  fputs ("],\"largest_cus\":[", out);
  for (size_t i = 0; i < r->ncus && i < TOP_CUS; i++)
    {
      fputs (i == 0 ? "{\"name\":" : ",{\"name\":", out);
      json_string (out, m->names.cus[r->cus[i].cu]);
      fprintf (out, ",\"bytes\":%" PRIu64 "}", r->cus[i].bytes);
    }
  fputc (']', out);
  if (m->has_hot)
    fprintf (out, ",\"hot\":%.17g", r->hot);
  fputc ('}', out);
}

static void
report_json_map (FILE *out, const struct map *m)
{
  fputs ("{\"file\":", out);
  json_string (out, m->name);
  fprintf (out, ",\"machine\":\"%s\",\"pmd_size\":%" PRIu64 ",\"names\":{\"source\":\"%s\",\"file\":",
	   machine_name (m->file.ehdr.e_machine, m->file.elfclass), m->pmd,
	   source_name (m->names.source));
  if (m->names.file != NULL)
    json_string (out, m->names.file);
  else
    fputs ("null", out);
  fputs (",\"found_by\":", out);
  if (m->names.found_by != NULL)
    json_string (out, m->names.found_by);
  else
    fputs ("null", out);
  fprintf (out, ",\"functions\":%zu},\"layout\":\"%s\",\"chunks_now\":%" PRIu64 ",\"chunks\":[",
	   m->names.nfuncs, m->as_aligned ? "as_aligned" : "as_is", m->chunks_now);
  bool first = true;
  for (size_t k = 0; k < m->nranges; k++)
    if (m->ranges[k].chunk)
      {
	if (!first)
	  fputc (',', out);
	first = false;
	json_range (out, m, &m->ranges[k]);
      }
  fputs ("],\"outside\":[", out);
  first = true;
  for (size_t k = 0; k < m->nranges; k++)
    if (!m->ranges[k].chunk)
      {
	if (!first)
	  fputc (',', out);
	first = false;
	json_range (out, m, &m->ranges[k]);
      }
  fputs ("],\"hot\":", out);
  if (m->has_hot)
    {
      const struct hot_total *h = &m->hot;
      fputs ("{\"file\":", out);
      json_string (out, m->opts->hot);
      fprintf (out, ",\"lines\":%zu,\"total\":%.17g,\"in_chunks\":%.17g,\"outside\":%.17g,\"share\":",
	       h->lines, h->total, h->in_chunks, h->outside);
      if (h->total > 0)
	fprintf (out, "%.17g", h->in_chunks / h->total);
      else
	fputs ("null", out);
      fprintf (out, ",\"unresolved_lines\":%zu,\"unresolved_weight\":%.17g}", h->unresolved,
	       h->unresolved_weight);
    }
  else
    fputs ("null", out);
  fputs ("}\n", out);
}

/* ---- The run ---------------------------------------------------------------- */

int
map_run (const char *name, const struct map_options *opts, FILE *out, FILE *errors)
{
  struct map m = { .name = name, .opts = opts };
  struct diag err = { "" };
  struct layout_plan plan;
  bool opened = false, planned = false;

  if (elf_file_open (&m.file, name, &err) != 0)
    goto done;
  opened = true;
  if (m.file.skip_reason != NULL)
    {
      diag_set (&err, "nothing to map: %s", m.file.skip_reason);
      goto done;
    }
  if (choose_sizes (m.file.ehdr.e_machine, m.file.elfclass, opts->pmd_size, opts->page_size,
		    &m.pmd, &m.page, m.pmd_source, sizeof m.pmd_source, &err) != 0)
    goto done;
  struct layout_options lo = { .rule = ALIGN_RULE_RELAXED, .pmd = m.pmd, .page = m.page,
			       .pad = true };
  if (layout_plan_build (&plan, &m.file, &lo, &err) != 0)
    goto done;
  planned = true;
  if (cut_ranges (&m, &plan, &err) != 0)
    goto done;
  if (m.nranges == 0)
    {
      diag_set (&err, "no read-only executable PT_LOAD with contents: no text to map");
      goto done;
    }
  if (names_find (&m.file, m.name, opts->debug_root, opts->no_dwarf, &m.names, &m.symbols, errors) != 0
      || (opts->demangle && names_demangle (&m.names) != 0)
      || attribute_functions (&m) != 0)
    {
      diag_set (&err, "out of memory");
      goto done;
    }
  if (opts->hot != NULL && weigh_hot (&m, &err) != 0)
    goto done;
  if (opts->json)
    report_json_map (out, &m);
  else
    report_text_map (out, &m);

done:
  if (err.msg[0] != '\0')
    fprintf (errors, "%s: %s: %s\n", diag_program, name, err.msg);
  for (size_t k = 0; k < m.nranges; k++)
    free (m.ranges[k].cus);
  free (m.ranges);
  names_free (&m.names);
  names_free (&m.symbols);
  if (planned)
    layout_plan_free (&plan);
  if (opened)
    elf_file_close (&m.file);
  return err.msg[0] != '\0' ? 1 : 0;
}

/* The command line.  */

static const struct argp_option map_options[] = {
  { "hot", OPT_HOT, "FILE", 0,
    "Weigh the hot code in FILE, lines 'ADDRESS-or-SYMBOL WEIGHT', against the whole chunks", 0 },
  { "demangle", 'C', NULL, 0,
    "Show C++ functions by their demangled names (as nm -C does); --hot still takes "
    "either", 0 },
  { "json", OPT_JSON, NULL, 0, "One JSON object", 0 },
  { "pmd-size", OPT_PMD_SIZE, "SIZE", 0,
    "Chunks of SIZE (e.g. 2M) instead of the PMD size of the file's machine", 0 },
  { "page-size", OPT_PAGE_SIZE, "SIZE", 0,
    "Base page size of the target kernel (e.g. 64K), when the machine has several", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char map_doc[] =
  "Show which compilation units and functions lie in each whole PMD chunk of "
  "FILE's text (the only text the kernel can map with PMD pages) and which "
  "stay outside, on small pages, at the head and tail of each executable "
  "segment."
  "\v"
  "The chunks are those of the file as elfpmd would align it (as it is, when "
  "it is aligned already; the header says which).  Names come from DWARF in "
  "FILE, else in its separate debug file (by build ID under /usr/lib/debug/"
  ".build-id, then by .gnu_debuglink beside FILE, in its .debug directory and "
  "under /usr/lib/debug; ELFPMD_DEBUG_ROOT replaces /usr/lib/debug), else from "
  ".symtab (FILE's, then the debug file's), else .dynsym.  A function across "
  "a chunk boundary counts on each side with its bytes there.\n\n"
  "--hot FILE: one 'ADDRESS-or-SYMBOL WEIGHT' per line (ADDRESS 0x-hexadecimal, "
  "as the file's symbols have it; SYMBOL a function name, optionally "
  "+0xOFFSET; WEIGHT a number, a trailing % allowed; '#' starts a comment "
  "line), for example from\n"
  "  perf report --stdio --no-children -q --no-demangle --dsos=FILE \\\n"
  "    --sort sym -F overhead,sym | awk '$2 == \"[.]\" { print $3, $1 }'\n"
  "The report adds the weight in whole chunks and its share of all.\n\n"
  "Exit status:\n"
  "  0   the map was printed\n"
  "  1   FILE or the --hot file could not be read, or a --hot line is bad\n"
  "      (one line on stderr names the file, the line and the reason)\n"
  "  64  usage error";

struct map_cmdline
{
  struct map_options opts;
  const char *file;
  struct size_options sizes;
};

static error_t
parse_map_opt (int key, char *arg, struct argp_state *state)
{
  struct map_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case 'C':
      if (!map_has_demangler ())
	argp_error (state, "-C: this elfpmd was built without a demangler (configure found no "
		    "libstdc++ with __cxa_demangle)");
      c->opts.demangle = true;
      break;
    case OPT_HOT:
      if (c->opts.hot != NULL)
	argp_error (state, "--hot given twice");
      if (*arg == '\0')
	argp_error (state, "--hot needs a file name");
      c->opts.hot = arg;
      break;
    case OPT_PMD_SIZE:
    case OPT_PAGE_SIZE:
      size_option (state, key, arg, &c->sizes);
      c->opts.pmd_size = c->sizes.pmd_size;
      c->opts.page_size = c->sizes.page_size;
      break;
    case ARGP_KEY_ARG:
      if (c->file != NULL)
	argp_error (state, "one FILE only");
      c->file = arg;
      break;
    case ARGP_KEY_END:
      if (c->file == NULL)
	argp_error (state, "no FILE");
      size_options_check (state, &c->sizes);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
map_command (int argc, char **argv)
{
  struct map_cmdline c = { .opts = { .debug_root = "/usr/lib/debug" } };
  /* Tests and unusual installations keep debug files elsewhere.  */
  const char *root = getenv ("ELFPMD_DEBUG_ROOT");
  if (root != NULL && *root != '\0')
    c.opts.debug_root = root;
  const char *no_dwarf = getenv ("ELFPMD_MAP_NO_DWARF");
  c.opts.no_dwarf = no_dwarf != NULL && *no_dwarf != '\0';
  const struct argp argp = { map_options, parse_map_opt, "FILE", map_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = map_run (c.file, &c.opts, stdout, stderr);
  return report_flushed (status);
}

