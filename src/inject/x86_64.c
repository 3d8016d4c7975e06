/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The x86-64 startup stub: machine code generated from stub/ at the top of
   the tree (tools/gen-stub.sh).  Its entry saves every register the entry
   ABI passes (rdx holds ld.so's finaliser, rsp points at argc) and either
   jumps to the old entry point or returns, so it serves both as e_entry and
   as DT_INIT.  */
#include <config.h>

#include <elf.h>

#include "arch.h"
#include "stub_params.h"
#include "generated/stub_x86_64.h"

/* The generated stub leaves room for every field of the parameters.  */
_Static_assert (STUB_X86_64_SIZE - STUB_X86_64_PARAMS >= sizeof (struct stub_params),
		"stub/stub.ld reserves too little room for struct stub_params");

const struct stub_arch stub_arch_x86_64 = {
  .e_machine = EM_X86_64, .elfclass = ELFCLASS64, .name = "x86-64",
  .code = stub_x86_64_code, .size = STUB_X86_64_SIZE,
  .entry = STUB_X86_64_ENTRY, .params = STUB_X86_64_PARAMS,
  .symbols = stub_x86_64_symbols, .nsymbols = STUB_X86_64_NSYMBOLS,
  .library_hook = STUB_LIBRARY_DT_INIT,
};
