#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-observers.sh: on ext4 mounted data=journal, a copy seen by elfpmd
# status, ELFPMD_PERF_MAP, gdb, a uprobe, a patching preload and perf
# (tests/copy.sh, part observers).
COPY_PARTS=observers
# shellcheck source=tests/copy.sh
. "$(dirname "${BASH_SOURCE[0]}")/copy.sh"
