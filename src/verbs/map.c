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

   The map runs in three passes: find the names (names.h: functions with
   their address ranges and compilation units, from DWARF in the file or in
   its separate debug file, else from the symbol table), cut the text into
   ranges (the whole chunks, and the heads and tails outside them), and
   attribute each function's bytes to the ranges it overlaps (text_map.h).
   A --hot profile is then weighed against the same ranges.  */
#include <config.h>

#include <argp.h>
#include <sysexits.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "layout.h"
#include "map.h"
#include "names.h"
#include "cmdline.h"
#include "machine.h"
#include "report.h"
#include "sizes.h"
#include "text_map.h"

/* How many compilation units each range lists.  */
#define TOP_CUS 3

struct map
{
  const char *name;
  const struct map_options *opts;
  struct elf_file file;
  uint64_t pmd, page;
  char pmd_source[128];
  struct names names;
  struct names symbols;		/* the symbol table, for --hot names DWARF lacks */
  struct text_map t;		/* the ranges, what lies in them, the hot weight */
};

bool
map_has_demangler (void)
{
  return names_can_demangle ();
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
text_range (FILE *out, const struct map *m, const struct text_range *r)
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
  if (m->t.has_hot)
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
  if (m->t.as_aligned)
    fprintf (out, "chunks: %zu whole chunk%s of text once elfpmd aligns the file (as it is: %"
	     PRIu64 ")\n", m->t.nchunks, m->t.nchunks == 1 ? "" : "s", m->t.chunks_now);
  else if (m->t.nchunks == 0)
    fprintf (out, "chunks: none: no executable segment holds a whole chunk, aligned or not\n");
  else
    fprintf (out, "chunks: %zu whole chunk%s of text (the file is aligned as it is)\n",
	     m->t.nchunks, m->t.nchunks == 1 ? "" : "s");
  fprintf (out, "sizes in bytes inside each range\n");
  for (size_t k = 0; k < m->t.nranges; k++)
    text_range (out, m, &m->t.ranges[k]);
  if (m->t.has_hot)
    {
      const struct hot_total *h = &m->t.hot;
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
json_range (FILE *out, const struct map *m, const struct text_range *r)
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
  if (m->t.has_hot)
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
	   m->names.nfuncs, m->t.as_aligned ? "as_aligned" : "as_is", m->t.chunks_now);
  bool first = true;
  for (size_t k = 0; k < m->t.nranges; k++)
    if (m->t.ranges[k].chunk)
      {
	if (!first)
	  fputc (',', out);
	first = false;
	json_range (out, m, &m->t.ranges[k]);
      }
  fputs ("],\"outside\":[", out);
  first = true;
  for (size_t k = 0; k < m->t.nranges; k++)
    if (!m->t.ranges[k].chunk)
      {
	if (!first)
	  fputc (',', out);
	first = false;
	json_range (out, m, &m->t.ranges[k]);
      }
  fputs ("],\"hot\":", out);
  if (m->t.has_hot)
    {
      const struct hot_total *h = &m->t.hot;
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
  m.t.pmd = m.pmd;
  if (text_map_cut (&m.t, &m.file, &plan, &err) != 0)
    goto done;
  if (m.t.nranges == 0)
    {
      diag_set (&err, "no read-only executable PT_LOAD with contents: no text to map");
      goto done;
    }
  if (names_find (&m.file, m.name, opts->debug_root, opts->no_dwarf, &m.names, &m.symbols, errors) != 0
      || (opts->demangle && names_demangle (&m.names) != 0)
      || text_map_attribute (&m.t, &m.names) != 0)
    {
      diag_set (&err, "out of memory");
      goto done;
    }
  if (opts->hot != NULL
      && text_map_weigh_hot (&m.t, opts->hot, &m.names, &m.symbols, &err) != 0)
    goto done;
  if (opts->json)
    report_json_map (out, &m);
  else
    report_text_map (out, &m);

done:
  if (err.msg[0] != '\0')
    fprintf (errors, "%s: %s: %s\n", diag_program, name, err.msg);
  text_map_free (&m.t);
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

