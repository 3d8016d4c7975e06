#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-no-pad.sh: with --no-pad nothing may move.  The text of the
# fixtures that need padding is reported "needs padding" and the file is
# left alone, unless another segment can be aligned where it is
# (lld-twoseg's .rodata), and then no byte moves.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
have python3 || skip_all "python3 not found: it reads the JSON reports"
work_dir

nopad () {
	local t_index a s n changes sig copy=$w/nopad/$file size=$(stat -c %s "$orig")
	[ "$padded" = yes ] || return 0
	read -r t_index _ <<<"$(text_segment "$orig")"
	"$ELFPMD" -n --json --no-pad "$orig" >"$w/nopad.json" 2>&1
	a=$(json_segment "$w/nopad.json" "$t_index" action 2>&1)
	s=$(json_key "$w/nopad.json" size_after 2>&1)
	n=$(json_key "$w/nopad.json" segments_needing_padding 2>&1)
	changes=$(json_key "$w/nopad.json" changed 2>&1)
	check "$name: --no-pad -n --json: text action '$a', size_after $s, segments_needing_padding $n" \
		test "$a" = "needs padding" -a "$s" = "$size" -a "$n" = 1
	mkdir -p "$w/nopad"
	cp -p "$orig" "$copy"
	sig=$(file_signature "$copy")
	if ! "$ELFPMD" -q --no-pad "$copy" >"$w/nopad.log" 2>&1; then
		fail "$name: --no-pad exited non-zero: $(head -3 "$w/nopad.log")"
	elif [ "$sig" = "$(file_signature "$copy")" ]; then
		check "$name: --no-pad exits 0 and does not rewrite the file (the dry run said changed=$changes)" \
			test "$changes" != True
	elif "$PHDR_DUMP" --bytemap "$orig" "$copy" >"$w/nopad.bm" 2>&1 && grep -q ' 0 holes' "$w/nopad.bm"; then
		check "$name: --no-pad aligns another segment but moves nothing ($(head -1 "$w/nopad.bm"))" \
			test "$changes" = True
	else
		fail "$name: --no-pad rewrote the file with moves: $(head -3 "$w/nopad.bm")"
	fi
}
for_each_padding_fixture nopad
finish
