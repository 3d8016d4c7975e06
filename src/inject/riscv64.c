/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The riscv64 startup stub: machine code generated from stub/ at the top of
   the tree (tools/gen-stub.sh riscv64).  Its entry saves ra, a0-a7, t0-t6
   and s0 (a0 holds ld.so's finaliser at process entry, sp points at argc)
   and goes on to its target (jr), so it serves as e_entry.

   Shared objects are hooked through the first entry of DT_INIT_ARRAY, not
   DT_INIT: glibc's ld.so ignores DT_INIT on riscv64 (ELF_INITFINI is 0
   there; only the older ports define it to 1), so a library linked with
   -init runs only its DT_INIT_ARRAY (seen under qemu-riscv64 with Debian
   12's glibc 2.36).  ld.so calls each entry with argc, argv and envp in
   a0-a2 and the return address in ra; the stub keeps them and jumps to
   the old first entry, a tail call that returns to ld.so.  So the stub
   runs before the library's other constructors (and, as ever, after those
   of the libraries it needs).  Verified under qemu-riscv64 only
   (tests/run-cross-lib.sh, run-cross-riscv64-relr.sh), with GNU ld's RELA
   and lld's DT_RELR output.  */
#include <config.h>

#include <elf.h>

#include "arch.h"
#include "stub_params.h"
#include "generated/stub_riscv64.h"

#ifndef EM_RISCV
# define EM_RISCV 243
#endif

/* The generated stub leaves room for every field of the parameters.  */
_Static_assert (STUB_RISCV64_SIZE - STUB_RISCV64_PARAMS >= sizeof (struct stub_params),
		"stub/stub.ld reserves too little room for struct stub_params");

const struct stub_arch stub_arch_riscv64 = {
  .e_machine = EM_RISCV, .elfclass = ELFCLASS64, .name = "riscv64",
  .code = stub_riscv64_code, .size = STUB_RISCV64_SIZE,
  .entry = STUB_RISCV64_ENTRY, .params = STUB_RISCV64_PARAMS,
  .symbols = stub_riscv64_symbols, .nsymbols = STUB_RISCV64_NSYMBOLS,
  .library_hook = STUB_LIBRARY_INIT_ARRAY, .relative_reloc = R_RISCV_RELATIVE,
};
