#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-journal-reads.sh: the stub costs no reads where it cannot
# help.  On ext4 mounted data=journal (a loop image of the test's own; no
# large folios there on any kernel, so no PMD folios), after two priming
# runs of each, five warm starts of inv-pie and of its rewrite by elfpmd
# --madvise, alternating, print the same, and the rewrite's read at most
# 2 MiB more from the device per start than the original's (the mean).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MAX_EXTRA_READ=$((2 << 20))
RUNS=5

invisible_start "drop_caches, loop devices"
inv_fixture pie
journal_mount "$WORK" 200M >"$WORK/loop.why" 2>&1 || skip_all "data=journal: loop mounts fail here: $(tail -1 "$WORK/loop.why")"
mkdir -p "$MNTED/orig" "$MNTED/mad"
cp -p "$P_ORIG" "$MNTED/orig/inv-pie"
cp -p "$P_MAD" "$MNTED/mad/inv-pie"
sync

w=$WORK/journal
for k in 1 2; do
	run_logged "$w.prime" "$MNTED/orig/inv-pie" "${ARGS[@]}"
	run_logged "$w.prime" "$MNTED/mad/inv-pie" "${ARGS[@]}"
done
read_o=0 read_m=0 differ=0
for ((k = 1; k <= RUNS; k++)); do
	b0=$(loop_read)
	run_logged "$w.orig.$k" "$MNTED/orig/inv-pie" "${ARGS[@]}"
	b1=$(loop_read)
	run_logged "$w.mad.$k" "$MNTED/mad/inv-pie" "${ARGS[@]}"
	b2=$(loop_read)
	read_o=$((read_o + b1 - b0)) read_m=$((read_m + b2 - b1))
	cmp -s "$WORK/pie.ref" "$w.orig.$k" || differ=1
	cmp -s "$WORK/pie.ref" "$w.mad.$k" || differ=1
done
if [ $differ = 0 ]; then
	pass "data=journal: $RUNS warm starts of each print the same and exit 42"
else
	same "$WORK/pie.ref" "$w.mad.$RUNS" "data=journal: a warm start"
	same "$WORK/pie.ref" "$w.orig.$RUNS" "data=journal: a warm start of the ORIGINAL"
fi
extra=$(((read_m - read_o) / RUNS))
figures="read per warm start: rewrite $((read_m / RUNS / 1024)) KiB, original $((read_o / RUNS / 1024)) KiB, mean of $RUNS"
if [ "$extra" -le "$MAX_EXTRA_READ" ]; then
	pass "data=journal: $figures: extra $((extra / 1024)) KiB <= 2 MiB"
else
	fail "data=journal: $figures: extra $((extra / 1024)) KiB > 2 MiB"
fi
stub_finish
