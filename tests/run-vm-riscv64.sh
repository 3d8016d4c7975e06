#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-vm-riscv64.sh: tests/run-vm.sh's short form for a riscv64 guest
# (Debian 13's riscv64 kernel in qemu-system-riscv64 under TCG; run-vm.sh's
# header says what it asserts and when it skips), so that 'make check' runs
# it as a test of its own.
exec bash "$(dirname "${BASH_SOURCE[0]}")/run-vm.sh" --arch riscv64
