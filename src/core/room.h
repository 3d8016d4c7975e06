/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Room for one more program header.

   A rewrite that appends a PT_LOAD at the end of the file (elfpmd's startup
   stub is the one user; this module knows nothing of it) needs a place for
   its entry in the program header table, the first of these that works:

   - ROOM_SLOT: a slot that can go: PT_NULL, a PT_NOTE that repeats
     PT_GNU_PROPERTY, a shared object's PT_PHDR;
   - ROOM_GROWN: one more entry at the end of the table, which stays where
     it is: what follows it in the file is moved into the new segment (the
     PT_INTERP string, whole PT_NOTE segments, hash tables only DT_HASH or
     DT_GNU_HASH points to, with that entry of the dynamic section and the
     .symtab symbols defined in them patched) until one entry fits before
     the first thing that stays;
   - ROOM_MOVED: a copy of the whole table, one entry longer, at the start
     of the new segment.  AT_PHDR as kernels before 5.18 and qemu-user
     compute it (first PT_LOAD's address minus offset, plus e_phoff) finds
     it there, but GNU strip cannot rewrite such a file.  */
#ifndef ELFPMD_ROOM_H
#define ELFPMD_ROOM_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_file.h"
#include "layout.h"

enum room_kind
{
  ROOM_SLOT,			/* the entry takes over a slot that can go */
  ROOM_GROWN,			/* the table grows in place by one entry */
  ROOM_MOVED,			/* the table moves into the new segment */
};

/* One object moved out of the way of the growing table: a PT_INTERP or
   PT_NOTE segment (SEGMENT set, program header INDEX, with the sections and
   the PT_GNU_PROPERTY inside it), or a hash table section (section INDEX),
   whose dynamic entry DYN_INDEX (tag DT_HASH or DT_GNU_HASH) is patched.  */
struct room_moved
{
  bool segment;
  size_t index;
  size_t dyn_index;
  uint64_t dyn_offset;		/* new file offset of that dynamic entry */
  int64_t dyn_tag;
  uint64_t dyn_value;		/* its new value (room_place) */
};

/* At most this many objects move.  */
#define ROOM_MAX_MOVED 8

struct phdr_room
{
  enum room_kind kind;
  size_t slot;			/* the slot taken over (ROOM_SLOT), else SIZE_MAX */
  /* ROOM_GROWN: the old bytes [moved_start, moved_end), all of them objects
     of MOVED (and padding between them), go to moved_offset and moved_vaddr
     in the new segment (room_place); the table grows over them.  */
  uint64_t moved_start, moved_end;
  uint64_t moved_offset, moved_vaddr;
  uint64_t moved_align;		/* the largest alignment among them */
  size_t nmoved;
  struct room_moved moved[ROOM_MAX_MOVED];
  /* The symbols of the section SYMTAB_INDEX (SHT_SYMTAB, SIZE_MAX: none)
     defined in moved sections: their st_value follows them.  */
  size_t symtab_index;
  size_t nsyms_moved;
};

/* A program header of FILE that the new PT_LOAD can take over without
   losing anything, or SIZE_MAX if there is none.  */
size_t room_reusable_slot (const struct elf_file *file);

/* Plan the table's growth by one entry in place, moving what follows it
   into the new segment, where it may take at most MAX_BYTES (with its
   alignment, at most PAGE).  SECTIONS_OK: the section header table will be
   written anew at the end of the file (or there is none): the table may
   grow over its old place (the Go linker puts it right after the program
   header table).  LAYOUT gives the dynamic section's new
   offset.  Return false, with *R untouched but for the moved objects, when
   the table cannot grow.  */
bool room_grow (struct phdr_room *r, const struct layout_plan *layout, const struct elf_file *file,
		uint64_t page, bool sections_ok, uint64_t max_bytes);

/* For ROOM_GROWN: place what moves into the new segment at SEG_OFFSET and
   SEG_VADDR, and return the bytes it takes from the segment's start; 0 for
   the other kinds.  */
uint64_t room_place (struct phdr_room *r, const struct elf_file *file, uint64_t seg_offset,
		     uint64_t seg_vaddr);

/* Whether program header PH takes part in the growing: it has bytes in the
   file and is neither a PT_LOAD nor the table itself.  */
bool room_phdr_occupies (const GElf_Phdr *ph);

/* Whether old [OFF, OFF + LEN), with bytes, is among what R moves.  */
bool room_is_moved (const struct phdr_room *r, uint64_t off, uint64_t len);

/* Whether section INDEX of FILE is among what R moves.  */
bool room_section_moved (const struct phdr_room *r, const struct elf_file *file, size_t index);

/* The name of moved object M of FILE for the report: its segment's type
   ("PT_NOTE") or its section's name, the latter in BUF (LEN bytes).  */
const char *room_moved_name (const struct room_moved *m, const struct elf_file *file, char *buf,
			     size_t len);

#endif
