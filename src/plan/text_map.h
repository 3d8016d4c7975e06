/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What lies in each whole PMD chunk of a file's text, for elfpmd map: the
   text cut into ranges (the whole chunks of the file as a layout plan
   leaves it, and the heads and tails outside them), each function's bytes
   attributed to the ranges it overlaps, and a --hot profile weighed
   against the same ranges.  */
#ifndef ELFPMD_TEXT_MAP_H
#define ELFPMD_TEXT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "elf_file.h"
#include "layout.h"
#include "names.h"

/* How many functions each range lists.  */
#define TEXT_MAP_TOP_FUNCTIONS 5

/* One range of text: a whole chunk, or a part of an executable segment
   outside whole chunks.  */
struct text_range
{
  uint64_t start, end;
  size_t segment;		/* program header index */
  bool chunk;
  size_t number;		/* chunk number, in address order */
  bool now;			/* a chunk the file as it is already has */
  const char *part;		/* outside: "head", "tail" or "whole" */

  size_t nfuncs;		/* functions overlapping it */
  size_t top[TEXT_MAP_TOP_FUNCTIONS];	/* the largest of them, by bytes inside */
  uint64_t top_bytes[TEXT_MAP_TOP_FUNCTIONS];
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

struct text_map
{
  uint64_t pmd;			/* the chunk size, set before text_map_cut */
  bool as_aligned;		/* the chunks are those the plan would make */
  uint64_t chunks_now;		/* whole chunks of text in the file as it is */
  struct text_range *ranges;	/* sorted by address, disjoint */
  size_t nranges, rcap;
  size_t nchunks;
  bool has_hot;
  struct hot_total hot;
};

/* Cut the text of FILE into M's ranges: the whole chunks of each text
   segment that PLAN leaves congruent in an object with a PMD-aligned load
   base, and the parts outside them.  Text is the file-backed part of a
   segment.  Overlapping segments (a hostile file) keep only the first.
   Return 0, or -1 with the reason in *ERR.  */
int text_map_cut (struct text_map *m, const struct elf_file *file, const struct layout_plan *plan,
		  struct diag *err);

/* Attribute each function of N, by bytes, to the ranges of M it overlaps;
   a function across a chunk boundary counts in each range with the bytes
   it has there.  Then merge each range's compilation units, largest first.
   Return 0, or -1 when out of memory.  */
int text_map_attribute (struct text_map *m, const struct names *n);

/* Weigh the lines of the --hot file PATH against M's ranges: each line
   "ADDRESS-or-SYMBOL WEIGHT" (ADDRESS 0x-hexadecimal, SYMBOL a function
   name of NAMES or SYMBOLS, mangled or not, optionally +0xOFFSET into it);
   blank lines and lines starting with '#' are skipped.  A symbol without
   an offset spreads its weight over the function's bytes, and over every
   function of that name.  Return 0, or -1 with the reason (the line number
   in it) in *ERR.  */
int text_map_weigh_hot (struct text_map *m, const char *path, const struct names *names,
			const struct names *symbols, struct diag *err);

void text_map_free (struct text_map *m);

#endif
