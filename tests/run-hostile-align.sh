#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile-align.sh: hostile p_align values on lld-pie's later PT_LOAD
# (lib.sh: hostile numbers, check_case): 2^33, 2^40 and 2^62 honoured by its
# address (keeping it would need a hole of that size) are refused as more
# than a PMD; one that is not a power of two, honoured as glibc < 2.35 tests
# it ((p_vaddr - p_offset) & (p_align - 1) == 0), is honoured by the output
# too.

set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hostile_setup lld-pie
lld=$O/lld-pie
rw_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD" && $3 ~ /W/ { i = $1 } END { print i }')
rw_off=$(field "$lld" LOAD 4 "$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD"' | wc -l)")
for bits in 33 40 62; do
	# A later PT_LOAD whose own alignment is huge and honoured by its
	# address: keeping it would need a hole of 2^BITS bytes.
	f=$WORK/align$bits
	cp "$lld" "$f"
	a=$((1 << bits))
	poke "$f" phdr "$rw_index" align "$a" phdr "$rw_index" vaddr $((rw_off + a))
	check_case "p_align 2^$bits on a later PT_LOAD" "$f" \
		'R["padding_refused"] >= 1 and "more than a PMD" in str(R["segments"])'
done
# A p_align that is not a power of two, honoured as glibc < 2.35 tests it
# ((p_vaddr - p_offset) & (p_align - 1) == 0): the output must honour it too.
f=$WORK/npot
cp "$lld" "$f"
rw_vaddr=$(field "$lld" LOAD 5 "$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD"' | wc -l)")
for a in 0x3000 0x5000 0x9000 0x11000; do
	[ $(((rw_vaddr - rw_off) & (a - 1))) -eq 0 ] && break
done
poke "$f" phdr "$rw_index" align "$a"
check_case "p_align $a (not a power of two)" "$f" 'R["padded_segments"] == 1'
if [ -f "$WORK/npot/in" ] && "$PHDR_DUMP" "$WORK/npot/in" >"$WORK/npot/dump" 2>&1; then
	read -r off vaddr align <<<"$(awk -v i="$rw_index" '$1 == i { print $4, $5, $8 }' "$WORK/npot/dump")"
	if [ $(((vaddr - off) & (align - 1))) -eq 0 ]; then
		pass "p_align $a: the output passes glibc < 2.35's test"
	else
		fail "p_align $a: the output fails glibc < 2.35's test (offset $off, address $vaddr)"
	fi
fi
test_finish
