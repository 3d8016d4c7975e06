#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-long-path.sh: the stub finds a library at a path longer
# than a page.  libinv.so rewritten by elfpmd --madvise at a path of 4,080
# bytes (its lines in /proc/self/maps are longer than 4,096), cached in
# order-0 folios and loaded by invdl: it prints what the original prints
# from such a path, and its FilePmdMapped is at least 95% of the ideal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# long_dir TOP: a directory path under TOP such that TOP/.../libinv.so is
# 4,080 bytes long (components of at most 200 bytes).
long_dir () {
	local d=$1 want=$((4080 - 11)) part
	while [ $((${#d} + 201)) -le "$want" ]; do d=$d/$(printf 'd%.0s' {1..200}); done
	part=$((want - ${#d} - 1))
	[ "$part" -gt 0 ] && d=$d/$(head -c "$part" /dev/zero | tr '\0' 'e')
	echo "$d"
}

invisible_start "drop_caches"
inv_fixture lib
what="library at a path of 4,080 bytes, order-0"
lo=$(long_dir "$WORK/lp/o") lm=$(long_dir "$WORK/lp/m")
mkdir -p "$lo" "$lm"
cp -p "$L_ORIG" "$lo/libinv.so"
cp -p "$L_MAD" "$lm/libinv.so"

w=$WORK/longpath
run_logged "$w.orig" "$INVDL" "$lo/libinv.so" 1
cache_order0 "$lm/libinv.so"
rm -f "$w.smaps"
FIXTURE_SMAPS=$w.smaps run_logged "$w.mad" "$INVDL" "$lm/libinv.so" 1
same "$w.orig" "$w.mad" "$what"
longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$w.smaps" 2>/dev/null)
note "long path: ${#lm} bytes + /libinv.so; longest smaps line $longest bytes"
[ "${longest:-0}" -gt 4096 ] || fail "$what: no maps line longer than 4,096 bytes (the test is wrong)"
check_pmd_coverage "$what" "$w.smaps" "$lm/libinv.so"
stub_finish
