#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-second-run.sh: elfpmd --madvise run again on a file it gave
# the stub finds the stub and leaves the file alone (bytes, inode, times);
# -n --json --madvise reports the stub present.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup

second () {
	local sig
	mad_rewrite || return
	cp -p "$r" "$w/once"
	sig=$(file_signature "$r")
	if "$ELFPMD" -q --madvise "$r" >"$w/second.log" 2>&1; then
		check "$name: second --madvise run leaves the bytes as they were" cmp -s "$w/once" "$r"
		check "$name: second --madvise run leaves inode and times alone" test "$sig" = "$(file_signature "$r")"
	else
		fail "$name: second elfpmd --madvise run failed: $(head -3 "$w/second.log")"
	fi
	"$ELFPMD" -n --json --madvise "$r" >"$w/second.json" 2>&1
	check "$name: -n --json --madvise of the rewritten file reports the stub present" \
		grep -q '"stub":{"injected":false,"present":true' "$w/second.json"
}
for_each_mad_fixture second
finish
