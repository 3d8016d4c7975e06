#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-real-programs.sh: real programs nobody here wrote, rewritten with
# elfpmd --madvise, in every page cache state bench/real-programs.sh knows
# (fresh, cold, warm, order-0, three at once, dirty): each run prints what
# the original prints, and every whole chunk of text it has reached by its
# gate is PMD-mapped.  The sets: gcc's cc1 and the distribution's JDK, whose
# libjvm.so is loaded by the java launcher (a read-ahead of ld.so's still
# filling the library's text when its stub runs).  A slow suite (about two minutes): make check-all.  Needs root and
# file THP where the work directory is; a set whose program is missing is
# skipped.
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_slow "real programs, about two minutes"
require_elfpmd
require_root_thp "drop_caches, /proc/PID/pagemap of the jobs"
page_cache_lock
have python3 || skip_all "python3 not found (bench/real-programs.sh uses it)"
WORK=$TESTS_BUILDDIR/real-programs
rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
BENCH=$TESTS_SRCDIR/../bench/real-programs.sh
[ -x "$BENCH" ] || hard_error "$BENCH missing"

# The objects the bench found for a set (its -l list), or nothing.
objects_of () { ELFPMD=$ELFPMD "$BENCH" -l | awk -v s="$1" '$1 == s && !/\(not installed\)/ { print $2 }'; }

sets=
for set in cc1 jvm; do
	if [ -n "$(objects_of "$set")" ]; then
		sets=${sets:+$sets,}$set
	else
		skip "$set: not installed here (bench/real-programs.sh -l)"
	fi
done
[ -n "$sets" ] || skip_all "none of the programs is installed"

ELFPMD=$ELFPMD ELFPMD_BENCH_LOCK=$WORK/bench.lock "$BENCH" -d "$WORK" -o "$sets" >"$WORK/bench.out" 2>&1 \
	|| hard_error "bench/real-programs.sh failed: $(tail -3 "$WORK/bench.out")"
for set in ${sets//,/ }; do
	sed -n "/^== $set:/,/^== /p" "$WORK/bench.out" | grep -q "same as the original's: yes" \
		&& pass "$set: every run prints what the original prints" \
		|| fail "$set: a run printed something else (see $WORK/bench.out)"
	for name in $(objects_of "$set"); do
		lines=$(grep -c "^  state $name " "$WORK/bench.out")
		holds "$name: a line for each of the 6 states" "[ $lines -eq 6 ]"
		while read -r _ _ label pmd reached; do
			pmd=${pmd#pmd_kib=} reached=${reached#reached_kib=}
			holds "$name $label: $pmd of the $reached KiB reached are PMD-mapped" \
				"[ '$pmd' != - ] && [ '$reached' != - ] && [ $reached -gt 0 ] && [ $pmd -eq $reached ]"
		done < <(grep "^  state $name " "$WORK/bench.out")
	done
done
finish
