#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-output.sh: elfpmd -o writes the bytes of the in-place rewrite
# elsewhere, executable like its input, which it leaves alone (bytes, inode
# and times); the output runs as the original does.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

output () {
	local out=$w/out/$file
	check_original
	relaxed_rewrite || return
	mkdir -p "$w/out"
	if "$ELFPMD" -q -o "$out" "$w/orig/$file" >"$w/out.log" 2>&1; then
		pass "$name: elfpmd -o exits 0"
		check "$name: -o output is identical to the in-place result" cmp -s "$r" "$out"
		check "$name: -o output is executable like its input" test -x "$out"
		check "$name: -o leaves the input's bytes alone" cmp -s "$O/$file" "$w/orig/$file"
		check "$name: -o leaves the input's inode and times alone" \
			test "$pristine" = "$(file_signature "$w/orig/$file")"
		same_run "$w/out" "-o output"
	else
		fail "$name: elfpmd -o exited non-zero: $(head -3 "$w/out.log")"
	fi
}
for_each_align_fixture output
test_finish
