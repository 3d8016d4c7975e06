#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-uprobe.sh: the copy keeps a uprobe.  On ext4 mounted
# data=journal, a uprobe on mid (in a whole chunk) of inv-pie's
# --madvise=copy rewrite, registered before the start, so that its
# breakpoint is in the chunk at mmap time: it fires on each of the 3
# calls of mid, the program prints what the original prints, and the
# probed chunk stays file-backed: all the other whole chunks copied.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, tracefs, loop devices"
copy_fixture
copy_journal
copy_inv_pie
tracefs_find >"$WORK/why" || skip_all "uprobe: $(cat "$WORK/why")"
ev=copy_$$
{ uprobe_add $ev "$J/inv-copy" mid && uprobe_instance; } >"$WORK/why" || skip_all "uprobe: $(cat "$WORK/why")"

cache_state warm "$J/inv-copy"
hits=$(uprobe_hits $ev "$J/uprobe" "$J/inv-copy")
holds "data=journal, inv-pie copy with a uprobe on mid: $hits hits of 3 calls" '[ "$hits" -eq 3 ]'
same "$J/inv-orig.out" "$J/uprobe" "data=journal, inv-pie copy with a uprobe on mid"
expect_copy_kb "data=journal, inv-pie copy with a uprobe on mid: the probed chunk kept" \
	"$J/uprobe.smaps" "$J/inv-copy" "$KEPT_KB" 0
stub_finish
