#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# concurrent.sh -- N starts of a --madvise program at once, on a page cache
# that holds its text in 4 KiB folios, with two builds of elfpmd side by
# side: how often does one of the starts end with less than all of its
# whole chunks PMD-mapped?
#
#   bench/concurrent.sh [-n ROUNDS] [-N STARTS] [-H HOGS] [-f pie|lib]
#                       [-R REFERENCE_ELFPMD] [-d DIR] [-k]
#
# Builds the fixtures of tests/run-madvise-*.sh (mad-pie: 14 MiB of text, 7
# whole chunks; libmadbig.so, used by usemadbig, the same as a library) and
# the page-cache helper (tests/fixtures/pagecache.c), rewrites the fixture
# with `elfpmd --madvise` by this build (ELFPMD, or ../src/elfpmd) and by
# REFERENCE_ELFPMD (-R; default: the same build, for a baseline of the
# method), and runs ROUNDS rounds (default 30), each of both arms in turn:
# sync, drop the page cache, read the file into 4 KiB folios (pagecache
# order0), start STARTS copies (default 3) at once, wait for them, and read
# each one's FilePmdMapped of the file from its smaps (the fixture copies
# its smaps to FIXTURE_SMAPS before it exits).  Each start must print what
# the original prints.  HOGS (default 0) busy loops run meanwhile: a loaded
# machine, where a start that repairs the file is preempted mid-way.
# Prints each round (milliseconds for the whole round, then kB per start),
# then per arm: rounds, rounds in which any start fell short, and the
# median round time.  Needs root (drop_caches), file THP (ext4 on Linux
# 6.16+, xfs, ...) and cc.
set -u
ROUNDS=30 STARTS=3 HOGS=0 FIXTURE=pie REF= WORK= KEEP=0
while getopts n:N:H:f:R:d:k opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	N) STARTS=$OPTARG ;;
	H) HOGS=$OPTARG ;;
	f) FIXTURE=$OPTARG ;;
	R) REF=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) echo "usage: $0 [-n ROUNDS] [-N STARTS] [-H HOGS] [-f pie|lib] [-R REFERENCE_ELFPMD] [-d DIR] [-k]" >&2; exit 64 ;;
	esac
done
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
bench_require_root_thp
REF=${REF:-$ELFPMD}
src=$(cd "$(dirname "$0")/../tests/fixtures" && pwd)
bench_workdir concurrent
case $FIXTURE in
pie) target=mad-pie file=mad-pie prog= ;;
lib) target=mad-lib file=libmadbig.so prog=$WORK/build/usemadbig ;;
*) bench_die "-f wants pie or lib" ;;
esac
for t in "$target" mad-tools; do
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -f "$src/Makefile" SRC="$src" O="$WORK/build" "$t" \
		>"$WORK/build-$t.log" 2>&1 || bench_die "cannot build $t: $(tail -1 "$WORK/build-$t.log")"
done
mkdir -p "$WORK/a" "$WORK/b" "$WORK/orig"
cp "$WORK/build/$file" "$WORK/orig/$file"
"$REF" -q --madvise -o "$WORK/a/$file" "$WORK/build/$file" || bench_die "$REF cannot rewrite $file"
"$ELFPMD" -q --madvise -o "$WORK/b/$file" "$WORK/build/$file" || bench_die "$ELFPMD cannot rewrite $file"

# run DIR OUT: the fixture with the file in DIR.
run () {
	local exe=${prog:-$1/$file}
	LD_LIBRARY_PATH=$1 "$exe" alpha "beta gamma" >"$2" 2>&1
	echo "exit status $?" >>"$2"
}
# pmd_kb SMAPS OBJECT: FilePmdMapped of OBJECT's mappings in SMAPS.
pmd_kb () {
	awk -v ino="$(stat -c %i "$2")" '/^[0-9a-f]+-[0-9a-f]+ / { cur = $5 == ino; next }
		cur && $1 == "FilePmdMapped:" { s += $2 } END { print s + 0 }' "$1"
}
run "$WORK/orig" "$WORK/orig.out"
# The ideal: the whole chunks of the file's read-only segments, as elfpmd
# counts them (the fixtures' other read-only segments hold none).
chunks=$("$ELFPMD" -n --json "$WORK/b/$file" | sed -n 's/.*"pmd_chunks_after":\([0-9]*\).*/\1/p')
want=$((${chunks:-0} * 2048))
[ "$want" -gt 0 ] || bench_die "no whole chunk of text in $file"

hogs=()
for ((h = 0; h < HOGS; h++)); do sh -c 'while :; do :; done' >/dev/null 2>&1 & hogs+=($!); done
trap 'kill "${hogs[@]}" 2>/dev/null; if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi' EXIT

echo "fixture $file ($want kB ideal), $STARTS at once, $HOGS busy loops; a: $REF, b: $ELFPMD"
for ((i = 1; i <= ROUNDS; i++)); do
	for arm in a b; do
		f=$WORK/$arm/$file
		sync
		echo 3 >/proc/sys/vm/drop_caches
		"$WORK/build/pagecache" order0 "$f" >/dev/null 2>&1
		t0=$(date +%s%N)
		pids=()
		for ((k = 1; k <= STARTS; k++)); do
			FIXTURE_SMAPS=$WORK/smaps.$k run "$WORK/$arm" "$WORK/out.$k" &
			pids+=($!)
		done
		wait "${pids[@]}"
		t1=$(date +%s%N)
		line="$i $arm $(((t1 - t0) / 1000000)) ms:" short=0
		for ((k = 1; k <= STARTS; k++)); do
			cmp -s "$WORK/orig.out" "$WORK/out.$k" || bench_die "round $i, arm $arm: start $k printed something else"
			kb=$(pmd_kb "$WORK/smaps.$k" "$f")
			line="$line $kb"
			[ "$kb" -ge "$want" ] || short=1
		done
		echo "$line"
		echo "$arm $short $(((t1 - t0) / 1000000))" >>"$WORK/summary"
	done
done
for arm in a b; do
	n=$(awk -v arm=$arm '$1 == arm' "$WORK/summary" | wc -l)
	short=$(awk -v arm=$arm '$1 == arm && $2 == 1' "$WORK/summary" | wc -l)
	median=$(awk -v arm=$arm '$1 == arm { print $3 }' "$WORK/summary" | sort -n \
		| awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	echo "$arm: $n rounds, $short with a start short of the ideal, median round $median ms"
done
