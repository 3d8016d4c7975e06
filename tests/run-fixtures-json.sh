#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-json.sh: elfpmd -n --json over each fixture exits 0, writes
# nothing, and its report is one JSON object that agrees with phdr-dump's
# view of the file (tests/fixture-report.py): type, PMD size, whether it
# changes, each PT_LOAD's old and new p_align, the chunks, the ASLR bits
# lost.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

report () {
	local json=$w/report.json status msg
	"$ELFPMD" -n --json "$w/orig/$file" >"$json" 2>"$w/report.err"
	status=$?
	check "$name: -n --json exits 0" test $status -eq 0
	check "$name: -n --json leaves the file's bytes alone" cmp -s "$O/$file" "$w/orig/$file"
	check "$name: -n --json leaves the file's inode and times alone" \
		test "$pristine" = "$(file_signature "$w/orig/$file")"
	$have_python || return 0
	if msg=$(python3 "$TESTS_SRCDIR/fixture-report.py" "$json" "$w/orig/$file" "$type" "$must_relaxed" "$PMD" \
		<(load_aligns "$w/orig/$file") <(expected_aligns relaxed "$PMD" "$w/orig/$file") \
		<("$PHDR_DUMP" "$w/orig/$file" | head -1) 2>&1); then
		pass "$name: -n --json report agrees with phdr-dump: $msg"
	else
		fail "$name: -n --json report: $msg"
		head -c 600 "$json" | sed 's/^/      /'; echo
	fi
}
for_each_align_fixture report
test_finish
