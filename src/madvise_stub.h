/* The startup stub that asks the kernel to back the aligned text with huge
   pages (madvise(MADV_HUGEPAGE) and what it takes beyond that).

   Only the interface exists so far: no architecture has a stub yet, so
   stub_for_machine() returns NULL for every machine and elfpmd offers no
   --madvise option.  Each architecture will provide one record here.  */
#ifndef ELFPMD_MADVISE_STUB_H
#define ELFPMD_MADVISE_STUB_H

#include <stddef.h>
#include <stdint.h>

struct madvise_stub
{
  unsigned e_machine;		/* EM_* this stub runs on */
  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  const char *name;		/* "x86-64" */
  const unsigned char *code;	/* position-independent machine code */
  size_t size;
  /* Offsets into CODE of the words the injector patches: the original entry
     point and the bounds of the text range to advise, all relative to the
     stub's own address so that the stub stays position-independent.  */
  size_t entry_slot, text_start_slot, text_end_slot;
};

/* The stub for E_MACHINE and ELFCLASS, or NULL if there is none.  */
const struct madvise_stub *stub_for_machine (unsigned e_machine, int elfclass);

#endif
