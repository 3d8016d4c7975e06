#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-runs.sh: each 17 MiB fixture given the stub by elfpmd
# --madvise prints what the original prints and exits 42.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup

runs () {
	mad_rewrite || return
	run_as "$dir" "$w/rewritten.out"
	same_output "$w/rewritten.out" "rewritten with --madvise"
}
for_each_mad_fixture runs
finish
