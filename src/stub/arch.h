/* One architecture's startup stub, behind one small interface: its machine
   code and where its entry point and parameters are in it.  Adding an
   architecture is one file defining a struct stub_arch and one entry in the
   table of stub/arch.c.  */
#ifndef ELFPMD_STUB_ARCH_H
#define ELFPMD_STUB_ARCH_H

#include <stdbool.h>
#include <stddef.h>

struct stub_arch
{
  unsigned e_machine;		/* EM_* this stub runs on */
  int elfclass;			/* ELFCLASS32 or ELFCLASS64 */
  const char *name;		/* "x86-64" */
  const unsigned char *code;	/* position-independent machine code */
  size_t size;
  size_t entry;			/* offset of the entry point in CODE */
  size_t params;		/* offset of struct stub_params in CODE */
  bool init_hook;		/* it may be called as DT_INIT (returns to its caller) */
  const char *no_init_hook;	/* why not, for the report, when !init_hook */
};

/* The stub for E_MACHINE and ELFCLASS, or NULL if there is none.  */
const struct stub_arch *stub_arch_for (unsigned e_machine, int elfclass);

#endif
