/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What lies in each whole chunk of a file's text (text_map.h).  */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "text_chunks.h"
#include "text_map.h"

/* Append the range [START, END) of segment SEG to M.  Return 0, or -1 when
   out of memory.  */
static int
add_range (struct text_map *m, uint64_t start, uint64_t end, size_t seg, bool chunk, bool now,
	   const char *part)
{
  if (m->nranges == m->rcap)
    {
      size_t cap = m->rcap == 0 ? 16 : 2 * m->rcap;
      struct text_range *grown = realloc (m->ranges, cap * sizeof *grown);
      if (grown == NULL)
	return -1;
      m->ranges = grown;
      m->rcap = cap;
    }
  struct text_range *r = &m->ranges[m->nranges++];
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
  const struct text_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

int
text_map_cut (struct text_map *m, const struct elf_file *f, const struct layout_plan *plan,
	      struct diag *err)
{
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
first_range_after (const struct text_map *m, uint64_t a)
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
range_at (const struct text_map *m, uint64_t a)
{
  size_t k = first_range_after (m, a);
  return k < m->nranges && m->ranges[k].start <= a ? k : SIZE_MAX;
}

/* Count BYTES of function F (index FI) in range R.  Return 0, or -1 when
   out of memory.  */
static int
attribute (struct text_range *r, const struct function *f, size_t fi, uint64_t bytes)
{
  r->nfuncs++;
  /* Keep the largest TEXT_MAP_TOP_FUNCTIONS, by bytes, the lower address first.  */
  size_t k = r->ntop;
  if (k < TEXT_MAP_TOP_FUNCTIONS)
    r->ntop++;
  else if (bytes <= r->top_bytes[TEXT_MAP_TOP_FUNCTIONS - 1])
    k = TEXT_MAP_TOP_FUNCTIONS;
  else
    k = TEXT_MAP_TOP_FUNCTIONS - 1;
  if (k < TEXT_MAP_TOP_FUNCTIONS)
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

int
text_map_attribute (struct text_map *m, const struct names *n)
{
  for (size_t i = 0; i < n->nfuncs; i++)
    {
      const struct function *f = &n->funcs[i];
      for (size_t k = first_range_after (m, f->lo); k < m->nranges && m->ranges[k].start < f->hi;
	   k++)
	{
	  struct text_range *r = &m->ranges[k];
	  uint64_t lo = f->lo > r->start ? f->lo : r->start;
	  uint64_t hi = f->hi < r->end ? f->hi : r->end;
	  if (attribute (r, f, i, hi - lo) != 0)
	    return -1;
	}
    }
  for (size_t k = 0; k < m->nranges; k++)
    {
      struct text_range *r = &m->ranges[k];
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

/* The hot profile.  */

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
weigh_span (struct text_map *m, uint64_t lo, uint64_t hi, double weight, double *lost)
{
  double size = (double) (hi - lo), placed = 0;
  for (size_t k = first_range_after (m, lo); k < m->nranges && m->ranges[k].start < hi; k++)
    {
      struct text_range *r = &m->ranges[k];
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
weigh_symbol (struct text_map *m, const struct name_index *index, size_t nindex, char *sym,
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

int
text_map_weigh_hot (struct text_map *m, const char *path, const struct names *names,
		    const struct names *symbols, struct diag *err)
{
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return diag_set (err, "--hot: %s: %s", path, strerror (errno));
  struct name_index *index = NULL;
  size_t nindex = 0;
  if (build_index (names, symbols, &index, &nindex) != 0)
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

void
text_map_free (struct text_map *m)
{
  for (size_t k = 0; k < m->nranges; k++)
    free (m->ranges[k].cus);
  free (m->ranges);
  m->ranges = NULL;
  m->nranges = m->rcap = 0;
}
