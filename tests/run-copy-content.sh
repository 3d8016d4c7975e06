#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-content.sh: every copied byte is the file's.  On ext4 mounted
# data=journal, inv-pie's --madvise=copy rewrite (tests/fixtures inv.S:
# inv_sum() reads the whole text) prints what the original prints, warm,
# with every whole chunk of its text copied to anonymous huge pages.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_inv_pie

cache_state warm "$J/inv-copy"
copy_run "$J/inv-copy.out" "$J/inv-copy"
same "$J/inv-orig.out" "$J/inv-copy.out" "data=journal, inv-pie copy (inv_sum through the copied text)"
expect_copy_kb "data=journal, inv-pie copy" "$J/inv-copy.out.smaps" "$J/inv-copy" $((INV_IDEAL * PMD / 1024)) 0
stub_finish
