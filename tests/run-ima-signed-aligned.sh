#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-signed-aligned.sh: a signed file that elfpmd would not change
# (already aligned) is not refused: exit 0, nothing said on stderr, the
# file and its attributes untouched.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_fresh done
"$ELFPMD" -q "$W/done" || fail "cannot align a copy to sign"
ima set "$W/done" sig
cp "$W/done" "$W/done.before"
attrs=$(ima dump "$W/done")
"$ELFPMD" "$W/done" >"$W/done.out" 2>"$W/done.err"
status=$?
holds "a signed file already aligned: exit 0, nothing said on stderr, untouched" \
	'[ $status -eq 0 ] && [ ! -s "$W/done.err" ] && grep -q "already aligned" "$W/done.out" && cmp -s "$W/done" "$W/done.before" && [ "$attrs" = "$(ima dump "$W/done")" ]'
test_finish
