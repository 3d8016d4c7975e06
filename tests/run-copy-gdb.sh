#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-gdb.sh: the copy keeps a debugger's breakpoint.  On ext4
# mounted data=journal, inv-pie's --madvise=copy rewrite under gdb with a
# breakpoint in mid (in a whole chunk): the breakpoint hits as often as in
# the original (3 times), the program prints the same, and the chunk with
# the breakpoint stays as it is: all the other whole chunks copied.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
have gdb || skip_all "gdb not found (Debian: gdb)"
copy_fixture
copy_journal
copy_inv_pie

cache_state warm "$J/inv-copy"
h0=$(gdb_mid "$J/inv-orig" "$J/gdb-orig")
[ "$h0" -eq 3 ] || skip_all "gdb: the original hits the breakpoint in mid $h0 times, not 3: gdb does not work here"
h1=$(gdb_mid "$J/inv-copy" "$J/gdb-copy")
holds "data=journal, inv-pie copy under gdb: the breakpoint in mid hits $h1 times, as the original's $h0" '[ "$h1" -eq "$h0" ]'
check "data=journal, inv-pie copy under gdb prints the same" cmp -s "$J/gdb-orig" "$J/gdb-copy"
expect_copy_kb "data=journal, inv-pie copy under gdb: the chunk with the breakpoint kept" \
	"$J/gdb-copy.smaps" "$J/inv-copy" "$KEPT_KB" 0
stub_finish
