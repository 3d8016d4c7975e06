#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-batch.sh: several malformed inputs in one invocation (eight
# batches of twelve cases spread over the generated list): the batch exits
# 1 if any file fails alone, prints exactly one stderr line per failed
# file, processes the others, and leaves the failed ones untouched.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
LIST=$WORK/cases.list
malformed_cases "$LIST"
B=$WORK/batch

for ((b = 0; b < 8; b++)); do
	rm -rf "$B" && mkdir -p "$B/ref" "$B/alone"
	files=() nfail=0 bad="" failed_alone=" "
	# Twelve cases spread over the list, deterministic, each run alone first.
	while read -r id seed mode mseed arg; do
		make_case "$seed" "$mode" "$mseed" "$arg" "$B/ref/$id" >/dev/null || continue
		cp "$B/ref/$id" "$B/alone/$id.elf"
		mal_tool "$B/alone/$id" --no-sync "$B/alone/$id.elf"
		if ! mal_status_ok "$RC" "$ERR"; then
			bad+="$id alone: $BAD"$'\n'
		elif [ "$RC" = 1 ]; then
			nfail=$((nfail + 1)) failed_alone+="$id "
		fi
		cp "$B/ref/$id" "$B/$id.elf"
		files+=("$B/$id.elf")
	done < <(awk -v b="$b" '$1 % 6 < 3 && NR % 97 == b * 11 % 97' "$LIST" | head -n 12)
	[ ${#files[@]} -gt 0 ] || continue
	mal_tool "$WORK/batch" --no-sync "${files[@]}"
	if ! mal_status_ok "$RC" "$ERR"; then
		bad+="$BAD"$'\n'
	else
		want=0
		[ "$nfail" -gt 0 ] && want=1
		[ "$RC" = "$want" ] || bad+="exit $RC, expected $want ($nfail of ${#files[@]} files fail alone)"$'\n'
		nl=$(grep -c '' "$WORK/batch.err")
		[ "$nl" = "$nfail" ] || bad+="$nl stderr lines, expected $nfail"$'\n'
		for fl in "${files[@]}"; do
			id=$(basename "$fl" .elf)
			if [[ $failed_alone == *" $id "* ]]; then
				grep -qF "elfpmd: $fl: " "$WORK/batch.err" || bad+="no stderr line for $fl"$'\n'
				cmp -s "$B/ref/$id" "$fl" || bad+="$fl failed alone but was modified in a batch"$'\n'
			else
				grep -qF "elfpmd: $fl: " "$WORK/batch.err" && bad+="$fl succeeded alone but failed in a batch"$'\n'
			fi
		done
	fi
	if [ -n "$bad" ]; then
		mkdir -p "$F/batch-$b"
		cp "$B"/*.elf "$F/batch-$b/" 2>/dev/null
		sed 's/^/  stderr: /' "$WORK/batch.err" >>"$F/batch-$b/README"
	fi
	mal_count "batch-$b" "batch $b: ${#files[@]} files, $nfail of which fail alone" /nonexistent "$bad"
done
malformed_finish
