#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# startup.sh -- what does elfpmd's --madvise stub cost at startup?
#
# Copies a large program (default: gcc's cc1plus, from
# `gcc -print-prog-name=cc1plus`), rewrites a second copy with
# `elfpmd --madvise`, and times trivial invocations of both that exit at
# once, with a small C helper (posix_spawn + wait4 around each run,
# CLOCK_MONOTONIC; stdin, stdout and stderr /dev/null):
#   warm  WARM runs of each, in batches of BATCH runs of one program, the
#         batches alternating ABBA; each batch starts with one untimed run,
#         so that a batch is warm even if someone dropped the caches since
#         the last one;
#   cold  COLD runs of each, alternating ABBA, each right after
#         sync; drop_caches (untimed);
#   first PRIME first starts of a fresh copy of each, alternating ABBA:
#         the rewrite copied (cp) and then primed (`elfpmd prime`), as after
#         a package's installation with elfpmd's prime hook; the original
#         copied and written back (sync FILE, as prime does), as after a
#         package's installation without elfpmd; copy and prime untimed.
#         Each first start is followed at once, under the same lock, by
#         SAME more timed starts of that same fresh copy: warm starts after
#         the same cp + prime (or cp + sync).  Three ratios of the primed
#         rewrite's first start: against those next starts of the same copy
#         (the goal: within 5%; the reference is the same copy's because
#         a copy just written lives on new physical pages, and even the
#         original's first start after cp is slower than its warm batches
#         with as many faults and no major fault), against the rewrite's
#         warm batches (the old reference, printed for comparison), and
#         against the original's first start after cp (what elfpmd adds to
#         a first start); and the original's first start after cp against
#         its own next starts.  The coverage is measured on such a first
#         start too.
# It prints the median, mean, minimum and maximum time per run, the median
# minor and major page faults per run (wait4's rusage), and the ratios
# rewritten / original (> 1: the stub makes the start slower) of the
# medians and of the means.  Acceptance: a warm start at most 5% slower.
# A cold start of the rewrite reads each chunk the program reaches as one
# 2 MiB folio, where the original reads its device's read-ahead around each
# fault, and reads again, as 2 MiB folios, the chunks that ld.so's own
# read-ahead cached in small folios before the stub ran.
#
# Coverage: one more run of each, cold and then warm, with a preloaded
# library (LD_PRELOAD, built here) whose destructor reads FilePmdMapped of
# the program's own executable VMAs from /proc/self/smaps, next to the ideal (whole
# 2 MiB chunks of its executable VMAs congruent with their file offset) and
# to the chunks the program reached (a page of them mapped: the stub leaves
# an uncached chunk to the program's own fault, so a chunk the program
# never runs stays unmapped); dynamically linked programs that end through
# exit() only.
#
# -R KB sets read_ahead_kb of the work directory's block device for the
# run (restored at the end): the stub guards the file's other mappings
# within twice that of the text's ends, where their faults would read
# ahead into the text, and leaves every uncached chunk to the program;
# the larger it is, the more of the text ld.so's read-ahead caches in
# small folios before the stub runs (Linux's default is 128; some virtual
# disks have 4096 or 8192).
#
# The invocations: for the default cc1plus, `--version` and an empty
# translation unit (`-quiet -o /dev/null`, the source read from stdin
# /dev/null); for a BINARY given, its ARGs, or `--version` when none.  By
# default (no BINARY) a second program is measured too: a PIE with 256 MiB
# of text (the shape of bench/seed000.sh) whose main returns at once: the
# worst case for the stub: cold, it reads every chunk; warm, it samples
# eight (127 chunks are more than --populate-max).
#
# The caches are dropped once after the copies are written, so that each
# copy's page cache holds what its own runs put there, not the folios that
# writing it left.  Every timed batch, every cold run with its cache drop,
# and every first start with its cp, prime and next starts, holds the lock
# (flock(1) on /tmp/elfpmd-bench.lock, or
# $ELFPMD_BENCH_LOCK), one at a time, so that other benchmarks taking the
# same lock never time anything at the same moment.
#
# Usage: bench/startup.sh [-n WARM] [-b BATCH] [-c COLD] [-r PRIME] [-s SAME]
#                         [-p | -P] [-R KB] [-d WORKDIR] [-k] [BINARY [ARG...]]
#   -n WARM      warm runs of each program per invocation (default 200)
#   -b BATCH     warm runs per batch (default 10; WARM is rounded up to
#                an even number of batches)
#   -c COLD      cold runs of each (default 10)
#   -r PRIME     first starts after cp + prime (default 10; 0: none)
#   -s SAME      timed starts of the same fresh copy after each first start
#                (default 3, at least 1)
#   -p           also measure the 256 MiB-text PIE (default without BINARY)
#   -P           do not measure the 256 MiB-text PIE
#   -R KB        read_ahead_kb of the work directory's device during the run
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp;
#                its file system must give file-backed huge pages: ext4 on
#                Linux 6.16+, xfs 5.18+)
#   -k           keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
# A BINARY that finds its libraries through $ORIGIN needs them beside the
# copy; use -d to put the copies in the right place.
# Needs root (drop_caches), cc, THP not [never].  About half a minute.

set -eu
export LC_ALL=C

WARM=200
BATCH=10
COLD=10
PRIME=10
SAME=3
RA_KB=
BIGPIE=
WORK=
KEEP=0
while getopts 'n:b:c:r:s:pPR:d:kh' opt; do
	case $opt in
	n) WARM=$OPTARG ;;
	b) BATCH=$OPTARG ;;
	c) COLD=$OPTARG ;;
	r) PRIME=$OPTARG ;;
	s) SAME=$OPTARG ;;
	p) BIGPIE=1 ;;
	P) BIGPIE=0 ;;
	R) RA_KB=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
die() { echo "startup.sh: $*" >&2; exit 1; }
for v in "$WARM" "$BATCH" "$COLD" "$PRIME" "$SAME"; do
	case $v in '' | *[!0-9]*) die "-n, -b, -c, -r and -s want numbers" ;; esac
done
[ "$WARM" -ge 1 ] && [ "$BATCH" -ge 1 ] && [ "$COLD" -ge 1 ] && [ "$SAME" -ge 1 ] ||
	die "-n, -b, -c and -s want at least 1"
BATCHES=$(((WARM + BATCH - 1) / BATCH))
BATCHES=$((BATCHES + BATCHES % 2))

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
bench_find_elfpmd
if [ $# -gt 0 ]; then
	SOURCE=$1
	shift
	[ -f "$SOURCE" ] && [ -x "$SOURCE" ] || die "$SOURCE: not an executable file"
	if [ $# -gt 0 ]; then INVOCATIONS=("$*"); else INVOCATIONS=("--version"); fi
	: "${BIGPIE:=0}"
else
	command -v gcc >/dev/null || die "gcc is needed to find cc1plus (or name a BINARY)"
	SOURCE=$(gcc -print-prog-name=cc1plus)
	[ -x "$SOURCE" ] || die "gcc has no cc1plus (g++ not installed?): name a BINARY"
	INVOCATIONS=("--version" "-quiet -o /dev/null")
	: "${BIGPIE:=1}"
fi
SOURCE=$(readlink -f "$SOURCE")
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
command -v cc >/dev/null || die "cc is needed"
command -v flock >/dev/null || die "flock (util-linux) is needed"
bench_require_root_thp

bench_workdir startup
started=$SECONDS

# The work directory's device's read_ahead_kb: reported, and set with -R
# (restored when the script ends).
RA_FILE=
dev=$(stat -c '%Hd:%Ld' "$WORK")
for f in "/sys/dev/block/$dev/queue/read_ahead_kb" "/sys/dev/block/$dev/../queue/read_ahead_kb"; do
	if [ -z "$RA_FILE" ] && [ -w "$f" ]; then RA_FILE=$f; fi
done
RA_WAS=$( [ -n "$RA_FILE" ] && cat "$RA_FILE")
if [ -n "$RA_KB" ]; then
	case $RA_KB in '' | *[!0-9]*) die "-R wants a number of KiB" ;; esac
	[ -n "$RA_FILE" ] || die "-R: no read_ahead_kb for the device $dev of $WORK"
	trap 'echo "$RA_WAS" >"$RA_FILE"; if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
	echo "$RA_KB" >"$RA_FILE" || die "-R: cannot write $RA_FILE"
fi
echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'))"
echo "kernel:   $(uname -r), $(nproc) CPUs, THP $(cat "$thp"), lock $LOCK"
echo "device:   $dev, read_ahead_kb ${RA_FILE:+$(cat "$RA_FILE")}${RA_KB:+ (-R; was $RA_WAS)}"

# ------------------------------------------------------------------ helpers
cd "$WORK"
cat >pmdreport.c <<'EOF'
/* pmdreport.so, preloaded: when the program ends through exit(), append
   "PMD_KB IDEAL_KB REACHED_KB" to the file $PMDREPORT: FilePmdMapped summed
   over the executable VMAs of the program's own file in /proc/self/smaps;
   the whole
   2 MiB chunks of its executable VMAs whose address is congruent with their
   file offset (the most the kernel can map with PMD pages); and those of
   them the program reached (at least one page mapped, from
   /proc/self/pagemap), in kB.  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMD (2ul << 20)

/* Whether any page of the chunk at ADDR is mapped (pagemap bit 63).  */
static int
reached (int pagemap, unsigned long addr)
{
  static uint64_t e[PMD / 4096];
  size_t want = sizeof e;
  if (pread (pagemap, e, want, (off_t) (addr / 4096 * 8)) != (ssize_t) want)
    return 0;
  for (size_t k = 0; k < PMD / 4096; k++)
    if (e[k] >> 63)
      return 1;
  return 0;
}

__attribute__ ((destructor)) static void
pmdreport (void)
{
  const char *out = getenv ("PMDREPORT");
  char exe[4096], line[8192];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (out == NULL || n < 0)
    return;
  exe[n] = '\0';
  FILE *f = fopen ("/proc/self/smaps", "r");
  int pagemap = open ("/proc/self/pagemap", O_RDONLY);
  if (f == NULL)
    return;
  int ours = 0;
  long pmd_kb = 0, ideal = 0, hit = 0, kb;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi, off;
      char perms[8];
      int path = 0;
      if (sscanf (line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perms, &off, &path) == 4
	  && path > 0)
	{
	  line[strcspn (line, "\n")] = '\0';
	  /* Text only: the stub's guard (stub/guard.c) can give the
	     read-only data PMD mappings too.  */
	  ours = strcmp (line + path, exe) == 0 && perms[2] == 'x';
	  if (ours && (lo - off) % PMD == 0)
	    for (unsigned long c = (lo + PMD - 1) / PMD * PMD; c + PMD <= hi; c += PMD)
	      {
		ideal++;
		hit += pagemap >= 0 && reached (pagemap, c);
	      }
	}
      else if (ours && sscanf (line, "FilePmdMapped: %ld kB", &kb) == 1)
	pmd_kb += kb;
    }
  fclose (f);
  if (pagemap >= 0)
    close (pagemap);
  FILE *o = fopen (out, "a");
  if (o != NULL)
    {
      fprintf (o, "%ld %ld %ld\n", pmd_kb, ideal * (long) (PMD >> 10), hit * (long) (PMD >> 10));
      fclose (o);
    }
}
EOF
cc -O2 -Wall -o runtimer "$HERE/runtimer.c"
cc -O2 -shared -fPIC -o pmdreport.so pmdreport.c

# ------------------------------------------------------------------ programs
# prepare NAME SOURCE: NAME/original, a copy of SOURCE, and NAME/rewritten,
# elfpmd --madvise's rewrite of it; print elfpmd's view of the stub.
prepare() {
	local name=$1 json chunks
	mkdir "$name"
	cp "$2" "$name/original"
	json=$("$ELFPMD" -n --json --madvise "$name/original")
	case $json in
	*'"status":"would change"'*'"stub":{"injected":true'*) ;;
	*) echo "elfpmd -n --madvise would not inject its stub into $2; its report:" >&2
		"$ELFPMD" -n --madvise "$name/original" >&2 || true
		exit 1 ;;
	esac
	chunks=$(echo "$json" | sed -n 's/.*"stub":{[^}]*"chunks":\([0-9]*\).*/\1/p')
	"$ELFPMD" -q --madvise -o "$name/rewritten" "$name/original"
	printf '%s: %s, %d MiB; the stub works on %d chunks of 2 MiB (%d MiB), %s\n' "$name" "$2" \
		$(($(stat -c %s "$2") >> 20)) "$chunks" $((chunks * 2)) \
		"$(echo "$json" | sed -n 's/.*"aslr_bits_lost":\([0-9]*\).*/ASLR bits lost: \1/p')"
}

PROGRAMS=()
prepare main "$SOURCE"
PROGRAMS+=("main")
if [ "$BIGPIE" = 1 ]; then
	cat >big.S <<'EOF'
	.section .text.big, "ax", @progbits
	.p2align 12
big_text:
	.fill	256 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
	echo 'int main (void) { return 0; }' >bigmain.c
	cc -O2 -fPIE -pie -Wl,-z,noexecstack -o bigpie.elf bigmain.c big.S
	prepare bigpie "$WORK/bigpie.elf"
	rm -f bigpie.elf big.S bigmain.c
	PROGRAMS+=("bigpie")
fi

# ------------------------------------------------------------------ runs
# locked COMMAND...: run COMMAND under the lock (one measurement).
locked() {
	{
		flock -w 3600 9 || die "could not take the lock $LOCK in an hour"
		"$@" 9>&-
	} 9>>"$LOCK"
}
locked sh -c 'sync; echo 3 >/proc/sys/vm/drop_caches'

# stats FILE: "median mean min max" of the first column (ms), and the
# median of the second and third (page faults).
stats() {
	local med
	med=$(sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	awk -v med="$med" '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 } END {
		printf "%.3f %.3f %.3f %.3f", med * 1000, s / NR * 1000, lo * 1000, hi * 1000 }' "$1"
	for c in 2 3; do
		printf ' %s' "$(awk -v c="$c" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
	done
}

# coverage STATE PROGRAM INVOCATION: one untimed run of each binary under
# the lock, after a cache drop when STATE is cold, with pmdreport.so
# preloaded; print "PMD of IDEAL MiB" of each.
coverage() {
	local state=$1 dir=$2 inv=$3 b line=""
	for b in original rewritten; do
		rm -f "pmd.$b"
		# shellcheck disable=SC2086,SC2016 # INVOCATION is words; $1.. are sh's
		locked sh -c 'if [ "$1" = cold ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
			preload=$2 report=$3; shift 3
			LD_PRELOAD=$preload PMDREPORT=$report exec "$@"' _ "$state" \
			"$WORK/pmdreport.so" "$WORK/pmd.$b" "$WORK/$dir/$b" $inv \
			</dev/null >/dev/null 2>&1 || true
		if [ -s "pmd.$b" ]; then
			line+=$(awk -v b="$b" '{ printf "  %s %d of %d MiB (%d reached)", b, $1 / 1024, $2 / 1024, $3 / 1024 }' "pmd.$b")
		else
			line+="  $b: no report (static, or did not end through exit())"
		fi
	done
	echo "  coverage, $state:$line"
}

# fresh_start DIR B [-p REPORT | -s NEXT] INVOCATION...: copy DIR/B to
# DIR/fresh-B (a new file, as a package manager writes it), elfpmd prime it
# (B rewritten) or write it back (B original), and start it: with -s NEXT
# 1 + SAME times, timed, back to back: the first start's runtimer line on
# standard output, the SAME next starts' lines (warm after the same cp +
# prime) appended to NEXT; with -p REPORT once, untimed, with pmdreport.so
# preloaded, its coverage appended to REPORT.
fresh_start() {
	local dir=$1 b=$2 report='' next=''
	shift 2
	case ${1:-} in
	-p) report=$2; shift 2 ;;
	-s) next=$2; shift 2 ;;
	esac
	rm -f "$dir/fresh-$b"
	cp "$dir/$b" "$dir/fresh-$b"
	if [ "$b" = rewritten ]; then
		"$ELFPMD" prime -q "$dir/fresh-$b" || return 1
	else
		sync "$dir/fresh-$b"
	fi
	if [ -n "$report" ]; then
		LD_PRELOAD=$WORK/pmdreport.so PMDREPORT=$report "$dir/fresh-$b" "$@" </dev/null >/dev/null 2>&1 || true
	else
		./runtimer -n $((1 + SAME)) "$dir/fresh-$b" "$@" >"$WORK/fresh.times" || return 1
		head -n 1 "$WORK/fresh.times"
		tail -n +2 "$WORK/fresh.times" >>"$next"
	fi
}

# Each invocation of each program: warm batches ABBA, cold runs ABBA,
# first starts after prime (each followed by SAME starts of the same copy),
# coverage; results per invocation.
declare -a SUMMARY=()
ACCEPT=
PRIME_ACCEPT=
FIRST_RATIOS=
NEXT_ACCEPT=
NEXT_MEANS=
ORIG_NEXT=
for prog in "${PROGRAMS[@]}"; do
	if [ "$prog" = bigpie ]; then invs=(""); else invs=("${INVOCATIONS[@]}"); fi
	for inv in "${invs[@]}"; do
		label="$prog${inv:+ $inv}"
		[ "$prog" = main ] && label="$(basename "$SOURCE")${inv:+ $inv}"
		echo
		echo "== $label"
		rm -f warm.* cold.* prime.* next.*
		for ((k = 0; k < BATCHES; k++)); do
			if [ $((k % 2)) = 0 ]; then order="original rewritten"; else order="rewritten original"; fi
			for b in $order; do
				# shellcheck disable=SC2086 # INVOCATION is words
				locked ./runtimer -w 1 -n "$BATCH" "$WORK/$prog/$b" $inv >>"warm.$b" ||
					die "$prog/$b $inv failed"
			done
		done
		for ((k = 0; k < COLD; k++)); do
			if [ $((k % 2)) = 0 ]; then order="original rewritten"; else order="rewritten original"; fi
			for b in $order; do
				# shellcheck disable=SC2086 # INVOCATION is words
				locked ./runtimer -d -n 1 "$WORK/$prog/$b" $inv >>"cold.$b" ||
					die "$prog/$b $inv failed"
			done
		done
		for ((k = 0; k < PRIME; k++)); do
			if [ $((k % 2)) = 0 ]; then order="original rewritten"; else order="rewritten original"; fi
			for b in $order; do
				# shellcheck disable=SC2086 # INVOCATION is words
				locked fresh_start "$WORK/$prog" "$b" -s "$WORK/next.$b" $inv >>"prime.$b" ||
					die "$prog: cp + start of $b failed"
			done
		done
		for state in warm cold; do
			read -r mo ao lo ho fo jo <<<"$(stats "$state.original")"
			read -r mr ar lr hr fr jr <<<"$(stats "$state.rewritten")"
			printf '  %-4s %4d runs each   median    mean     min     max (ms)  faults minor/major (median)\n' \
				"$state" "$(wc -l <"$state.original")"
			printf '    original  %12.3f %7.3f %7.3f %7.3f   %6d/%d\n' "$mo" "$ao" "$lo" "$ho" "$fo" "$jo"
			printf '    rewritten %12.3f %7.3f %7.3f %7.3f   %6d/%d\n' "$mr" "$ar" "$lr" "$hr" "$fr" "$jr"
			ratio=$(awk -v a="$mr" -v b="$mo" -v c="$ar" -v d="$ao" 'BEGIN { printf "%.3f %.3f", a / b, c / d }')
			printf '    rewritten/original: %s of medians, %s of means\n' "${ratio% *}" "${ratio#* }"
			SUMMARY+=("$(printf '%-40s %-4s rewritten/original %s (medians), %s (means)' \
				"$label" "$state" "${ratio% *}" "${ratio#* }")")
			if [ "$state" = warm ] && [ "$prog" = main ]; then
				ACCEPT+="${ratio% *} "
			fi
		done
		if [ "$PRIME" -gt 0 ]; then
			read -r mw aw lw hw fw jw <<<"$(stats warm.rewritten)"
			read -r mo ao lo ho fo jo <<<"$(stats prime.original)"
			read -r mp ap lp hp fp jp <<<"$(stats prime.rewritten)"
			read -r mno ano lno hno fno jno <<<"$(stats next.original)"
			read -r mnr anr lnr hnr fnr jnr <<<"$(stats next.rewritten)"
			# row LABEL MEDIAN MEAN MIN MAX MINFLT MAJFLT: one line of the table.
			row() { printf '    %-40s %9.3f %7.3f %7.3f %7.3f   %6d/%d\n' "$@"; }
			printf '  %-42s %9s %7s %7s %7s (ms)  faults minor/major (median)\n' \
				"first $(wc -l <prime.rewritten) fresh copies of each, $SAME next starts" median mean min max
			row "original, first start after cp + sync" "$mo" "$ao" "$lo" "$ho" "$fo" "$jo"
			row "original, next starts of the same copy" "$mno" "$ano" "$lno" "$hno" "$fno" "$jno"
			row "rewritten, first start after cp + prime" "$mp" "$ap" "$lp" "$hp" "$fp" "$jp"
			row "rewritten, next starts of the same copy" "$mnr" "$anr" "$lnr" "$hnr" "$fnr" "$jnr"
			row "rewritten, warm batches" "$mw" "$aw" "$lw" "$hw" "$fw" "$jw"
			# ratio A B C D: "A/B C/D" (of medians, of means)
			ratio() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "%.3f %.3f", a / b, c / d }'; }
			next_=$(ratio "$mp" "$mnr" "$ap" "$anr")
			warm_=$(ratio "$mp" "$mw" "$ap" "$aw")
			first=$(ratio "$mp" "$mo" "$ap" "$ao")
			orig_=$(ratio "$mo" "$mno" "$ao" "$ano")
			printf '    primed first start / next starts of the same copy: %s of medians, %s of means (the goal)\n' \
				"${next_% *}" "${next_#* }"
			printf '    primed first start / warm batches: %s, %s; / original first start after cp: %s, %s\n' \
				"${warm_% *}" "${warm_#* }" "${first% *}" "${first#* }"
			printf '    original first start after cp / next starts of the same copy: %s, %s\n' \
				"${orig_% *}" "${orig_#* }"
			SUMMARY+=("$(printf '%-40s %-4s primed first start/next starts of the same copy %s (medians), %s (means); /warm batches %s, %s; /original first start %s, %s' \
				"$label" first "${next_% *}" "${next_#* }" "${warm_% *}" "${warm_#* }" "${first% *}" "${first#* }")")
			NEXT_ACCEPT+="${next_% *} "
			NEXT_MEANS+="${next_#* } "
			PRIME_ACCEPT+="${warm_% *} "
			FIRST_RATIOS+="${first% *} "
			ORIG_NEXT+="${orig_% *} "
		fi
		coverage cold "$prog" "$inv"
		coverage warm "$prog" "$inv"
		if [ "$PRIME" -gt 0 ]; then
			rm -f pmd.fresh
			# shellcheck disable=SC2086 # INVOCATION is words
			locked fresh_start "$WORK/$prog" rewritten -p "$WORK/pmd.fresh" $inv || die "$prog: cp + prime + start failed"
			if [ -s pmd.fresh ]; then
				awk '{ printf "  coverage, first start after cp + prime: rewritten %d of %d MiB (%d reached)\n", $1 / 1024, $2 / 1024, $3 / 1024 }' pmd.fresh
			else
				echo "  coverage, first start after cp + prime: no report (static, or did not end through exit())"
			fi
		fi
	done
done

echo
echo "summary (> 1: the rewrite starts slower):"
printf '  %s\n' "${SUMMARY[@]}"
echo "$ACCEPT" | awk -v prog="$(basename "$SOURCE")" '{ w = $1; for (i = 2; i <= NF; i++) if ($i > w) w = $i
	printf "acceptance: warm start of %s at most 5%% slower: worst median ratio %.3f: %s\n",
		prog, w, (w <= 1.05 ? "PASS" : "FAIL") }'
if [ -n "$PRIME_ACCEPT" ]; then
	# worst WORDS: the largest of the numbers WORDS.
	worst() { echo "$1" | awk '{ w = $1; for (i = 2; i <= NF; i++) if ($i > w) w = $i; printf "%.3f", w }'; }
	w=$(worst "$NEXT_ACCEPT")
	printf 'goal: first start after cp + prime within 5%% of a warm start of the same copy (its next starts): worst median ratio %s (of means %s): %s\n' \
		"$w" "$(worst "$NEXT_MEANS")" "$(awk -v w="$w" 'BEGIN { print (w <= 1.05 ? "PASS" : "FAIL") }')"
	printf '  against the warm batches of the rewrite (the old reference) instead: worst median ratio %s; the original first start after cp against its own next starts: %s\n' \
		"$(worst "$PRIME_ACCEPT")" "$(echo "$ORIG_NEXT" | awk '{ lo = hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
			printf (lo == hi ? "%.3f" : "%.3f-%.3f"), lo, hi }')"
	echo "$FIRST_RATIOS" | awk '{ w = $1; for (i = 2; i <= NF; i++) if ($i > w) w = $i
		printf "first start after cp + prime against the original first start after cp: worst median ratio %.3f\n", w }'
fi
echo "runtime of this script: $((SECONDS - started)) s"
