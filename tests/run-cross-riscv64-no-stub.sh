#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-riscv64-no-stub.sh: riscv64 libraries whose DT_INIT_ARRAY[0]
# the stub must not take over (linked without the crt files, so that
# frame_dummy is not the first entry): one without DT_INIT_ARRAY, and one
# whose first entry is a pointer to a global function, which another
# object could interpose (a symbolic relocation).  They are aligned and
# run as the original under qemu-user, but get no stub: the report says
# why, and --madvise writes what elfpmd alone writes (lib.sh:
# cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
if cross_arch riscv64 noinit CROSS_CFLAGS=-DBIG_NO_CONSTRUCTOR CROSS_LIB_LDFLAGS=-nostartfiles; then
	expect=nostub nostub_why="no DT_INIT_ARRAY"
	cross_fixture noinit-lib cross-lib libcrossbig.so usecross "DT_INIT_ARRAY[0]"
fi
if cross_arch riscv64 symbolic CROSS_CFLAGS=-DBIG_SYMBOLIC_CONSTRUCTOR CROSS_LIB_LDFLAGS=-nostartfiles; then
	expect=nostub nostub_why="filled by a symbolic relocation"
	cross_fixture symbolic-lib cross-lib libcrossbig.so usecross "DT_INIT_ARRAY[0]"
fi
cross_finish
