#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# batch.sh -- elfpmd -r over a copy of the system's programs and libraries,
# as a distribution's packaging hook runs it over a package's tree.
#
# Copies /usr/lib/x86_64-linux-gnu (or the multiarch directory of this
# machine) and /usr/bin into a tree (cp -a: hard links, symbolic links and
# modes kept), then in each of ROUNDS rounds makes two fresh copies of that
# tree, one for elfpmd and one for the reference (the copies are not timed;
# they leave the trees in the page cache, as a build leaves a staging tree),
# and times side by side:
#
#   elfpmd -r -j JOBS [OPTS] TREE           the run (default: with fsync)
#   find TREE -type f -exec cat {} + >/dev/null
#                                            reading every file once
#   cp CHANGED... DIR                        copying the files the run changed
#                                            (coreutils cp: copy_file_range, as elfpmd)
#
# and prints the ratio  elfpmd / (find+cat + cp)  per round and the median.
# Before each timed step the previous step's copies are removed and a
# global sync writes every dirty page, untimed.
# The target (issue 10) is at most 1.2.  Rounds alternate which runs first.
#
# After the first round it checks the run against an independent count
# (bench/batch-count.py: a Python walk of the tree that reads ELF headers
# itself and compares every file with the original in /usr): files,
# symbolic links, non-regular files, non-ELF files, relocatable objects,
# changed names, failures (none allowed); and that a second run over the
# rewritten tree changes nothing.
#
# Usage: bench/batch.sh [-n ROUNDS] [-j JOBS] [-d WORKDIR] [-k] [-- ELFPMD_OPTION...]
#   -n ROUNDS    timed rounds (default 3)
#   -j JOBS      elfpmd -j (default 2)
#   -d WORKDIR   where the trees go (default mktemp -d under /var/tmp); needs
#                four times the size of the copied directories (6 GB here)
#   -k           keep the work directory
#   ELFPMD=path  the tool
# Not a test: it writes several GB.

set -eu
export LC_ALL=C

ROUNDS=3
JOBS=2
WORK=
KEEP=0
while getopts 'n:j:d:kh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
OPTS=("$@")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_find_elfpmd
bench_workdir batch
command -v python3 > /dev/null || bench_die "needs python3 for the independent count"

multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
SOURCES="/usr/lib/$multiarch /usr/bin"
pristine=$WORK/pristine
mkdir -p "$pristine/usr/lib"
echo "copying $SOURCES into $pristine"
cp -a "/usr/lib/$multiarch" "$pristine/usr/lib/"
cp -a /usr/bin "$pristine/usr/"
echo "tree: $(find "$pristine" -type f | wc -l) regular files, $(find "$pristine" -type l | wc -l) symbolic links, $(du -sh "$pristine" | cut -f1)"

# t COMMAND...: run COMMAND, print its wall time in seconds.
t () {
	local s e
	s=$(date +%s.%N)
	"$@"
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}

run_elfpmd () { "$ELFPMD" -r -q -j "$JOBS" ${OPTS[@]+"${OPTS[@]}"} "$1" > /dev/null; }
run_json () { "$ELFPMD" -r --json -j "$JOBS" ${OPTS[@]+"${OPTS[@]}"} "$1"; }
read_all () { find "$1" -type f -exec cat {} + > /dev/null; }
copy_changed () { (cd "$1" && xargs -0 -r cp --parents -t "$2") < "$3"; }
# Before each timed step: the previous copies gone, every dirty page
# written, and a moment for the discards of the freed blocks (a file system
# mounted -o discard issues them at the journal's next commit), so that no
# step pays for another's writeback or frees.
settle () { rm -rf "$WORK/copies"; mkdir -p "$WORK/copies"; sync; sleep 2; sync; }

ratios=() tes=() tfs=() tcs=()
for r in $(seq 0 "$ROUNDS"); do
	# Two fresh copies made the same way: one for elfpmd, one that the
	# reference reads, so that both read files in the same state.
	tree=$WORK/tree ref=$WORK/ref
	rm -rf "$tree" "$ref"
	cp -a "$pristine" "$tree"
	cp -a "$pristine" "$ref"
	sync
	if [ "$r" -eq 0 ]; then
		# The uncounted round: the independent count, and the list of
		# changed files for the copy reference.
		run_json "$tree" > "$WORK/run.json" 2> "$WORK/run.err" || true
		python3 "$here/batch-count.py" "$tree" / "$WORK/run.json" "$WORK/changed0" \
			|| bench_die "the run disagrees with the independent count"
		echo "the changed names hold $(cd "$pristine" && xargs -0 -r du -cb < "$WORK/changed0" | tail -1 | cut -f1) bytes"
		second=$("$ELFPMD" -r -j "$JOBS" ${OPTS[@]+"${OPTS[@]}"} "$tree" 2>&1 | tail -1)
		echo "second run: $second"
		case $second in
		*": 0 changed, "*", 0 failed") ;;
		*) bench_die "the second run changed something or failed" ;;
		esac
		continue
	fi
	if [ $((r % 2)) -eq 1 ]; then
		settle; te=$(t run_elfpmd "$tree")
		settle; tf=$(t read_all "$ref")
		settle; tc=$(t copy_changed "$ref" "$WORK/copies" "$WORK/changed0")
	else
		settle; tf=$(t read_all "$ref")
		settle; tc=$(t copy_changed "$ref" "$WORK/copies" "$WORK/changed0")
		settle; te=$(t run_elfpmd "$tree")
	fi
	ratio=$(echo "$te / ($tf + $tc)" | bc -l)
	ratios+=("$ratio") tes+=("$te") tfs+=("$tf") tcs+=("$tc")
	printf 'round %d: elfpmd -r -j%s %s %.2f s, find+cat %.2f s, cp changed %.2f s: ratio %.3f\n' \
		"$r" "$JOBS" "${OPTS[*]:-}" "$te" "$tf" "$tc" "$ratio"
done
median () { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "median of the per-round ratios %.3f (min %.3f, max %.3f) over %d rounds\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
me=$(median "${tes[@]}") mf=$(median "${tfs[@]}") mc=$(median "${tcs[@]}")
printf 'medians: elfpmd %.2f s, find+cat %.2f s, cp changed %.2f s: ratio of the medians %.3f\n' \
	"$me" "$mf" "$mc" "$(echo "$me / ($mf + $mc)" | bc -l)"
