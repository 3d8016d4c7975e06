#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-pie.sh: a PIE of aarch64 and of riscv64 (cross-built, run
# under qemu-user): the plain and the --madvise rewrite are aligned, the
# stub hooked through e_entry, and they run as the original (lib.sh:
# cross_fixture says what is checked).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	cross_fixture pie cross-pie cross-pie cross-pie e_entry
done
cross_finish
