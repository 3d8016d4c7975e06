#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-json-file.sh: --json=FILE: the text report on standard output
# and the JSON in FILE from one run, each the bytes of a run with only that
# report (-j2 and -j1; the further hard-link names and the summary in both);
# with -q only the summary line; a FILE that cannot be written fails before
# any file.  --times: the run time ends the summary line and is "seconds" in
# the JSON summary; the rest is the bytes of a run without it.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_tree "$WORK/orig"
"$ELFPMD" -r -n -j2 --madvise "$WORK/orig" >"$WORK/one-text" 2>/dev/null
"$ELFPMD" -r -n -j2 --madvise --json "$WORK/orig" >"$WORK/one-json" 2>/dev/null
for j in 1 2; do
	"$ELFPMD" -r -n -j$j --madvise --json="$WORK/both-json-j$j" "$WORK/orig" >"$WORK/both-text-j$j" 2>/dev/null
	holds "--json=FILE -j$j: the text report as without --json, the JSON as with --json" \
		'cmp -s "$WORK/one-text" "$WORK/both-text-j$j" && cmp -s "$WORK/one-json" "$WORK/both-json-j$j"'
done
check "--json=FILE: the hard-link names are in the JSON" grep -q '"same_file_as"' "$WORK/both-json-j2"
"$ELFPMD" -r -n -q --json="$WORK/q-json" "$WORK/orig" >"$WORK/q-text" 2>/dev/null
holds "-q --json=FILE: only the summary line on standard output, the JSON in FILE" \
	'[ "$(wc -l < "$WORK/q-text")" -eq 1 ] && grep -q "^elfpmd: [0-9]* files: " "$WORK/q-text" && tail -1 "$WORK/q-json" | grep -q "^{\"summary\""'
"$ELFPMD" -r -n --json="$WORK/no/such/dir/x" "$WORK/orig" >/dev/null 2>"$WORK/j-err"
st=$?
holds "--json=FILE that cannot be written: exit 1 before any file, one line naming it" \
	'[ $st -eq 1 ] && [ "$(wc -l < "$WORK/j-err")" -eq 1 ] && grep -q "x: cannot write the JSON report" "$WORK/j-err"'
"$ELFPMD" -r -n --times --json="$WORK/times.json" "$WORK/orig" >"$WORK/times.txt" 2>/dev/null
"$ELFPMD" -r -n "$WORK/orig" >"$WORK/notimes.txt" 2>/dev/null
holds "--times: the summary line ends 'in N s', the JSON summary has seconds ($(tail -1 "$WORK/times.txt" | grep -o ' in [0-9.]* s$'))" \
	'tail -1 "$WORK/times.txt" | grep -Eq ", 0 failed in [0-9]+\.[0-9] s$" && tail -1 "$WORK/times.json" | grep -Eq "\"seconds\":[0-9]+\.[0-9]{3}\}\}$"'
check "--times: otherwise the same report" \
	cmp -s <(sed '$s/ in [0-9.]* s$//' "$WORK/times.txt") "$WORK/notimes.txt"
check "without --times, no time" sh -c "! tail -1 '$WORK/notimes.txt' | grep -q ' s\$'"
test_finish
