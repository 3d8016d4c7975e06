#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-strip.sh: strip and eu-strip run after elfpmd leave a working
# file that keeps the new alignment (patchelf's tracker has the opposite).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stripped () {
	local stripper
	check_original
	relaxed_rewrite || return
	for stripper in strip eu-strip; do
		if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
		mkdir -p "$w/$stripper"
		cp -p "$r" "$w/$stripper/$file"
		if $stripper "$w/$stripper/$file" 2>"$w/strip.err"; then
			check "$name: $stripper keeps the PT_LOAD alignments" \
				cmp -s <(load_aligns "$r") <(load_aligns "$w/$stripper/$file")
			same_run "$w/$stripper" "rewritten and ${stripper}ped file"
		else
			fail "$name: $stripper fails on the rewritten file: $(head -1 "$w/strip.err")"
		fi
	done
}
for_each_align_fixture stripped
test_finish
