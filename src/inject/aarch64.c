/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The aarch64 startup stub: machine code generated from stub/ at the top of
   the tree (tools/gen-stub.sh aarch64).  Its entry saves x0-x15, x18, x29
   and x30 (x0 holds ld.so's finaliser at process entry, sp points at argc;
   x0-x2 hold argc, argv, envp as DT_INIT), is a BTI landing pad (bti jc),
   and either goes on to the old entry point with br x16, as ld.so enters a
   program, or returns, so it serves both as e_entry and as DT_INIT.  It
   works out the running kernel's page size, and does nothing where that
   makes the PMD size another than the one the file was planned with.  */
#include <config.h>

#include <elf.h>

#include "arch.h"
#include "stub_params.h"
#include "generated/stub_aarch64.h"

/* The generated stub leaves room for every field of the parameters.  */
_Static_assert (STUB_AARCH64_SIZE - STUB_AARCH64_PARAMS >= sizeof (struct stub_params),
		"stub/stub.ld reserves too little room for struct stub_params");

const struct stub_arch stub_arch_aarch64 = {
  .e_machine = EM_AARCH64, .elfclass = ELFCLASS64, .name = "aarch64",
  .code = stub_aarch64_code, .size = STUB_AARCH64_SIZE,
  .entry = STUB_AARCH64_ENTRY, .params = STUB_AARCH64_PARAMS,
  .symbols = stub_aarch64_symbols, .nsymbols = STUB_AARCH64_NSYMBOLS,
  .library_hook = STUB_LIBRARY_DT_INIT,
};
