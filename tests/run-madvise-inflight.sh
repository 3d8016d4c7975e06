#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-inflight.sh: a shared library whose text a read-ahead started
# by ld.so is still reading when the library's startup stub runs, as
# HotSpot's libjvm.so from a cold cache (fixtures/inflight.c), loaded by a
# program whose eight threads then run all of it at once
# (fixtures/inflightmain.c).  The stub must see those pages as cached (being
# read), not as a chunk nothing of which is cached that it could leave to
# the program: every whole chunk PMD-mapped in each of five cold runs, and
# warm, and the same output as the original's.
#
# On an ext4 image of its own (a loop device with read_ahead_kb 8192, the
# read-ahead at which ld.so's window reaches the text), its reads capped at
# 16 MiB/s by a block I/O cgroup, so that the read-ahead is still under way
# when the stub looks, on any machine.  Where tracefs has the readahead
# events, each run also checks that the read-ahead did reach the text's
# chunks (else that run proves nothing, and says so).  Needs root, file THP
# on ext4 (Linux 6.16+), loop devices and a cgroup io or blkio controller;
# skipped (77) otherwise.
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS=5

require_elfpmd
require_root_thp "drop_caches, a loop mount, a cgroup"
page_cache_lock
work_dir
build_fixture mad-tools || skip_all "cannot build the page cache helper: $(tail -1 "$O/mad-tools.log")"
build_fixture mad-inflight || skip_all "cannot build the fixture: $(tail -1 "$O/mad-inflight.log")"
PAGECACHE=$O/pagecache
cleanup_on_exit
ext4_mount "$WORK" 100M defaults >"$WORK/loop.why" 2>&1 || skip_all "no ext4 loop mount: $(tail -1 "$WORK/loop.why")"
require_file_thp "$MNTED"
echo 8192 >"/sys/block/${LOOPDEV##*/}/queue/read_ahead_kb" || skip_all "cannot set the loop device's read_ahead_kb"
throttle_reads "$LOOPDEV" $((16 << 20)) >"$WORK/cg.why" 2>&1 || skip_all "no read cap: $(tail -1 "$WORK/cg.why")"

lib=libinflight.so
mkdir -p "$MNTED/orig" "$MNTED/pmd"
cp "$O/$lib" "$O/useinflight" "$MNTED/orig/"
cp "$O/useinflight" "$MNTED/pmd/"
"$ELFPMD" -q --madvise -o "$MNTED/pmd/$lib" "$O/$lib" >"$WORK/rewrite.log" 2>&1 \
	|| hard_error "elfpmd --madvise failed: $(head -1 "$WORK/rewrite.log")"
want=$(($(ideal_chunks "$MNTED/pmd/$lib") * PMD / 1024))
[ "$want" -ge $((4 * PMD / 1024)) ] || hard_error "the rewrite has $want kB of whole chunks, not the 5 the fixture is made for"

# The read-ahead that reaches the text before the stub runs: tracefs's
# page_cache_ra_order events of the rewritten library's inode in small
# folios (order below 9), starting inside its whole chunks (pages 1024 to
# 3584: file offsets 4 to 14 MiB); the stub's reads and the program's in
# the text are whole chunks (order 9).
TRACE=/sys/kernel/tracing
[ -d "$TRACE/events" ] || { mount -t tracefs nodev "$TRACE" 2>/dev/null && CLEANUP+=("umount $TRACE"); }
EV=$TRACE/events/readahead/page_cache_ra_order
if [ -d "$EV" ] && echo "i_ino == $(stat -c %i "$MNTED/pmd/$lib")" >"$EV/filter" 2>/dev/null; then
	CLEANUP+=("echo 0 >$EV/enable; echo 0 >$EV/filter; echo $(cat "$TRACE/tracing_on") >$TRACE/tracing_on")
	echo 1 >"$TRACE/tracing_on"
else
	EV=
	skip "tracefs has no readahead events here: whether ld.so's read-ahead reached the text is not checked"
fi
text_read_ahead () {
	awk '{ n = -1; o = -1
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^index=/) n = substr($i, 7) + 0
			if ($i ~ /^order=/) o = substr($i, 7) + 0 }
		if (n >= 1024 && n < 3584 && o >= 0 && o < 9) c++ }
		END { print c + 0 }' "$TRACE/trace"
}

# run DIR OUT: the program with the library in DIR, throttled.
run () { FIXTURE_SMAPS=$2.smaps LD_LIBRARY_PATH=$1 throttled timeout 60 "$1/useinflight" >"$2" 2>"$2.err"; echo "exit status $?" >>"$2"; }

drop_caches
run "$MNTED/orig" "$WORK/orig.out"
[ "$(tail -1 "$WORK/orig.out")" = "exit status 0" ] || hard_error "the original fails: $(head -3 "$WORK/orig.out.err")"
reached=0
for ((k = 1; k <= RUNS; k++)); do
	drop_caches
	if [ -n "$EV" ]; then echo >"$TRACE/trace"; echo 1 >"$EV/enable"; fi
	run "$MNTED/pmd" "$WORK/cold$k.out"
	[ -n "$EV" ] && { echo 0 >"$EV/enable"; ra=$(text_read_ahead); [ "$ra" -gt 0 ] && reached=$((reached + 1)); note "cold $k: $ra read-aheads in small folios into the whole chunks"; }
	same "$WORK/orig.out" "$WORK/cold$k.out" "cold $k"
	kb=$(pmd_kb "$WORK/cold$k.out.smaps" "$MNTED/pmd/$lib")
	holds "cold $k: FilePmdMapped $kb of $want kB" "[ $kb -eq $want ]"
done
if [ -n "$EV" ]; then
	if [ "$reached" -gt 0 ]; then
		pass "the read-ahead reached the text before the stub ran in $reached of $RUNS cold runs"
	else
		skip "ld.so's read-ahead never reached the text here: the cold runs above prove nothing about it"
	fi
fi
run "$MNTED/pmd" "$WORK/warm.out"
same "$WORK/orig.out" "$WORK/warm.out" "warm"
kb=$(pmd_kb "$WORK/warm.out.smaps" "$MNTED/pmd/$lib")
holds "warm: FilePmdMapped $kb of $want kB" "[ $kb -eq $want ]"
finish
