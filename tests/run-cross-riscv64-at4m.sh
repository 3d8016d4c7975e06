#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-riscv64-at4m.sh: riscv64's -no-pie and -static programs linked
# at 4 MiB (-Ttext-segment=0x400000): congruent as linked, so they are
# aligned and the stub goes in (e_entry; no ld.so for the static one: a0
# is 0 from the kernel), and they run as the original under qemu-user
# (lib.sh: cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
if cross_arch riscv64 at4m CROSS_LDFLAGS=-Wl,-Ttext-segment=0x400000; then
	cross_fixture nopie-at4m cross-nopie cross-nopie cross-nopie e_entry
	cross_fixture static-at4m cross-static cross-static cross-static e_entry
fi
cross_finish
