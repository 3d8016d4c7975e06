/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A model of a processor's instruction-TLB hierarchy: a first level and a
   second level, each one or two arrays (set-associative, least recently
   used replacement) that hold 4 KiB pages, 2 MiB pages or both.  A lookup
   that misses the first level and hits the second fills the first; one
   that misses both is a page walk and fills both.  No data-side pressure
   on a unified second level, no prefetching, no 1 GiB pages.  */
#ifndef ELFPMD_BENCH_TLB_H
#define ELFPMD_BENCH_TLB_H

#include <stddef.h>
#include <stdint.h>

enum { TLB_4K = 0, TLB_2M = 1, TLB_NSIZES = 2 };
#define TLB_HOLDS(size) (1u << (size))

struct tlb_array_spec
{
  unsigned entries;		/* 0: no such array */
  unsigned ways;		/* == entries: fully associative */
  unsigned sizes;		/* TLB_HOLDS (TLB_4K) | TLB_HOLDS (TLB_2M) */
};

struct tlb_level_spec
{
  struct tlb_array_spec array[2];
};

struct tlb_cpu_spec
{
  const char *name;		/* as -c takes it: zen3, goldencove, ... */
  const char *title;
  struct tlb_level_spec l1, l2;
  const char *l2_note;		/* "instruction only", "unified" */
  unsigned walk_cycles;		/* the latency a walk is charged */
};

extern const struct tlb_cpu_spec tlb_cpus[];
extern const size_t tlb_ncpus;

/* The model named NAME, or NULL.  */
const struct tlb_cpu_spec *tlb_cpu_find (const char *name);

struct tlb_array
{
  unsigned sets, ways, sizes;
  uint64_t *tags;		/* sets * ways, each set most recent first; 0 empty */
};

struct tlb
{
  const struct tlb_cpu_spec *spec;
  struct tlb_array l1[2], l2[2];
  uint64_t last;		/* the tag of the last lookup (a first-level hit) */
  uint64_t lookups, l1_misses, walks;
};

/* 0, or -1 when out of memory.  */
int tlb_init (struct tlb *t, const struct tlb_cpu_spec *spec);
void tlb_free (struct tlb *t);
/* Empty every array and zero the counts (a new process).  */
void tlb_reset (struct tlb *t);
/* An instruction fetch from page number VPN (the address shifted by the
   page size's bits) of page size SIZE.  */
void tlb_access (struct tlb *t, uint64_t vpn, unsigned size);

#endif
