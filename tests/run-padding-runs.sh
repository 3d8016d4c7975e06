#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-runs.sh: each fixture, padded or aligned in place, runs and
# prints what the original printed (and exits 42).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

runs () {
	check_original
	pad_rewrite && same_run "$w/new" "rewritten file"
}
for_each_padding_fixture runs
finish
