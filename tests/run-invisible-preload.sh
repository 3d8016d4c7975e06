#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-preload.sh: a preloaded library's patch of the text holds
# in the rewritten program as in the original.  tests/fixtures/invpatch.c,
# preloaded (LD_PRELOAD), patches mid of inv-pie to return 99: the
# rewrite by elfpmd --madvise prints what the original prints with it
# (mid() = 99), from a cold, a warm and an order-0 page cache.  The
# FilePmdMapped of those runs is noted: the patch makes a page of mid's
# chunk anonymous.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
inv_fixture pie
stub_fixture inv-tools

for s in cold warm order-0; do
	w=$WORK/preload.$s
	cache_state $s "$P_MAD"
	run_logged "$w.orig" env LD_PRELOAD="$O/invpatch.so" "$P_ORIG" "${ARGS[@]}"
	rm -f "$w.smaps"
	run_logged "$w.mad" env LD_PRELOAD="$O/invpatch.so" FIXTURE_SMAPS="$w.smaps" "$P_MAD" "${ARGS[@]}"
	if ! grep -q '^mid() = 99$' "$w.orig"; then
		skip "preload, $s: the preload does not patch the original here ($(head -1 "$w.orig.err"))"
		continue
	fi
	same "$w.orig" "$w.mad" "preload, $s: mid() patched to return 99"
	note_mid_coverage "preload, $s" "$w.smaps" "$P_MAD"
done
stub_finish
