#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-uprobe.sh: a uprobe sees the rewritten program as the
# original.  A uprobe on mid (tests/fixtures inv.S: in the middle of a
# whole 2 MiB chunk) of inv-pie and one on mid of its rewrite by elfpmd
# --madvise, in a trace instance of the test's own (tracefs mounted in the
# work directory when none is): the rewrite's fires as often as the
# original's (mid is called 3 times) and the rewrite prints the same, from
# a cold, a warm and an order-0 page cache.  The FilePmdMapped of those
# runs is noted: the probe makes a page of mid's chunk anonymous.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches, tracefs"
inv_fixture pie
tracefs_find >"$WORK/why" || skip_all "uprobe: $(cat "$WORK/why")"
ev_o=orig_$$ ev_m=mad_$$
{ uprobe_add $ev_o "$P_ORIG" mid && uprobe_add $ev_m "$P_MAD" mid && uprobe_instance; } >"$WORK/why" \
	|| skip_all "uprobe: $(cat "$WORK/why")"

for s in cold warm order-0; do
	w=$WORK/uprobe.$s
	cache_state $s "$P_MAD"
	h0=$(uprobe_hits $ev_o "$w.orig" "$P_ORIG")
	h1=$(uprobe_hits $ev_m "$w.mad" "$P_MAD")
	if [ "$h0" -ne 3 ]; then
		skip "uprobe, $s: the original hits the uprobe $h0 times, not 3: uprobes do not work here"
		continue
	fi
	if [ "$h1" -eq "$h0" ]; then
		pass "uprobe, $s: $h1 hits of 3 calls of mid, as in the original"
	else
		fail "uprobe, $s: $h1 hits of 3 calls of mid in the rewrite, $h0 in the original"
	fi
	same "$w.orig" "$w.mad" "uprobe, $s"
	note_mid_coverage "uprobe, $s" "$w.mad.smaps" "$P_MAD"
done
stub_finish
