#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-lib.sh: a shared library with its own DT_INIT and a constructor,
# loaded by a PIE: aligned, and the stub hooked through DT_INIT on
# aarch64, through the first entry of DT_INIT_ARRAY on riscv64 (glibc
# calls no DT_INIT there), chained to the old one: GNU ld's library,
# frame_dummy first, an R_RISCV_RELATIVE relocation in DT_RELA.  The
# program prints the same under qemu-user, the library's hooks seeing
# argc, argv and envp (lib.sh: cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	hook=DT_INIT
	[ "$a" = riscv64 ] && hook="DT_INIT_ARRAY[0]"
	cross_fixture lib cross-lib libcrossbig.so usecross "$hook"
done
cross_finish
