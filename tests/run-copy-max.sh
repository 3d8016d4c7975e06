#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-max.sh: --copy-max bounds the copy.  On ext4 mounted
# data=journal (no PMD-sized folios: only the copy gives huge pages), the
# rewrite of mad-pie by elfpmd --madvise=copy --copy-max=2M prints what the
# original prints, warm, with exactly one 2 MiB chunk of anonymous text on
# huge pages.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/copy2m" --madvise=copy --copy-max=2M

cache_state warm "$J/copy2m"
copy_run "$J/copy2m.out" "$J/copy2m"
same "$J/orig.out" "$J/copy2m.out" "data=journal, --copy-max=2M"
expect_copy_kb "data=journal, --copy-max=2M: one chunk" "$J/copy2m.out.smaps" "$J/copy2m" $((PMD / 1024)) 0
stub_finish
