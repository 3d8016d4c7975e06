#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-here.sh: no copy wherever the file-backed way works.  Where
# file THP works (the file system of the build tree, probed with
# tests/fixtures/pagecache.c; skipped otherwise), the --madvise=copy
# rewrite of mad-pie (17 MiB of text) prints what the original prints and
# gets every whole chunk of its text file-backed on PMDs and no anonymous
# text on huge pages, from a cold, a warm and an order-0 page cache; and
# its stub makes no mremap (strace).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches"
require_file_thp "$WORK"
copy_fixture

cp "$MADPIE" "$WORK/orig"
copy_rewrite "$MADPIE" "$WORK/copy"
copy_run "$WORK/orig.out" "$WORK/orig"
for s in cold warm order-0; do
	cache_state $s "$WORK/copy"
	copy_run "$WORK/copy.$s" "$WORK/copy"
	same "$WORK/orig.out" "$WORK/copy.$s" "here, $s"
	expect_copy_kb "here, $s" "$WORK/copy.$s.smaps" "$WORK/copy" 0 "$IDEAL_KB"
done
if have strace; then
	cache_state order-0 "$WORK/copy"
	copy_run "$WORK/strace" strace -f -qq -e trace=mremap -o "$WORK/strace.log" "$WORK/copy"
	n=$(grep -c 'mremap(' "$WORK/strace.log")
	holds "here, order-0 under strace: no mremap ($n)" '[ "$n" -eq 0 ]'
else
	skip "strace not found (Debian: strace): the mremap count is skipped"
fi
stub_finish
