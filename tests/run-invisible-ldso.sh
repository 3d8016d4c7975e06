#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-ldso.sh: a rewritten program started by an explicit loader
# (/lib64/ld-linux-x86-64.so.2 ./inv-pie) repairs the program, not ld.so.
# From a cold, a warm and an order-0 page cache: it prints what the
# original prints so started; under strace -y no fadvise64, fdatasync or
# flock touches a descriptor of ld.so; the program's FilePmdMapped is at
# least 95% of the ideal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LDSO=/lib64/ld-linux-x86-64.so.2

invisible_start "drop_caches"
require_strace
[ -x "$LDSO" ] || skip_all "no $LDSO"
inv_fixture pie
ldso_real=$(readlink -f "$LDSO")

run_logged "$WORK/ldso.ref" "$LDSO" "$P_ORIG" "${ARGS[@]}"
for s in cold warm order-0; do
	w=$WORK/ldso.$s
	what="explicit loader, $s"
	cache_state $s "$P_MAD" "$LDSO" "$P_MAD"
	rm -f "$w.smaps"
	FIXTURE_SMAPS=$w.smaps run_logged "$w.out" strace -f -qq -y -o "$w.strace" \
		-e trace=openat,open,fadvise64,fdatasync,flock,mmap "$LDSO" "$P_MAD" "${ARGS[@]}"
	same "$WORK/ldso.ref" "$w.out" "$what"
	calls=$(strace_calls "$w.strace" fadvise64 fdatasync flock)
	bad=$(echo "$calls" | grep -F "<$ldso_real>")
	if [ -z "$bad" ]; then
		pass "$what: no fadvise64, fdatasync or flock on ld.so ($(echo "$calls" | grep -c .) such calls in all)"
	else
		fail "$what: $(echo "$bad" | wc -l) fadvise64/fdatasync/flock calls on ld.so: $(echo "$bad" | sed 's/^[0-9]* *//; s/(.*//' | sort | uniq -c | tr -s ' \n' ' ')"
		echo "$bad" | head -3 | sed 's/^/      /'
	fi
	check_pmd_coverage "$what" "$w.smaps" "$P_MAD"
done
stub_finish
