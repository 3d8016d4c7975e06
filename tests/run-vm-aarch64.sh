#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-vm-aarch64.sh: tests/run-vm.sh's short form for an aarch64 guest
# (Debian 12's arm64 kernel in qemu-system-aarch64 under TCG; run-vm.sh's
# header says what it asserts and when it skips), so that 'make check' runs
# it as a test of its own.
exec bash "$(dirname "${BASH_SOURCE[0]}")/run-vm.sh" --arch aarch64
