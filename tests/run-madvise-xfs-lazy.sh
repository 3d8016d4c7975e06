#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-xfs-lazy.sh: a cold start of the PIE given the stub that runs
# none of its big text (FIXTURE_NO_TEXT), on a loop-mounted xfs image with
# Linux's default read-ahead (128 KiB), reads the chunks near the text's
# ends, those the program's other faults read around, and leaves the
# others: at most 3 chunks more from the disk than the original, not the 7
# of the text.  Needs root, THP, mkfs.xfs and loop devices.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache
build_fixture mad-pie && [ -x "$O/mad-pie" ] || skip_all "xfs: no mad-pie fixture"
cleanup_on_exit
xfs_mount "$WORK" 300M >"$WORK/xfs.why" 2>&1 || skip_all "xfs: $(tail -1 "$WORK/xfs.why")"
ra=$(cat "/sys/block/${LOOPDEV##*/}/queue/read_ahead_kb")
[ "$ra" = 128 ] || skip_all "xfs: read_ahead_kb of the loop device is $ra, not 128: the lazy cold start is not measured"

mkdir -p "$MNTED/orig" "$MNTED/pmd"
cp -p "$O/mad-pie" "$MNTED/orig/"
"$ELFPMD" -q --madvise -o "$MNTED/pmd/mad-pie" "$O/mad-pie" >"$WORK/rewrite.log" 2>&1 \
	|| { fail "xfs: elfpmd -q --madvise failed: $(head -3 "$WORK/rewrite.log")"; finish; }

# loop_kib: KiB read from the loop device so far.
loop_kib () { awk '{ print int($3 / 2) }' "/sys/block/${LOOPDEV##*/}/stat"; }
extra=0 runs=3
for ((k = 1; k <= runs; k++)); do
	drop_caches
	b0=$(loop_kib)
	FIXTURE_NO_TEXT=1 "$MNTED/orig/mad-pie" >/dev/null 2>&1
	b1=$(loop_kib)
	drop_caches
	b2=$(loop_kib)
	FIXTURE_NO_TEXT=1 "$MNTED/pmd/mad-pie" >/dev/null 2>&1
	b3=$(loop_kib)
	extra=$((extra + (b3 - b2) - (b1 - b0)))
done
extra=$((extra / runs))
if [ "$extra" -le $((3 * 2048)) ]; then
	pass "xfs: a cold start that runs none of the text reads $extra KiB more than the original's (at most 3 chunks; the text has 7)"
else
	fail "xfs: a cold start that runs none of the text reads $extra KiB more than the original's (more than 3 chunks: the stub read chunks the program never reached)"
fi
run_cleanup
finish
