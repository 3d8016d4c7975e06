#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-paths.sh: FIFOs at the mapped path, a library at a path of
# 4,080 bytes, and mlockall before dlopen of a stubbed library
# (tests/invisible.sh, cases 8, 9).
INVISIBLE_PARTS=paths
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
