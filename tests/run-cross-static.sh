#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-static.sh: a -static program (ET_EXEC, no ld.so) of aarch64 is
# aligned, the stub hooked through e_entry, and runs as the original under
# qemu-user (lib.sh: cross_fixture); riscv64's, laid out by GNU ld as its
# -no-pie programs are, cannot be aligned and is left as it was
# (run-cross-nopie.sh says why).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	[ "$a" = riscv64 ] && expect=refused
	cross_fixture static cross-static cross-static cross-static e_entry
done
cross_finish
