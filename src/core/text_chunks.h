/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The central question, answered once: which whole PMD-sized chunks of an
   object's text a kernel can map with one PMD entry each.

   Text is a PT_LOAD that is executable and not writable.  A chunk [C, C +
   PMD) of it counts when
     - C is a multiple of PMD once loaded: the load base is PMD-aligned
       (fixed addresses, ET_EXEC; else the largest power-of-two p_align is
       at least PMD, which the kernel and ld.so honour);
     - the segment's file offset is congruent with its address modulo PMD
       (a PMD maps a PMD-aligned stretch of the file);
     - it lies wholly inside the file-backed part of the segment,
       [p_vaddr, p_vaddr + min (p_filesz, p_memsz)).
   Read-only data is not text: the stub populates text only, status, prime
   and map show text, and the instruction TLB is what elfpmd is for
   (doc/design.md, "What a chunk is").

   Every question takes an optional layout plan: with one, the program
   headers as the plan leaves them (new offsets and alignments), without,
   as they are in the file.  */
#ifndef ELFPMD_TEXT_CHUNKS_H
#define ELFPMD_TEXT_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_file.h"
#include "layout.h"

/* Whether program header INDEX is text: a PT_LOAD with PF_X, without PF_W.  */
bool text_segment (const struct elf_file *file, size_t index);

/* The largest power-of-two p_align among the PT_LOADs (0 if none), as the
   kernel's maximum_alignment() and ld.so compute it.  */
uint64_t load_max_align (const struct elf_file *file, const struct layout_plan *plan);

/* Whether the load base is a multiple of PMD: fixed addresses, or the
   largest p_align at least PMD.  */
bool load_base_aligned (const struct elf_file *file, const struct layout_plan *plan, uint64_t pmd);

/* The whole chunks of one text segment.  */
struct chunk_run
{
  size_t phdr;			/* program header index */
  uint64_t vaddr;		/* the first chunk's link address */
  uint64_t offset;		/* its file offset (the plan's when there is one) */
  uint64_t n;			/* chunks, at least one */
};

/* The whole chunks of program header INDEX into *RUN: true when it is text
   and has any (BASE_ALIGNED: load_base_aligned's answer, asked once).  */
bool text_chunk_run (const struct elf_file *file, const struct layout_plan *plan, size_t index,
		     uint64_t pmd, bool base_aligned, struct chunk_run *run);

/* The number of whole text chunks of the object.  */
uint64_t text_chunks (const struct elf_file *file, const struct layout_plan *plan, uint64_t pmd);

/* The file offsets of the whole text chunks of FILE as it is, into
   *OFFSETS (N of them; free it).  Return 0, or -1 when out of memory.  */
int text_chunk_offsets (const struct elf_file *file, uint64_t pmd, uint64_t **offsets,
			uint64_t *n);

/* The whole chunks of a mapping [START, END) of file offset OFFSET (a line
   of /proc/PID/maps): those whose address and file offset are both
   multiples of PMD; the first one's address in *FIRST when not NULL.  */
uint64_t mapping_chunks (uint64_t start, uint64_t end, uint64_t offset, uint64_t pmd,
			 uint64_t *first);

#endif
