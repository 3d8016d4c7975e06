#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# rewrite-io.sh -- what does rewriting a big binary in place cost a user,
# next to doing the same with cp and mv, and next to a plain copy?
#
# Builds two PIEs whose read-only executable PT_LOAD elfpmd will change
# (SIZE_MIB MiB of random data linked into .text): one that only needs its
# p_align raised ("align"), and one linked with lld whose text must be moved
# by inserting a hole ("padded").  For each, after one uncounted warm-up
# round, ROUNDS rounds of eight timed steps in two groups of four:
#
#   synced:
#   elfpmd FILE                   the rewrite in place, as a user runs it
#                                 (default: fsync the new file, rename it
#                                 over FILE, fsync the directory)
#   cp IN O && sync O             cp over an existing file O (GNU sync
#                                 FILE fsyncs that one file): the new
#                                 contents in place, not atomically
#   cp IN R.new && sync R.new && mv R.new R && sync .
#                                 the atomic replacement elfpmd makes, with
#                                 the standard tools
#   cp IN OUT && sync OUT         a copy into a new name, which replaces
#                                 nothing
#   not synced:
#   elfpmd --no-sync FILE         the rewrite in place without fsync
#   cp IN O                       over an existing file
#   cp IN R.new && mv R.new R     the atomic replacement
#   cp IN OUT                     a copy into a new name
#
# Each timed step is the whole command, started from this shell, after an
# untimed global `sync`, so no step pays for the dirty pages of another,
# and a pause of SETTLE seconds (-w), so no step writes into memory another
# freed just before it: in a virtual machine with free page reporting (this
# one: page_reporting_order=11) the host takes back memory a few seconds
# after the guest frees it, and writing 1 GiB into such memory cost 2.5-3 s
# where writing into memory freed a moment before cost 0.2-0.3 s.  What a
# step frees itself (cp over O truncates O first; elfpmd drops the old
# file's pages behind its copy) it may reuse.
# FILE, O and R are fresh copies of IN made before that sync, so like a
# binary that was linked a while ago they are clean in the page cache (FILE,
# which elfpmd reads, also dropped and read back, as IN was: like_in), and
# all three are replaced.  Replacing a file costs what writing a new one does not:
# the old contents are freed (when cp truncates O; when the last process
# lets go of a file renamed over) (its page
# cache, and its blocks, which ext4 without a journal mounted -o discard
# discards there and then, waiting for the disk), and ext4 starts writing
# back a file renamed over another at the rename (auto_da_alloc), so that
# the replacement is never seen empty after a crash.  The time `rm` takes
# for a synced copy of IN, measured after each `cp IN OUT && sync OUT`,
# shows the first.  In each group the order of the three steps turns by
# one each round.  The script prints the median of each step and, per
# comparison, the ratio of the medians and the median of the per-round
# ratios with a 95% interval (the order statistics a sign test gives;
# with fewer than 6 rounds, the range).
#
# Usage: bench/rewrite-io.sh [-n ROUNDS] [-s SIZE_MIB] [-w SETTLE] [-d WORKDIR] [-a|-p] [-k]
#   -n ROUNDS    counted rounds per input (default 7; odd, so that the
#                median is one round)
#   -s SIZE_MIB  size of the random text (default 256, under a minute in
#                all; -s 1024 for the 1 GiB case, a few minutes)
#   -w SETTLE    seconds to wait before each timed step (default 3)
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp); it
#                must have room for the input and seven copies (8 x SIZE)
#   -a, -p       only the align input, only the padded one (default both;
#                the padded one needs clang and lld, else it is skipped)
#   -k           keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
# Not a test: it writes several GiB.

set -eu
export LC_ALL=C

ROUNDS=7
SIZE_MIB=256
WORK=
KEEP=0
KINDS="align padded"
SETTLE=3
while getopts 'n:s:w:d:apkh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	s) SIZE_MIB=$OPTARG ;;
	w) SETTLE=$OPTARG ;;
	d) WORK=$OPTARG ;;
	a) KINDS=align ;;
	p) KINDS=padded ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
for t in cc objcopy python3; do
	command -v "$t" >/dev/null || bench_die "$t is needed"
done
if [ "$KINDS" != align ] && ! { command -v clang && command -v ld.lld; } >/dev/null; then
	echo "clang and ld.lld are needed for the padded input: skipping it" >&2
	KINDS=${KINDS/padded/}
	[ -n "${KINDS// /}" ] || exit 1
fi

bench_workdir rewrite-io

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'))"
if command -v findmnt >/dev/null; then
	echo "mounted:  $(findmnt -n -o OPTIONS -T "$WORK")"
fi
echo "kernel:   $(uname -r), $(nproc) CPUs"

# ------------------------------------------------------------------ inputs
cd "$WORK"
build() { # KIND: write KIND.in
	head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom >blob
	objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
		--rename-section .data=.text.big,alloc,load,readonly,code,contents blob blob.o
	cat >main.c <<'EOF'
#include <stdio.h>
extern const char _binary_blob_start[], _binary_blob_end[];
int main(void)
{
	printf("%ld bytes of text\n", (long)(_binary_blob_end - _binary_blob_start));
	return 0;
}
EOF
	if [ "$1" = padded ]; then
		# lld places the text 4 KiB apart from its address modulo 2 MiB, so
		# elfpmd must insert a hole before it and move the whole file's tail.
		clang -O1 -fPIE -pie -fuse-ld=lld -Wl,-z,noexecstack -o "$1.in" main.c blob.o
	else
		cc -O1 -fPIE -pie -Wl,-z,noexecstack -o "$1.in" main.c blob.o
	fi
	rm -f blob blob.o main.c
	"./$1.in" >/dev/null
	if ! "$ELFPMD" -n --json "$1.in" | grep -q '"status":"would change"'; then
		echo "elfpmd would not change the $1 input; its report:" >&2
		"$ELFPMD" -n "$1.in" >&2 || true
		exit 1
	fi
}

# ------------------------------------------------------------------ steps
now() { date +%s.%N; }
declare -A T
timed() { # NAME COMMAND...: time one step, after an untimed global sync
	local name=$1 t0 t1
	shift
	sync
	sleep "$SETTLE"
	t0=$(now)
	"$@"
	t1=$(now)
	T[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') "
}
cp_sync() { cp "$IN" OUT && sync OUT; }
replace_sync() { cp "$IN" R.new && sync R.new && mv R.new R && sync .; }
over_sync() { cp "$IN" O && sync O; }
replace_nosync() { cp "$IN" RN.new && mv RN.new RN; }
# like_in F: F, just written by cp, cached as IN is: synced, dropped from
# the page cache and read back.  Written pages stay in the folios the write
# made, and copying out of those cost copy_file_range 1.43 s for 1 GiB here
# where copying out of IN's, read into large folios, took 0.18 s: elfpmd
# reads FILE and cp reads IN, so without this the two would not read the
# same thing.
like_in() {
	sync "$1"
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
	cat "$1" >/dev/null
}
rewrite_sync() { cp "$IN" FILE; like_in FILE; timed elfpmd "$ELFPMD" -q FILE; }
rewrite_nosync() { cp "$IN" FILE_NS; like_in FILE_NS; timed elfpmd_nosync "$ELFPMD" -q --no-sync FILE_NS; }
reference_sync() { cp "$IN" R; timed replace replace_sync; }
reference_nosync() { cp "$IN" RN; timed replace_nosync replace_nosync; }
overwrite_sync() { cp "$IN" O; timed over over_sync; }
overwrite_nosync() { cp "$IN" ON; timed over_nosync cp "$IN" ON; }
new_sync() { timed cp_sync cp_sync; timed rm rm OUT; }
new_nosync() { timed cp cp "$IN" OUT_NS; rm -f OUT_NS; }
# turn K STEP...: run the steps starting with the K-th (modulo their number).
turn() {
	local k=$1 n i
	shift
	n=$#
	for ((i = 0; i < n; i++)); do
		local j=$(((k + i) % n + 1))
		"${!j}"
	done
}

median() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	printf "%s .. %s", v[1], v[NR] }'; }
# interval VALUES: a 95% interval of the median of VALUES: the ranks
# n/2 -+ 0.98 sqrt(n) of the sorted values (a sign test's), or the range
# for fewer than 6.
interval() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	lo = 1; hi = NR
	if (NR >= 6) { h = 0.98 * sqrt(NR); lo = int(NR / 2 - h) + 1; hi = int(NR / 2 + h + 0.999999)
		if (lo < 1) lo = 1; if (hi > NR) hi = NR }
	printf "%.3f-%.3f", v[lo], v[hi] }'; }
ratios() { # A-STEP B-STEP: the per-round ratios A / B
	paste <(echo "${T[$1]}" | tr ' ' '\n' | sed '/^$/d') \
		<(echo "${T[$2]}" | tr ' ' '\n' | sed '/^$/d') |
		awk '{ printf "%.3f ", $1 / $2 }'
}
nth() { echo "$1" | awk -v n="$2" '{ print $n }'; }

for KIND in $KINDS; do
	echo
	echo "== $KIND: building a ${SIZE_MIB} MiB input..."
	build "$KIND"
	IN=$KIND.in
	"$ELFPMD" -n "$IN" | grep -E 'result|PMD-mappable|moved to' | sed 's/^ */  /'
	cat "$IN" >/dev/null # warm the page cache
	T=()
	for ((r = 0; r <= ROUNDS; r++)); do
		turn "$r" rewrite_sync overwrite_sync reference_sync new_sync
		turn "$r" rewrite_nosync overwrite_nosync reference_nosync new_nosync
		if [ "$r" = 0 ]; then
			cmp -s FILE FILE_NS || echo "  warning: elfpmd and elfpmd --no-sync wrote different files"
			"$ELFPMD" -n FILE | grep -q 'already aligned' || echo "  warning: FILE is not aligned"
			printf '  size: input %d B (%d B allocated), rewritten %d B (%d B allocated)\n' \
				"$(stat -c %s "$IN")" "$(( $(stat -c '%b * %B' "$IN") ))" \
				"$(stat -c %s FILE)" "$(( $(stat -c '%b * %B' FILE) ))"
		fi
		rm -f FILE FILE_NS R RN O ON
		printf '  round %d%s: elfpmd %s  cp-over+sync %s  cp+sync+mv %s  cp+sync %s (rm %s)  elfpmd --no-sync %s  cp-over %s  cp+mv %s  cp %s\n' \
			"$r" "$([ "$r" = 0 ] && echo ' (warm-up)')" \
			"$(nth "${T[elfpmd]}" "$((r + 1))")" "$(nth "${T[over]}" "$((r + 1))")" \
			"$(nth "${T[replace]}" "$((r + 1))")" \
			"$(nth "${T[cp_sync]}" "$((r + 1))")" "$(nth "${T[rm]}" "$((r + 1))")" \
			"$(nth "${T[elfpmd_nosync]}" "$((r + 1))")" "$(nth "${T[over_nosync]}" "$((r + 1))")" \
			"$(nth "${T[replace_nosync]}" "$((r + 1))")" "$(nth "${T[cp]}" "$((r + 1))")"
	done
	for s in elfpmd over replace cp_sync rm elfpmd_nosync over_nosync replace_nosync cp; do # drop the warm-up round
		T[$s]=$(echo "${T[$s]}" | cut -d ' ' -f 2-)
	done
	rm -f "$IN"
	echo "  median of $ROUNDS rounds (seconds), min .. max:"
	printf '    %-46s %8s   %s\n' \
		"elfpmd FILE" "$(median "${T[elfpmd]}")" "$(range "${T[elfpmd]}")" \
		"cp IN O && sync O (O exists)" "$(median "${T[over]}")" "$(range "${T[over]}")" \
		"cp IN R.new && sync R.new && mv R.new R && sync ." "$(median "${T[replace]}")" "$(range "${T[replace]}")" \
		"cp IN OUT && sync OUT" "$(median "${T[cp_sync]}")" "$(range "${T[cp_sync]}")" \
		"  rm OUT (after a sync)" "$(median "${T[rm]}")" "$(range "${T[rm]}")" \
		"elfpmd --no-sync FILE" "$(median "${T[elfpmd_nosync]}")" "$(range "${T[elfpmd_nosync]}")" \
		"cp IN O (O exists)" "$(median "${T[over_nosync]}")" "$(range "${T[over_nosync]}")" \
		"cp IN R.new && mv R.new R" "$(median "${T[replace_nosync]}")" "$(range "${T[replace_nosync]}")" \
		"cp IN OUT" "$(median "${T[cp]}")" "$(range "${T[cp]}")"
	for pair in "elfpmd over elfpmd / (cp over && sync)" "elfpmd replace elfpmd / (cp+sync+mv)" \
		"elfpmd cp_sync elfpmd / (cp new && sync)" \
		"elfpmd_nosync over_nosync elfpmd --no-sync / cp over" \
		"elfpmd_nosync replace_nosync elfpmd --no-sync / (cp+mv)" "elfpmd_nosync cp elfpmd --no-sync / cp new"; do
		set -- $pair
		a=$1 b=$2
		shift 2
		rr=$(ratios "$a" "$b")
		awk -v k="$KIND" -v l="$*" -v a="$(median "${T[$a]}")" -v b="$(median "${T[$b]}")" \
			-v m="$(median "$rr")" -v r="$(interval "$rr")" 'BEGIN {
			printf "ratio %-7s %-34s %.2f of medians; per round %.2f (95%%: %s)\n", k, l, a / b, m, r }'
	done
done
