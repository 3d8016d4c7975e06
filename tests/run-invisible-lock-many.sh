#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-many.sh: the bound on waiting for other users' locks
# is the process's, not each library's.  One program (tests/fixtures
# invdl) loads 24 copies of libinv.so rewritten by elfpmd --madvise, each
# in order-0 folios, while the user nobody holds the flock of every one:
# it prints what it prints without the holder; the stubs ask for at most
# 20 ms of sleep in all (they share one ledger of waits: strace sees one
# shared anonymous mapping); every library's stub found its lock held (so
# a bound per library would have let each wait); the first and the last
# library are at least 95% PMD-mapped.  The wall times of interleaved
# starts with and without the holder are noted (INVISIBLE_MANY_ROUNDS
# pairs, default 3).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MANY_LIBS=24
MANY_ROUNDS=${INVISIBLE_MANY_ROUNDS:-3}

invisible_start "drop_caches, running as another user"
require_strace
inv_fixture lib
stub_fixture inv-tools
md=$WORK/many
mkdir -p "$md"
chmod 755 "$md"
libs=()
for ((k = 0; k < MANY_LIBS; k++)); do
	cp -p "$L_MAD" "$md/libinv$k.so"
	libs+=("$md/libinv$k.so")
done
require_nobody "${libs[0]}"

# many_run OUT [WRAPPER...]: the libraries in order-0 folios, then invdl
# loading them all once; OUT.ns: the run's wall time.
many_run () {
	local out=$1 t0 t1
	shift
	cache_order0 "${libs[@]}"
	t0=$(date +%s%N)
	FIXTURE_SMAPS=$out.smaps run_logged "$out" "$@" "$INVDL" "${libs[@]}" 1
	t1=$(date +%s%N)
	echo $((t1 - t0)) >"$out.ns"
}
many_hold () { nobody_locks "$WORK/many.holder" flock "${libs[@]}"; }

what="$MANY_LIBS libraries, every lock held by nobody, order-0"
many_run "$WORK/many.free"
many_hold || skip_all "nobody could not take the locks: $(head -1 "$WORK/many.holder")"
many_run "$WORK/many.held" strace -f -qq -y -o "$WORK/many.strace" -e trace=flock,mmap,nanosleep,clock_nanosleep
same "$WORK/many.free" "$WORK/many.held" "$what"
# strace -y shows each descriptor's path.
blocked=$(strace_calls "$WORK/many.strace" flock | grep -E 'LOCK_EX\|LOCK_NB\) += -1 (EAGAIN|EWOULDBLOCK)' \
	| sed -E 's/^[0-9]+ +flock\([0-9]+<([^>]*)>.*/\1/' | sort -u | grep -c '/libinv[0-9]*\.so$')
holds "$what: the stub of each of the $blocked libraries found its lock held" '[ "$blocked" -eq "$MANY_LIBS" ]'
check_sleeps "$what, for the process" "$WORK/many.strace" "$MAX_LOCK_WAIT_NS"
ledgers=$(strace_calls "$WORK/many.strace" mmap | grep -c 'MAP_SHARED|MAP_ANONYMOUS')
holds "$what: one ledger of waits for the process ($ledgers shared anonymous mappings)" '[ "$ledgers" -eq 1 ]'
check_pmd_coverage "$what, the first" "$WORK/many.held.smaps" "${libs[0]}"
check_pmd_coverage "$what, the last" "$WORK/many.held.smaps" "${libs[MANY_LIBS - 1]}"

# Wall time, without strace, noted: the strace sum above is the bound.
free_ns=() held_ns=()
for ((r = 0; r < MANY_ROUNDS; r++)); do
	for arm in $( ((r % 2)) && echo "held free" || echo "free held"); do
		if [ "$arm" = free ]; then nobody_unlocks; else [ -n "$HOLDER" ] || many_hold || break 2; fi
		many_run "$WORK/many.t"
		if [ "$arm" = free ]; then free_ns+=("$(cat "$WORK/many.t.ns")"); else held_ns+=("$(cat "$WORK/many.t.ns")"); fi
		[ "$(tail -1 "$WORK/many.t")" = "exit status 42" ] || fail "$what: a timed run ended with $(tail -1 "$WORK/many.t")"
	done
done
nobody_unlocks
median_ms () { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1e6 }'; }
[ ${#held_ns[@]} -eq "$MANY_ROUNDS" ] \
	&& note "$what: wall time, median of $MANY_ROUNDS interleaved starts: $(median_ms "${free_ns[@]}") ms without the holder, $(median_ms "${held_ns[@]}") ms with it"
stub_finish
