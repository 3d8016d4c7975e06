#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed.sh: a few thousand malformed, truncated and byte-swapped
# inputs made by tests/mutate from real programs and libraries; elfpmd must
# never crash, hang, trip a sanitizer or touch a file it refused
# (tests/malformed.sh, part "mutated"; MALFORMED_PERCENT scales it).
MALFORMED_PARTS=mutated
# shellcheck source=tests/malformed.sh
. "$(dirname "${BASH_SOURCE[0]}")/malformed.sh"
