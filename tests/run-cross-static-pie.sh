#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-static-pie.sh: a -static-pie program of aarch64 and of riscv64
# (where the cross C library has rcrt1.o) is aligned, the stub hooked
# through e_entry, and runs as the original under qemu-user (lib.sh:
# cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	cross_fixture static-pie cross-static-pie cross-static-pie cross-static-pie e_entry
done
cross_finish
