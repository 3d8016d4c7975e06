#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-strip-no-room.sh: where nothing can make room for one more program
# header (no section headers: the bytes after the table are unknown; lib.sh:
# go-noshdr), elfpmd --madvise injects no stub and the report says why,
# naming --move-table; with --move-table the table moves and the program
# still runs.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

strip_fixture
"$ELFPMD" --madvise -o "$WORK/go-noshdr.rw" "$W/go-noshdr" >"$WORK/noshdr.out" 2>&1
st=$?
holds "no room and no --move-table: exit 0, no stub, the reason names --move-table" \
	'[ $st -eq 0 ] && grep -q "no room for one more program header.*--move-table" "$WORK/noshdr.out"'
"$ELFPMD" -q --madvise --move-table -o "$WORK/go-noshdr.mv" "$W/go-noshdr" 2>"$WORK/mv.err"
check "with --move-table the table moves" \
	sh -c "'$ELFPMD' -n --json --madvise '$WORK/go-noshdr.mv' | grep -q '\"present\":true'"
run_case prog "$WORK/go-noshdr.mv" - "$WORK/mv.out"
check "and the program still runs" grep -q "^go-shaped program ran" "$WORK/mv.out"
test_finish
