/* The startup stub that makes the kernel back the aligned text with huge
   pages, and its injection into a file.

   The stub itself is machine code generated from stub/ (see
   tools/gen-stub.sh); what it does at run time is described in stub/stub.c.
   Here is where it goes: a new read-only, executable PT_LOAD appended to the
   file, above every other segment, whose address minus its offset equals
   the first PT_LOAD's.  Its program header needs a place in the table, the
   first of these that works:

   - a slot that can go: PT_NULL, a PT_NOTE that repeats PT_GNU_PROPERTY, a
     shared object's PT_PHDR;
   - one more entry at the end of the table, which stays where it is: what
     follows it in the file is moved into the new segment (the PT_INTERP
     string, whole PT_NOTE segments, hash tables only DT_HASH or DT_GNU_HASH
     points to, with that entry of the dynamic section and the .symtab
     symbols defined in them patched) until one entry fits before the first
     thing that stays;
   - a copy of the whole table, one entry longer, at the start of the new
     segment.  AT_PHDR as kernels before 5.18 and qemu-user compute it
     (first PT_LOAD's address minus offset, plus e_phoff) finds it there,
     but GNU strip cannot rewrite such a file.

   Programs are hooked through e_entry; shared objects through DT_INIT,
   chaining to an existing one, or, on machines whose ld.so calls no
   DT_INIT (riscv64), through the first entry of DT_INIT_ARRAY, chaining to
   the function it held (stub/init_array.c).  */
#ifndef ELFPMD_STUB_STUB_H
#define ELFPMD_STUB_STUB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "elf_file.h"
#include "layout.h"
#include "pieces.h"
#include "arch.h"
#include "stub_params.h"

enum stub_hook
{
  STUB_HOOK_ENTRY,		/* e_entry of a program */
  STUB_HOOK_INIT_CHAIN,		/* DT_INIT of a shared object, chaining to the old one */
  STUB_HOOK_INIT_NEW,		/* DT_INIT put into a spare DT_NULL slot */
  STUB_HOOK_INIT_ARRAY,		/* DT_INIT_ARRAY[0] of a shared object, chaining to the old one */
};

/* Where the new PT_LOAD's program header goes (see the top).  */
enum stub_table
{
  STUB_TABLE_SLOT,		/* it takes over a slot that can go */
  STUB_TABLE_GROWN,		/* the table grows in place by one entry */
  STUB_TABLE_MOVED,		/* the table moves into the new segment */
};

/* One object moved out of the way of the growing table: a PT_INTERP or
   PT_NOTE segment (SEGMENT set, program header INDEX, with the sections and
   the PT_GNU_PROPERTY inside it), or a hash table section (section INDEX),
   whose dynamic entry DYN_INDEX (tag DT_HASH or DT_GNU_HASH) is patched.  */
struct stub_moved
{
  bool segment;
  size_t index;
  size_t dyn_index;
  uint64_t dyn_offset;		/* new file offset of that dynamic entry */
  int64_t dyn_tag;
  uint64_t dyn_value;		/* its new value */
};

/* At most this many objects move.  */
#define STUB_MAX_MOVED 8

/* What the stub is asked for.  */
/* What the user asked of the stub, one struct from the command line
   (run_options) through the plan (plan_options) to the stub's plan.  */
struct stub_request
{
  bool wanted;			/* --madvise was given */
  uint64_t populate_max;	/* the stub populates ranges of at most this many chunks whole */
  bool copy;			/* --madvise=copy */
  uint64_t copy_max;		/* --copy-max; 0: all the aligned text */
};

struct stub_options
{
  struct stub_request req;
  uint64_t pmd, page;		/* the sizes the file is planned for */
};

/* Where the stub goes and how it is hooked.  */
struct stub_plan
{
  bool wanted;			/* --madvise was given */
  bool enabled;			/* the stub will be injected */
  bool present;			/* the file has an elfpmd stub already */
  const char *refusal;		/* why not, when wanted but not enabled */
  const struct stub_arch *stub;

  uint64_t seg_offset, seg_vaddr, seg_size; /* the new PT_LOAD */
  size_t new_phnum;
  size_t new_load_index;	/* index of the new PT_LOAD in the new table */
  enum stub_table table;	/* where its program header goes */
  size_t reuse_slot;		/* the slot taken over (STUB_TABLE_SLOT) */
  uint64_t page;		/* the new PT_LOAD's alignment */
  uint64_t end_offset;		/* the output's end */

  /* STUB_TABLE_GROWN: the old bytes [moved_start, moved_end), all of them
     objects of MOVED (and padding between them), go to moved_offset and
     moved_vaddr in the new segment; the table grows over them.  */
  uint64_t moved_start, moved_end;
  uint64_t moved_offset, moved_vaddr;
  uint64_t moved_align;		/* the largest alignment among them */
  size_t nmoved;
  struct stub_moved moved[STUB_MAX_MOVED];
  /* The symbols of the section SYMTAB_INDEX (SHT_SYMTAB, SIZE_MAX: none)
     defined in moved sections: their st_value follows them.  */
  size_t symtab_index;
  size_t nsyms_moved;

  uint64_t code_offset, code_vaddr; /* the stub's first byte */
  uint64_t entry_vaddr;		/* the stub's entry point */

  /* A section header for the stub (".elfpmd.stub"), so that eu-elflint and
     strip see its code: a new section header table and a copy of the
     section name table, after the segment, not loaded.  */
  bool add_section;
  size_t shstrndx;		/* the section name table */
  size_t new_shnum;
  uint64_t shstrtab_offset, shstrtab_size; /* the new name table */
  uint64_t shdr_offset;		/* the new section header table */

  enum stub_hook hook;
  uint64_t old_target;		/* old e_entry, DT_INIT or DT_INIT_ARRAY[0], 0 when none */
  uint64_t dyn_offset;		/* new file offset of the dynamic entry to patch */
  uint64_t dyn_old_offset;	/* its offset in the input */
  /* STUB_HOOK_INIT_ARRAY: the word that decides what DT_INIT_ARRAY[0]
     holds (its relocation's r_addend, or with DT_RELR the entry itself)
     gets the stub's entry point.  */
  uint64_t init_word_offset;	/* its new file offset */
  uint64_t init_word_old_offset; /* its offset in the input */
  size_t init_word_size;
  bool init_word_relr;		/* it is the entry itself */
  struct stub_params params;
};

/* Plan the stub for FILE as LAYOUT lays it out, under OPTS, into *SP.
   Sets SP->enabled, or SP->refusal: a hostile or unsuitable file is a
   refusal, never an error.  Return 0, or -1 on a failure that is not a
   refusal (out of memory, an unreadable dynamic section).  */
int stub_plan_build (struct stub_plan *sp, const struct layout_plan *layout,
		     const struct elf_file *file, const struct stub_options *opts,
		     struct diag *err);

/* Add the stub planned in SP to the output: change the header tables in
   *TABLES (built from LAYOUT alone; their arrays are replaced) and append
   the copies and patches it needs to *PIECES.  Return 0, or -1.  */
int stub_compose (const struct stub_plan *sp, const struct layout_plan *layout,
		  const struct elf_file *file, struct plan_tables *tables,
		  struct plan_pieces *pieces, struct diag *err);

/* The name of moved object M of FILE for the report: its segment's type
   ("PT_NOTE") or its section's name, the latter in BUF (LEN bytes).  */
const char *stub_moved_name (const struct stub_moved *m, const struct elf_file *file, char *buf,
			     size_t len);

/* How the stub is hooked, in a few words, for the report.  */
const char *stub_hook_name (enum stub_hook hook);

/* Chunks of text the stub works on, and those of them in ranges it samples
   (--populate-max).  */
uint64_t stub_chunks (const struct stub_plan *sp);
uint64_t stub_sampled_chunks (const struct stub_plan *sp);

/* With --madvise=copy, the bytes of text the stub copies at most where
   the kernel cannot give the file huge page cache folios: --copy-max
   rounded down to whole chunks, and at most all of them; 0 without
   --madvise=copy.  */
uint64_t stub_copy_max (const struct stub_plan *sp);

#define STUB_SECTION_NAME ".elfpmd.stub"
#define STUB_PHDR_SECTION_NAME ".elfpmd.phdrs"

#endif
