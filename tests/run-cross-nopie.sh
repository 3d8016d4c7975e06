#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-nopie.sh: a -no-pie program (ET_EXEC) of aarch64 is aligned,
# the stub hooked through e_entry, and runs as the original under
# qemu-user (lib.sh: cross_fixture).  GNU ld's riscv64 ET_EXEC puts the
# first PT_LOAD, with the ELF header at offset 0, at 0x10000: its text
# cannot be made congruent modulo 2 MiB (padding would move the header),
# so nothing is aligned and no stub goes in: the report says so, the file
# is left as it was and runs the same (run-cross-riscv64-at4m.sh links it
# where it can be aligned).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	[ "$a" = riscv64 ] && expect=refused
	cross_fixture nopie cross-nopie cross-nopie cross-nopie e_entry
done
cross_finish
