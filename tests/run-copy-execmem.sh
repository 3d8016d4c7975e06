#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-execmem.sh: no copy where executable anonymous memory is
# refused.  On ext4 mounted data=journal, mad-pie's --madvise=copy rewrite
# runs under tests/fixtures/invseccomp.c execmem, which refuses
# executable anonymous memory as SELinux's execmem denial does: the copy's
# one mprotect fails (strace: one refused mprotect, no mremap), nothing is
# copied, and the program prints what the original prints.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
stub_fixture inv-tools
copy_journal
copy_rewrite "$MADPIE" "$J/copy"

cache_state warm "$J/copy"
what="data=journal, copy where executable anonymous memory is refused"
copy_run "$J/execmem" "$O/invseccomp" execmem "$J/copy"
same "$J/orig.out" "$J/execmem" "$what"
expect_copy_kb "$what: no copy" "$J/execmem.smaps" "$J/copy" 0 0
require_strace
copy_run "$J/execmem.strace" strace -f -qq -e trace=mprotect,mremap -o "$J/execmem.log" \
	"$O/invseccomp" execmem "$J/copy"
denied=$(grep -c 'mprotect(.*PROT_EXEC.*= -1 EACCES' "$J/execmem.log")
moved=$(grep -c 'mremap(' "$J/execmem.log")
holds "$what: one refused mprotect ($denied), no mremap ($moved)" '[ "$denied" -eq 1 ] && [ "$moved" -eq 0 ]'
stub_finish
