#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-riscv64-relr.sh: a riscv64 library packed with DT_RELR (lld,
# without the crt files and the linker relaxation that lld 14 lacks),
# where clang and lld can link it (GNU ld 2.40 ignores -z
# pack-relative-relocs on riscv64): the first DT_INIT_ARRAY entry, the
# constructor printing argc, argv and envp (which the stub must pass on),
# holds its own address, no addend; the stub takes it over and the
# program runs as the original under qemu-user (lib.sh: cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
if cross_arch riscv64 relr "CROSS_CFLAGS=-mno-relax -DBIG_RELR"; then
	cross_fixture relr-lib cross-relr-lib libcrossrelr.so usecrossrelr "DT_INIT_ARRAY[0]"
fi
cross_finish
