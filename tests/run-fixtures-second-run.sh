#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-second-run.sh: a second run over a fixture elfpmd has
# rewritten finds nothing to do and does not touch the file: same bytes,
# inode and times.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

second_run () {
	local sig
	relaxed_rewrite || return
	cp -p "$r" "$w/relaxed.once"
	sig=$(file_signature "$r")
	if rewrite "second run" "$r"; then
		check "$name: second run leaves the bytes as they were" cmp -s "$w/relaxed.once" "$r"
		check "$name: second run leaves inode and times alone" \
			test "$sig" = "$(file_signature "$r")"
	fi
}
for_each_align_fixture second_run
test_finish
