#!/bin/bash
# rewrite-io.sh -- what does rewriting a big binary in place cost a user,
# next to copying it?
#
# Builds two PIEs whose read-only executable PT_LOAD elfpmd will change
# (SIZE_MIB MiB of random data linked into .text): one that only needs its
# p_align raised ("align"), and one linked with lld whose text must be moved
# by inserting a hole ("padded").  For each, after one uncounted warm-up
# round, ROUNDS rounds of four timed steps:
#
#   elfpmd FILE                   the rewrite in place, as a user runs it
#                                 (default: fsync the new file, rename,
#                                 fsync the directory)
#   cp IN OUT && sync OUT         its reference (GNU sync FILE fsyncs that
#                                 one file)
#   elfpmd --no-sync FILE         the rewrite in place without fsync
#   cp IN OUT                     its reference
#
# Each timed step is the whole command, started from this shell, after an
# untimed global `sync`, so no step pays for the dirty pages of another.
# FILE is a fresh `cp IN FILE` made before that sync, so like a binary
# that was linked a while ago it is clean in the page cache, and the rewrite
# replaces it: the end of `elfpmd FILE` frees the old file (its page cache,
# and its blocks, which ext4 without a journal mounted -o discard discards
# there and then, waiting for the disk), which `cp IN OUT` does not.  The
# time `rm` takes for a synced copy of IN, measured after each
# `cp IN OUT && sync OUT`, shows that share.  Each pair runs in ABBA order
# (odd rounds elfpmd first), and the script prints the median of each step
# and, per pair, the ratio of the medians and the median (min .. max) of the
# per-round ratios.
#
# Usage: bench/rewrite-io.sh [-n ROUNDS] [-s SIZE_MIB] [-d WORKDIR] [-a|-p] [-k]
#   -n ROUNDS    counted rounds per input (default 5; odd, so that the
#                median is one round)
#   -s SIZE_MIB  size of the random text (default 256, under a minute in
#                all; -s 1024 for the 1 GiB case, a few minutes)
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp); it
#                must have room for the input and three copies (4 x SIZE)
#   -a, -p       only the align input, only the padded one (default both;
#                the padded one needs clang and lld, else it is skipped)
#   -k           keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
# Not a test: it writes several GiB.

set -eu
export LC_ALL=C

ROUNDS=5
SIZE_MIB=256
WORK=
KEEP=0
KINDS="align padded"
while getopts 'n:s:d:apkh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	s) SIZE_MIB=$OPTARG ;;
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
for t in cc objcopy; do
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
	t0=$(now)
	"$@"
	t1=$(now)
	T[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') "
}
cp_sync() { cp "$IN" OUT && sync OUT; }
rewrite_sync() { cp "$IN" FILE; timed elfpmd "$ELFPMD" -q FILE; }
rewrite_nosync() { cp "$IN" FILE_NS; timed elfpmd_nosync "$ELFPMD" -q --no-sync FILE_NS; }
reference_sync() { timed cp_sync cp_sync; timed rm rm OUT; }
reference_nosync() { timed cp cp "$IN" OUT_NS; rm -f OUT_NS; }

median() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	printf "%s .. %s", v[1], v[NR] }'; }
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
		if [ $((r % 2)) = 1 ]; then
			rewrite_sync; reference_sync
			rewrite_nosync; reference_nosync
		else
			reference_sync; rewrite_sync
			reference_nosync; rewrite_nosync
		fi
		if [ "$r" = 0 ]; then
			cmp -s FILE FILE_NS || echo "  warning: elfpmd and elfpmd --no-sync wrote different files"
			"$ELFPMD" -n FILE | grep -q 'already aligned' || echo "  warning: FILE is not aligned"
			printf '  size: input %d B (%d B allocated), rewritten %d B (%d B allocated)\n' \
				"$(stat -c %s "$IN")" "$(( $(stat -c '%b * %B' "$IN") ))" \
				"$(stat -c %s FILE)" "$(( $(stat -c '%b * %B' FILE) ))"
		fi
		rm -f FILE FILE_NS
		printf '  round %d%s: elfpmd %s  cp+sync %s  (rm %s)  elfpmd --no-sync %s  cp %s\n' \
			"$r" "$([ "$r" = 0 ] && echo ' (warm-up)')" \
			"$(nth "${T[elfpmd]}" "$((r + 1))")" "$(nth "${T[cp_sync]}" "$((r + 1))")" \
			"$(nth "${T[rm]}" "$((r + 1))")" \
			"$(nth "${T[elfpmd_nosync]}" "$((r + 1))")" "$(nth "${T[cp]}" "$((r + 1))")"
	done
	for s in elfpmd cp_sync rm elfpmd_nosync cp; do # drop the warm-up round
		T[$s]=$(echo "${T[$s]}" | cut -d ' ' -f 2-)
	done
	rm -f "$IN"
	echo "  median of $ROUNDS rounds (seconds), min .. max:"
	printf '    %-26s %8s   %s\n' \
		"elfpmd FILE" "$(median "${T[elfpmd]}")" "$(range "${T[elfpmd]}")" \
		"cp IN OUT && sync OUT" "$(median "${T[cp_sync]}")" "$(range "${T[cp_sync]}")" \
		"  rm OUT (after a sync)" "$(median "${T[rm]}")" "$(range "${T[rm]}")" \
		"elfpmd --no-sync FILE" "$(median "${T[elfpmd_nosync]}")" "$(range "${T[elfpmd_nosync]}")" \
		"cp IN OUT" "$(median "${T[cp]}")" "$(range "${T[cp]}")"
	for pair in "elfpmd cp_sync" "elfpmd_nosync cp"; do
		set -- $pair
		rr=$(ratios "$1" "$2")
		awk -v k="$KIND" -v l="$([ "$1" = elfpmd ] && echo 'elfpmd / (cp && sync)' || echo 'elfpmd --no-sync / cp')" \
			-v a="$(median "${T[$1]}")" -v b="$(median "${T[$2]}")" \
			-v m="$(median "$rr")" -v r="$(range "$rr")" 'BEGIN {
			printf "ratio %-7s %-24s %.2f of medians; per round %.2f (%s)\n", k, l, a / b, m, r }'
	done
done
