/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: keep the program's other mappings of its file from
   reading small folios into the text's chunks (guard_neighbours).

   A fault in a file mapping reads around it: up to the device's read-ahead
   window (read_ahead_kb) centred on the fault, so a fault in read-only
   data, in the data or in the text's head and tail reads the neighbouring
   text chunks in small folios, and a chunk once cached small stays small
   until it is evicted and read again (repair.c).  At a large read-ahead
   (8 MiB on many cloud disks and RAID devices) that window covers several
   chunks at each end of the text, and without a guard the stub would have
   to populate every one of them at startup (populate.c), reading text the
   program may never run: a cold start then reads more than the original.

   So, once per object, the stub advises every part of its file's other
   mappings that lies within that window of a text range (edge_chunks) with
   MADV_RANDOM, which turns read-around off, and, where the mapping is not
   writable, MADV_HUGEPAGE, under which a fault reads exactly the PMD-sized
   block of the file around it (one large read rather than many small
   ones), a block that never holds one of the text's whole chunks.  A
   writable mapping (data) gets MADV_RANDOM only: MADV_HUGEPAGE there would
   give its copy-on-write pages anonymous huge pages.  Then an uncached
   chunk near the text's ends stays uncached until the program's own fault
   reads it as one PMD folio, as any other does.  What was read before the
   stub ran (the loader's and relocation's faults) the populate step finds
   cached and repairs.  Only the object's own mappings are advised: they
   belong to this process; a mapping another object or a later dlopen
   makes of the same file is not.  */
#include "runtime.h"

/* Add to S's guards the part of the mapping E whose file offsets lie in
   [FROM, TO).  Return -1 when the list is full.  */
static int
add_guard (struct scratch *s, const struct maps_line *e, uint64_t from, uint64_t to)
{
  uint64_t off = e->offset, end = off + (e->hi - e->lo);
  if (from < off)
    from = off;
  if (to > end)
    to = end;
  if (from >= to)
    return 0;
  if (s->nguards == MAX_GUARDS)
    return -1;
  struct guard *g = &s->guards[s->nguards++];
  g->start = e->lo + (from - off);
  g->end = e->lo + (to - off);
  g->writable = e->writable;
  return 0;
}

/* Add the parts of the mapping E within ZONE bytes of a text range (below
   its start or past its end) to S's guards.  Return -1 when the list is
   full.  */
static int
guard_mapping (struct stub *st, struct scratch *s, const struct maps_line *e, uint64_t zone)
{
  const struct stub_params *p = st->p;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uint64_t start = p->range[r].file_offset, end = start + p->range[r].length;
      uint64_t below = start > zone ? start - zone : 0;
      uint64_t above = end + zone < end ? UINT64_MAX : end + zone;
      if (add_guard (s, e, below, start) != 0 || add_guard (s, e, end, above) != 0)
	return -1;
    }
  return 0;
}

/* Collect into the scratch's guards the parts of this process's mappings of
   the object's file (ST->map's device and inode) within ZONE bytes of a
   text range.  Return 0, or -1 when /proc/self/maps cannot be read or
   there are more than MAX_GUARDS parts.  */
static int
collect_guards (struct stub *st, uint64_t zone)
{
  struct lines l;
  if (lines_open (st, &l, "/proc/self/maps") != 0)
    return -1;
  struct scratch *s = st->scratch;
  char *line = s->line;
  int err = 0;
  s->nguards = 0;
  while (err == 0 && next_line (&l, line, MAPS_LINE) >= 0)
    {
      const char *c = line;
      struct maps_line e;
      if (parse_maps_line (&c, &e) != 0 || e.ino != st->map.ino
	  || e.dev_major != st->map.dev_major || e.dev_minor != st->map.dev_minor
	  || e.hi <= e.lo || (e.lo | e.hi | e.offset) % st->page != 0)
	continue;
      err = guard_mapping (st, s, &e, zone);
    }
  sys_close (l.fd);
  return err;
}

/* Guard the text's neighbours (see above) once per object; return 1 when
   every part is advised, so that uncached chunks near the text's ends can
   be left to the program's own faults, else 0 (they are populated then).  */
int
guard_neighbours (struct stub *st)
{
  if (st->guarded != -1)
    return st->guarded;
  st->guarded = 0;
  uint64_t edge = edge_chunks (st);
  uint64_t zone = edge > UINT64_MAX / st->pmd ? UINT64_MAX : edge * st->pmd;
  if (scratch (st) == NULL || (!st->map.found && find_mapping (st, st->self) != 0)
      || collect_guards (st, zone) != 0)
    return 0;
  struct scratch *s = st->scratch;
  for (int k = 0; k < s->nguards; k++)
    {
      const struct guard *g = &s->guards[k];
      uint64_t len = g->end - g->start;
      if ((!g->writable && sys_madvise (g->start, len, MADV_HUGEPAGE) != 0)
	  || sys_madvise (g->start, len, MADV_RANDOM) != 0)
	return 0;
    }
  st->guarded = 1;
  return 1;
}
