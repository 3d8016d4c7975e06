#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-lld-pie.sh: a PIE linked by lld (clang --target=TRIPLE
# -fuse-ld=lld), where clang and lld can cross-link it, is aligned, the stub
# hooked through e_entry, and runs as the original under qemu-user
# (lib.sh: cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
for a in aarch64 riscv64; do
	cross_arch "$a" || continue
	cross_fixture lld-pie cross-lld-pie cross-lld-pie cross-lld-pie e_entry
done
cross_finish
