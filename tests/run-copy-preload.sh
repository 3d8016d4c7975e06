#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-preload.sh: the copy keeps a preloaded library's patch.  On ext4
# mounted data=journal, inv-pie's --madvise=copy rewrite with
# tests/fixtures/invpatch.c preloaded (it patches mid, in a whole chunk,
# to return 99) prints what the original prints with it (mid() = 99), and
# the patched chunk stays as it is: all the other whole chunks copied.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_inv_pie

cache_state warm "$J/inv-copy"
copy_run "$J/patch-orig" env LD_PRELOAD="$O/invpatch.so" "$J/inv-orig"
grep -q 'mid() = 99' "$J/patch-orig" \
	|| skip_all "preload patch: the original is not patched here ($(head -1 "$J/patch-orig.err"))"
copy_run "$J/patch-copy" env LD_PRELOAD="$O/invpatch.so" "$J/inv-copy"
same "$J/patch-orig" "$J/patch-copy" "data=journal, inv-pie copy with the patching preload (mid() = 99)"
expect_copy_kb "data=journal, inv-pie copy with the patching preload: the patched chunk kept" \
	"$J/patch-copy.smaps" "$J/inv-copy" "$KEPT_KB" 0
stub_finish
