#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-aarch64-16k.sh: 16 KiB pages.  An aarch64 PIE with 70 MiB of
# text rewritten with --page-size=16K gets its text aligned to 32 MiB (the
# PMD size there) with two whole chunks; under qemu-user (a 4 KiB-page
# host) it prints the same, and its stub, seeing a kernel whose PMD is not
# 32 MiB, does nothing: no madvise in qemu -strace (lib.sh:
# cross_fixture).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
if cross_arch aarch64 16k CROSS_SIZE=0x4600000; then
	pmd=$((32 << 20))
	stub_works=no
	cross_fixture pie-16k cross-pie cross-pie cross-pie e_entry --page-size=16K
fi
cross_finish
