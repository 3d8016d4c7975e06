#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-journal.sh: where the file cannot have PMD-sized folios, the
# copy gives the text huge pages.  On ext4 mounted data=journal (a loop
# image; no large folios there on any kernel, as on Debian's 6.1 and 6.12
# ext4), the premise first: the plain --madvise rewrite of mad-pie gets no
# huge page at all.  Then its --madvise=copy rewrite prints what the
# original prints and its anonymous executable memory on huge pages is
# exactly the ideal, from a cold, a warm and an order-0 page cache, moved
# there by one mremap (strace).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/mad" --madvise
copy_rewrite "$MADPIE" "$J/copy"

cache_state warm "$J/mad"
copy_run "$J/mad.warm" "$J/mad"
same "$J/orig.out" "$J/mad.warm" "data=journal, plain --madvise, warm"
expect_copy_kb "data=journal, plain --madvise, warm (no huge page: the premise)" "$J/mad.warm.smaps" "$J/mad" 0 0

for s in cold warm order-0; do
	cache_state $s "$J/copy"
	copy_run "$J/copy.$s" "$J/copy"
	same "$J/orig.out" "$J/copy.$s" "data=journal, copy, $s"
	expect_copy_kb "data=journal, copy, $s" "$J/copy.$s.smaps" "$J/copy" "$IDEAL_KB" 0
done
if have strace; then
	copy_run "$J/strace" strace -f -qq -e trace=mremap -o "$J/strace.log" "$J/copy"
	n=$(grep -c 'mremap(' "$J/strace.log")
	holds "data=journal, copy under strace: one mremap moves the $IDEAL chunks ($n)" '[ "$n" -eq 1 ]'
	same "$J/orig.out" "$J/strace" "data=journal, copy under strace"
else
	skip "strace not found (Debian: strace): the mremap count is skipped"
fi
stub_finish
