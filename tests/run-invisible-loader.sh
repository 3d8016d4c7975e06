#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-loader.sh: a program started by an explicit ld.so, and warm
# starts on ext4 data=journal (no PMD folios) reading no more than 2 MiB more
# than the original's (tests/invisible.sh, cases 5, 6).
INVISIBLE_PARTS=loader
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
