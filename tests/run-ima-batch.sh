#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-batch.sh: a batch run (-r, --files-from) counts a signed file it
# refuses as failed (exit 1, the file named on stderr) and still rewrites
# the others.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
mkdir -p "$W/tree/bin"
ima_fresh sig
ima set "$W/sig" sig
cp "$W/sig" "$W/tree/bin/signed"
ima copy "$W/sig" "$W/tree/bin/signed"
cp "$PIE" "$W/tree/bin/plain"
cp "$W/tree/bin/signed" "$W/signed.before"
"$ELFPMD" -r "$W/tree" >"$W/batch.out" 2>"$W/batch.err"
status=$?
holds "batch run (-r): exit 1, the signed file failed and named, the other changed" \
	'[ $status -eq 1 ] && grep -q "1 changed, .* 1 failed$" "$W/batch.out" && [ "$(wc -l <"$W/batch.err")" -eq 1 ] && grep -q "^elfpmd: $W/tree/bin/signed: carries an IMA/EVM signature" "$W/batch.err"'
holds "batch run: the signed file is untouched, the other aligned" \
	'cmp -s "$W/tree/bin/signed" "$W/signed.before" && ! cmp -s "$W/tree/bin/plain" "$PIE"'
"$ELFPMD" -r --json -n "$W/tree" >"$W/batch.json" 2>/dev/null
ima_json_is "batch run, -n --json" "$W/batch.json" 'R["summary"]["failed"], R["summary"]["skipped"]' "(1, 0)"
find "$W/tree" -type f | sort >"$W/list"
"$ELFPMD" -n --files-from="$W/list" >"$W/list.out" 2>"$W/list.err"
status=$?
holds "--files-from -n: exit 1, the signed file counted as failed" \
	'[ $status -eq 1 ] && grep -q " 1 failed$" "$W/list.out" && grep -q "signed: carries an IMA/EVM signature" "$W/list.err"'
test_finish
