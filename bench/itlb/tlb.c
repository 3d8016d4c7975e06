/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The instruction-TLB models (tlb.h) and their parameters.  */
#include <stdlib.h>
#include <string.h>

#include "tlb.h"

#define BOTH (TLB_HOLDS (TLB_4K) | TLB_HOLDS (TLB_2M))
#define K4 TLB_HOLDS (TLB_4K)
#define M2 TLB_HOLDS (TLB_2M)

/* The models.  A walk is charged WALK cycles: no vendor states a walk
   latency; 30 is a round figure for a walk whose page-table entries are in
   the data caches (native, not nested).  Where a number could not be read
   in the vendor's own document it says so, and where it comes from.  */
#define WALK 30

const struct tlb_cpu_spec tlb_cpus[] = {
  /* AMD Zen 4.  Software Optimization Guide for the AMD Zen4
     Microarchitecture (57647), 2.7.1-2.7.2, as transcribed (the guide
     itself was not reachable here): L1 ITLB 64 entries, 4K/16K coalesced,
     2M and 1G pages (Linux perf's amdzen4 event 0x94 names the sizes); L2
     ITLB 512 entries, instruction only.  Associativity not read in the
     guide: fully associative and 8-way are 7-cpu.com's measured figures
     for Zen 2, whose ITLBs have the same sizes.  */
  { "zen4", "AMD Zen 4",
    { { { 64, 64, BOTH } } },
    { { { 512, 8, BOTH } } },
    "instruction only", WALK },
  /* Intel Golden Cove (Alder Lake P-core, Sapphire Rapids).  Intel 64 and
     IA-32 Architectures Optimization Reference Manual, Golden Cove: "the
     iTLBs is doubled to hold 256 entries for 4-KB pages and 32 entries for
     2/4 million pages", a "2,048-entry second level TLB (STLB)"; the ways
     from CPUID leaf 18H (the same on an i7-12700K and Bochs's Sapphire
     Rapids): iTLB 4K 8-way, iTLB 2M/4M 8-way, STLB two 1024-entry 8-way
     arrays, one for 4K and 2M/4M pages, one for 4K and 1G.  Modelled as
     2048 entries 16-way for 4K and 1024 8-way for 2M, apart (mixed 4K and
     2M pages share the first array in the core: optimistic there).  */
  { "goldencove", "Intel Golden Cove (Sapphire Rapids)",
    { { { 256, 8, K4 }, { 32, 8, M2 } } },
    { { { 2048, 16, K4 }, { 1024, 8, M2 } } },
    "unified", WALK },
  /* Arm Neoverse N1.  Arm Neoverse N1 Core Technical Reference Manual
     (100616, r4p1), 6.2.1: "The instruction L1 TLB is implemented as a
     48-entry fully associative structure", caching 4KB, 16KB, 64KB, 2MB
     and 32MB entries; 6.2.3 and table 6-4: the L2 TLB, "shared by
     instruction and data", a "5-way, set associative, 1280-entry cache"
     for all page sizes, usually three cycles.  */
  { "n1", "Arm Neoverse N1",
    { { { 48, 48, BOTH } } },
    { { { 1280, 5, BOTH } } },
    "unified", WALK },
};

const size_t tlb_ncpus = sizeof tlb_cpus / sizeof tlb_cpus[0];

const struct tlb_cpu_spec *
tlb_cpu_find (const char *name)
{
  for (size_t i = 0; i < tlb_ncpus; i++)
    if (strcmp (tlb_cpus[i].name, name) == 0)
      return &tlb_cpus[i];
  return NULL;
}

static int
array_init (struct tlb_array *a, const struct tlb_array_spec *s)
{
  memset (a, 0, sizeof *a);
  if (s->entries == 0)
    return 0;
  a->ways = s->ways;
  a->sets = s->entries / s->ways;
  a->sizes = s->sizes;
  a->tags = calloc ((size_t) a->sets * a->ways, sizeof *a->tags);
  return a->tags == NULL ? -1 : 0;
}

int
tlb_init (struct tlb *t, const struct tlb_cpu_spec *spec)
{
  memset (t, 0, sizeof *t);
  t->spec = spec;
  for (int i = 0; i < 2; i++)
    if (array_init (&t->l1[i], &spec->l1.array[i]) != 0
	|| array_init (&t->l2[i], &spec->l2.array[i]) != 0)
      {
	tlb_free (t);
	return -1;
      }
  return 0;
}

void
tlb_free (struct tlb *t)
{
  for (int i = 0; i < 2; i++)
    {
      free (t->l1[i].tags);
      free (t->l2[i].tags);
      t->l1[i].tags = t->l2[i].tags = NULL;
    }
}

void
tlb_reset (struct tlb *t)
{
  for (int i = 0; i < 2; i++)
    {
      if (t->l1[i].tags != NULL)
	memset (t->l1[i].tags, 0, (size_t) t->l1[i].sets * t->l1[i].ways * sizeof (uint64_t));
      if (t->l2[i].tags != NULL)
	memset (t->l2[i].tags, 0, (size_t) t->l2[i].sets * t->l2[i].ways * sizeof (uint64_t));
    }
  t->last = 0;
  t->lookups = t->l1_misses = t->walks = 0;
}

/* The array of a level that holds pages of SIZE, or NULL.  */
static struct tlb_array *
holding (struct tlb_array *level, unsigned size)
{
  for (int i = 0; i < 2; i++)
    if (level[i].tags != NULL && (level[i].sizes & TLB_HOLDS (size)))
      return &level[i];
  return NULL;
}

/* Look TAG up in A (page number VPN); on a hit move it to the front of its
   set.  Return whether it hit.  */
static int
lookup (struct tlb_array *a, uint64_t vpn, uint64_t tag)
{
  uint64_t *set = a->tags + (size_t) (vpn % a->sets) * a->ways;
  for (unsigned w = 0; w < a->ways; w++)
    if (set[w] == tag)
      {
	memmove (set + 1, set, w * sizeof *set);
	set[0] = tag;
	return 1;
      }
    else if (set[w] == 0)
      break;
  return 0;
}

/* Put TAG at the front of its set, the least recently used entry out.  */
static void
fill (struct tlb_array *a, uint64_t vpn, uint64_t tag)
{
  uint64_t *set = a->tags + (size_t) (vpn % a->sets) * a->ways;
  memmove (set + 1, set, (a->ways - 1) * sizeof *set);
  set[0] = tag;
}

void
tlb_access (struct tlb *t, uint64_t vpn, unsigned size)
{
  uint64_t tag = vpn << 2 | (uint64_t) size << 1 | 1;
  t->lookups++;
  if (tag == t->last)
    return;			/* the most recent entry of its first-level set */
  struct tlb_array *a1 = holding (t->l1, size);
  t->last = a1 != NULL ? tag : 0;
  if (a1 != NULL && lookup (a1, vpn, tag))
    return;
  t->l1_misses++;
  struct tlb_array *a2 = holding (t->l2, size);
  if (a2 != NULL && lookup (a2, vpn, tag))
    {
      if (a1 != NULL)
	fill (a1, vpn, tag);
      return;
    }
  t->walks++;
  if (a2 != NULL)
    fill (a2, vpn, tag);
  if (a1 != NULL)
    fill (a1, vpn, tag);
}
