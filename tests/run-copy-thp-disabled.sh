#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-thp-disabled.sh: no copy in a process that turned THP off.  On
# ext4 mounted data=journal, where the copy would give mad-pie's
# --madvise=copy rewrite huge pages, the rewrite run under
# PR_SET_THP_DISABLE (tests/fixtures/thp-off.c) prints what the original
# prints and copies nothing: no anonymous text on huge pages.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/copy"

cache_state warm "$J/copy"
copy_run "$J/thp-off" "$THP_OFF" "$J/copy"
same "$J/orig.out" "$J/thp-off" "data=journal, copy under PR_SET_THP_DISABLE"
expect_copy_kb "data=journal, copy under PR_SET_THP_DISABLE: no copy" "$J/thp-off.smaps" "$J/copy" 0 0
stub_finish
