#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-xfs.sh: the PIE given the stub on a loop-mounted xfs image
# (large folios since Linux 5.18, so file THP wherever the stub runs on a
# current kernel) gets at least 95% of its whole chunks PMD-mapped cold,
# warm, from an order-0 cache, as a copy just written and three at once.
# Needs root, THP, file THP on the build tree's file system, mkfs.xfs and
# loop devices; skipped otherwise.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache
name=pie file=mad-pie prog=mad-pie
build_fixture mad-pie && [ -x "$O/mad-pie" ] || skip_all "xfs: no mad-pie fixture"
cleanup_on_exit
xfs_mount "$WORK" 300M >"$WORK/xfs.why" 2>&1 || skip_all "xfs: $(tail -1 "$WORK/xfs.why")"

w=$WORK/xfs dir=$MNTED/rewritten r=$MNTED/rewritten/$file
mkdir -p "$w/orig" "$dir"
cp -p "$O/$file" "$w/orig/$file"
run_as "$w/orig" "$w/orig.out"
"$ELFPMD" -q --madvise -o "$r" "$O/$file" >"$w/rewrite.log" 2>&1 \
	|| { fail "xfs: elfpmd -q --madvise failed: $(head -3 "$w/rewrite.log")"; finish; }
drop_caches
coverage cold "$dir" "$r"
coverage warm "$dir" "$r"
coverage_small_folios "$dir" "$MNTED/fresh"
run_cleanup
finish
