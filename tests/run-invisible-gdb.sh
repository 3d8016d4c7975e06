#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-gdb.sh: gdb sees the rewritten program as the original.  The
# stub of elfpmd --madvise must be invisible (doc/design.md, The stub at run
# time, What it never does); here, to a debugger: inv-pie (tests/fixtures
# inv.S: mid(), which returns 42, in the middle of a whole 2 MiB chunk)
# under gdb -batch with a breakpoint in mid, run and continued: the rewrite
# hits it as often as the original (3 times) and prints the same, from a
# cold, a warm and an order-0 page cache.  The FilePmdMapped of those runs
# is noted: the breakpoint makes a page of mid's chunk anonymous.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
have gdb || skip_all "gdb not found (Debian: gdb)"
inv_fixture pie

for s in cold warm order-0; do
	w=$WORK/gdb.$s
	cache_state $s "$P_MAD"
	h0=$(gdb_mid "$P_ORIG" "$w.orig")
	h1=$(gdb_mid "$P_MAD" "$w.mad")
	if [ "$h0" -ne 3 ] || ! cmp -s "$WORK/pie.ref" "$w.orig"; then
		skip "gdb, $s: the original under gdb hits the breakpoint in mid $h0 times, not 3, or prints something else than without gdb: gdb does not work here"
		tail -3 "$w.orig.gdb" | sed 's/^/      /'
		continue
	fi
	if [ "$h1" -eq "$h0" ]; then
		pass "gdb, $s: the breakpoint in mid hits $h1 times, as in the original"
	else
		fail "gdb, $s: the breakpoint in mid hits $h1 times in the rewrite, $h0 in the original"
	fi
	same "$w.orig" "$w.mad" "gdb, $s"
	note_mid_coverage "gdb, $s" "$w.mad.smaps" "$P_MAD"
done
stub_finish
