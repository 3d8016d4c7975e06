#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-thp-off.sh: with PR_SET_THP_DISABLE (fixtures/thp-off.c) a
# fixture given the stub prints the same and gets no PMD mapping, even
# with the PMD folios of a warm run in the cache.  Needs root, THP and
# file THP on the build tree's file system; skipped otherwise.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache

thp_off () {
	local kb
	mad_rewrite || return
	run_as "$dir" "$w/warm0.out"
	coverage warm "$dir" "$r"
	FIXTURE_SMAPS=$w/smaps.thp-off run_as "$dir" "$w/thp-off.out" "$THP_OFF"
	same_output "$w/thp-off.out" "PR_SET_THP_DISABLE" || return
	kb=$(pmd_kb "$w/smaps.thp-off" "$r")
	check "$name: PR_SET_THP_DISABLE: FilePmdMapped $kb kB (must be 0)" test "$kb" -eq 0
}
for_each_mad_fixture thp_off
finish
