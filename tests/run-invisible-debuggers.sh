#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-debuggers.sh: gdb breakpoints, uprobes and an LD_PRELOAD patch
# in the stub's text see what they see in the original, cold, warm and order-0
# (and the FilePmdMapped of those runs, noted) (tests/invisible.sh, cases 1-3,
# 11).
INVISIBLE_PARTS=debuggers
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
