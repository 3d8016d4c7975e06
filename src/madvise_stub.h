/* The startup stub that makes the kernel back the aligned text with huge
   pages, and its injection into a file.

   The stub itself is machine code generated from stub/ (see
   tools/gen-stub.sh); what it does at run time is described in stub/stub.c.
   Here is where it goes: a new read-only, executable PT_LOAD appended to the
   file, above every other segment, holding a copy of the program header
   table (with the new entry) followed by the stub.  The new segment's
   address minus its offset equals the first PT_LOAD's, so that AT_PHDR as
   kernels before 5.18 and qemu-user compute it (first PT_LOAD's address
   minus offset, plus e_phoff) stays right.  Programs are hooked through
   e_entry; shared objects through DT_INIT, chaining to an existing one.  */
#ifndef ELFPMD_MADVISE_STUB_H
#define ELFPMD_MADVISE_STUB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "stub_params.h"

struct elf_file;
struct layout_plan;

/* One architecture's stub.  */
struct madvise_stub
{
  unsigned e_machine;		/* EM_* this stub runs on */
  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  const char *name;		/* "x86-64" */
  const unsigned char *code;	/* position-independent machine code */
  size_t size;
  size_t entry;			/* offset of the entry point in CODE */
  size_t params;		/* offset of struct stub_params in CODE */
};

/* The stub for E_MACHINE and ELFCLASS, or NULL if there is none.  */
const struct madvise_stub *stub_for_machine (unsigned e_machine, int elfclass);

enum stub_hook
{
  STUB_HOOK_ENTRY,		/* e_entry of a program */
  STUB_HOOK_INIT_CHAIN,		/* DT_INIT of a shared object, chaining to the old one */
  STUB_HOOK_INIT_NEW,		/* DT_INIT put into a spare DT_NULL slot */
};

/* Where the stub goes and how it is hooked.  */
struct stub_plan
{
  bool wanted;			/* --madvise was given */
  bool enabled;			/* the stub will be injected */
  bool present;			/* the file has an elfpmd stub already */
  const char *refusal;		/* why not, when wanted but not enabled */
  const struct madvise_stub *stub;

  uint64_t seg_offset, seg_vaddr, seg_size; /* the new PT_LOAD */
  size_t new_phnum;
  size_t new_load_index;	/* index of the new PT_LOAD in the new table */
  /* The program header slot the new PT_LOAD takes over, or SIZE_MAX when
     the table moves into the new segment with one more entry.  A slot is
     free when it is PT_NULL or a PT_NOTE that only repeats
     PT_GNU_PROPERTY; keeping the table in place keeps the file one that GNU
     strip rewrites correctly.  */
  size_t reuse_slot;
  uint64_t code_offset, code_vaddr; /* the stub's first byte */
  uint64_t entry_vaddr;		/* the stub's entry point */

  /* A section header for the stub (".elfpmd.stub"), so that eu-elflint and
     strip see its code: a new section header table and a copy of the
     section name table, after the segment, not loaded.  */
  bool add_section;
  size_t new_shnum;
  uint64_t shstrtab_offset, shstrtab_size; /* the new name table */
  uint64_t shdr_offset;		/* the new section header table */

  enum stub_hook hook;
  uint64_t old_target;		/* old e_entry or DT_INIT, 0 when none */
  uint64_t dyn_offset;		/* new file offset of the dynamic entry to patch */
  uint64_t dyn_old_offset;	/* its offset in the input */
  struct stub_params params;
};

/* Plan the stub for FILE as PLAN lays it out (PLAN->stub.wanted set).
   Sets PLAN->stub.enabled, or its refusal.  Return 0, or -1 on a failure
   that is not a refusal.  */
int stub_plan_build (struct layout_plan *plan, const struct elf_file *file, struct diag *err);

/* The new program header table (PLAN->stub.new_phnum entries) into OUT.  */
void stub_new_phdrs (const struct layout_plan *plan, const struct elf_file *file, GElf_Phdr *out);

#define STUB_SECTION_NAME ".elfpmd.stub"
#define STUB_PHDR_SECTION_NAME ".elfpmd.phdrs"

/* The new section header table (PLAN->stub.new_shnum entries) into OUT.  */
void stub_new_shdrs (const struct layout_plan *plan, const struct elf_file *file, GElf_Shdr *out);

/* The contents of the new segment after the program header table: padding
   and the stub with its parameters filled in, in the file's byte order, into
   BUF of PLAN->stub.seg_size - (table size) bytes, at table size.  */
void stub_segment_tail (const struct layout_plan *plan, const struct elf_file *file,
			unsigned char *seg);

#endif
