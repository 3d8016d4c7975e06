#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# seed000.sh -- the benchmark of seed 000 (random calls across 256 MiB of
# `ret` stubs), with elfpmd --madvise's rewrite against the original PIE.
#
# Builds a PIE whose text is SIZE_MIB MiB of `ret` instructions (.fill 0xc3)
# and whose main times two phases with clock_gettime:
#   cold    a sequential sweep calling the ret at every 4 KiB of the text
#           (it faults the whole text in);
#   random  CALLS calls to rets at pseudo-random GRAN-granular offsets of the
#           text, read from a table of 2^20 offsets computed before the
#           timing (fixed-seed xorshift), so the generator costs nothing;
# then prints FilePmdMapped summed over the program's own VMAs in
# /proc/self/smaps, and the ideal: the whole 2 MiB chunks of its executable
# VMAs whose address is congruent with their file offset modulo 2 MiB.
# The original (p_align 4 KiB, load base only 4 KiB-aligned) cannot have its
# text PMD-mapped; a copy rewritten with `elfpmd --madvise` (p_align 2 MiB
# and the startup stub) should have all of it.
#
# After one uncounted warm-up pair it runs ROUNDS pairs, original and
# rewritten, alternating which goes first (odd rounds the original, even
# rounds the rewrite: ABBA), each run from a cold page cache (sync;
# drop_caches, untimed) and timed as a whole process too (bash's
# $EPOCHREALTIME around the run), so that the stub's own I/O counts.  It
# prints every run, the medians and the ratios original / rewritten (> 1:
# the rewrite is faster), of the medians and the median of the per-round
# ratios, and the coverage.  The acceptance figure is the random phase:
# at least 1.10 times faster with the rewrite.
#
# Every measured run, with its cache drop, holds the lock LOCK (flock(1) on
# /tmp/elfpmd-bench.lock, or $ELFPMD_BENCH_LOCK), one run at a time, so that
# other benchmarks on the machine that take the same lock never time
# anything at the same moment; work outside the lock (theirs or anything
# else running) still disturbs the figures: read the per-round lines.
#
# Usage: bench/seed000.sh [-n ROUNDS] [-c CALLS] [-g GRAN] [-s SIZE_MIB]
#                         [-d WORKDIR] [-a] [-k]
#   -n ROUNDS    counted pairs (default 5)
#   -c CALLS     calls in the random phase (default: calibrated so that the
#                original takes about 0.75 s warm; 0.5-1 s is the target)
#   -g GRAN      granularity of the random offsets in bytes, a power of two
#                from 64 to 4096 (default 4096: one ret per page; 64 also
#                spreads the calls over the cache lines of every page)
#   -s SIZE_MIB  text size in MiB (default 256)
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp;
#                the file system must give file-backed huge pages: ext4 on
#                Linux 6.16+, xfs 5.18+); needs room for 3-4 x SIZE_MIB
#   -a           add a reference column: a copy aligned by elfpmd without
#                --madvise, run after its page cache was filled with PMD
#                folios by a helper (untimed): what the alignment alone
#                gives when the cache is already right, no stub at all
#   -k           keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
# Needs root (drop_caches), cc, THP not [never].  Takes about half a minute
# with the defaults (more while another benchmark holds the lock).

set -eu
export LC_ALL=C

ROUNDS=5
CALLS=
GRAN=4096
SIZE_MIB=256
WORK=
KEEP=0
ALIGNED=0
while getopts 'n:c:g:s:d:akh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	c) CALLS=$OPTARG ;;
	g) GRAN=$OPTARG ;;
	s) SIZE_MIB=$OPTARG ;;
	d) WORK=$OPTARG ;;
	a) ALIGNED=1 ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || { echo "no arguments expected; -h for help" >&2; exit 64; }
die() { echo "seed000.sh: $*" >&2; exit 1; }
case $ROUNDS in '' | *[!0-9]*) die "-n wants a number" ;; esac
case $SIZE_MIB in '' | *[!0-9]*) die "-s wants a number of MiB" ;; esac
case $CALLS in *[!0-9]*) die "-c wants a number" ;; esac
case $GRAN in 64 | 128 | 256 | 512 | 1024 | 2048 | 4096) ;; *) die "-g wants a power of two from 64 to 4096" ;; esac
[ "$ROUNDS" -ge 1 ] || die "-n wants at least 1"
[ "$SIZE_MIB" -ge 8 ] && [ "$SIZE_MIB" -le 4096 ] || die "-s wants 8 to 4096 MiB"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
command -v cc >/dev/null || die "cc is needed"
command -v flock >/dev/null || die "flock (util-linux) is needed"
bench_require_root_thp

bench_workdir seed000
started=$SECONDS

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'))"
echo "kernel:   $(uname -r), $(nproc) CPUs, THP $(cat "$thp"), lock $LOCK"

# ------------------------------------------------------------------ programs
cd "$WORK"
cat >big.S <<'EOF'
/* BIG_SIZE bytes of `ret`: every byte is a function that returns.  */
	.section .text.big, "ax", @progbits
	.globl	big_text
	.hidden	big_text
	.p2align 12
big_text:
	.fill	BIG_SIZE, 1, 0xc3
	.globl	big_text_end
	.hidden	big_text_end
big_text_end:
	.section .note.GNU-stack, "", @progbits
EOF
cat >main.c <<'EOF'
/* seed000 [CALLS [GRAN]]: the two phases of the seed-000 benchmark over the
   ret stubs of big.S, timed with clock_gettime, then the program's
   FilePmdMapped and the ideal, one "name value" per line.  */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PMD ((uintptr_t) 2 << 20)
#define TABLE_SIZE ((size_t) 1 << 20)	/* offsets, reused cyclically */

extern const char big_text[], big_text_end[];
typedef void (*ret_stub) (void);

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* Print FilePmdMapped summed over the VMAs of this program's file, and the
   ideal: whole PMD chunks of its executable VMAs whose address is congruent
   with the file offset (only those can be PMD-mapped), in kB.  */
static void
report_pmd (void)
{
  char exe[4096], line[8192];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  FILE *f = fopen ("/proc/self/smaps", "r");
  if (n < 0 || f == NULL)
    {
      perror ("/proc/self");
      exit (1);
    }
  exe[n] = '\0';
  int ours = 0;
  long pmd_kb = 0, ideal = 0, kb;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi, off;
      char perms[8];
      int path = 0;
      if (sscanf (line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perms, &off, &path) == 4
	  && path > 0)
	{
	  line[strcspn (line, "\n")] = '\0';
	  ours = strcmp (line + path, exe) == 0;
	  long chunks = (long) (hi / PMD) - (long) ((lo + PMD - 1) / PMD);
	  if (ours && perms[2] == 'x' && (lo - off) % PMD == 0 && chunks > 0)
	    ideal += chunks;
	}
      else if (ours && sscanf (line, "FilePmdMapped: %ld kB", &kb) == 1)
	pmd_kb += kb;
    }
  fclose (f);
  printf ("pmd_kb %ld\nideal_kb %ld\n", pmd_kb, ideal * (long) (PMD >> 10));
}

int
main (int argc, char **argv)
{
  long calls = argc > 1 ? atol (argv[1]) : 1000000;
  uintptr_t gran = argc > 2 ? (uintptr_t) atol (argv[2]) : 4096;
  uintptr_t size = (uintptr_t) (big_text_end - big_text);
  uintptr_t slots = size / gran;
  uint32_t *table = malloc (TABLE_SIZE * sizeof *table);
  if (table == NULL || gran == 0 || slots == 0)
    return 1;
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < TABLE_SIZE; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      table[i] = (uint32_t) ((x % slots) * gran);
    }

  double t0 = now ();
  for (uintptr_t off = 0; off < size; off += 4096)
    ((ret_stub) (big_text + off)) ();
  double t1 = now ();
  for (long i = 0; i < calls; i++)
    ((ret_stub) (big_text + table[(size_t) i & (TABLE_SIZE - 1)])) ();
  double t2 = now ();

  printf ("cold %.6f\nrandom %.6f\n", t1 - t0, t2 - t1);
  report_pmd ();
  return 0;
}
EOF
cat >populate.c <<'EOF'
/* populate FILE: fill the page cache with FILE in PMD-sized folios where
   the kernel can: map the file read-only at a 2 MiB-aligned address,
   madvise(MADV_HUGEPAGE) and MADV_RANDOM (no readahead spilling into the
   next chunk), touch one byte per 2 MiB chunk, the last first.  Meant to run
   right after the caches were dropped.  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PMD ((size_t) 2 << 20)

int
main (int argc, char **argv)
{
  struct stat st;
  int fd = argc == 2 ? open (argv[1], O_RDONLY) : -1;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      perror (argc == 2 ? argv[1] : "usage: populate FILE");
      return 1;
    }
  size_t len = (size_t) st.st_size / PMD * PMD;
  char *area = mmap (NULL, len + PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    return 1;
  char *at = (char *) (((uintptr_t) area + PMD - 1) & ~(PMD - 1));
  char *map = mmap (at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (map == MAP_FAILED)
    {
      perror ("mmap");
      return 1;
    }
  madvise (map, len, MADV_HUGEPAGE);
  madvise (map, len, MADV_RANDOM);
  for (size_t off = len; off > 0; off -= PMD)
    (void) *(volatile const char *) (map + off - PMD);
  return 0;
}
EOF
echo "building a PIE with $SIZE_MIB MiB of ret stubs..."
cc -c -DBIG_SIZE="($SIZE_MIB << 20)" -o big.o big.S
cc -O2 -fPIE -pie -Wl,-z,noexecstack -o original main.c big.o
rm -f big.o
[ "$ALIGNED" = 1 ] && cc -O2 -o populate populate.c

json=$("$ELFPMD" -n --json --madvise original)
case $json in
*'"status":"would change"'*'"stub":{"injected":true'*) ;;
*) echo "elfpmd -n --madvise would not inject its stub into the PIE; its report:" >&2
	"$ELFPMD" -n --madvise original >&2 || true
	exit 1 ;;
esac
chunks=$(echo "$json" | sed -n 's/.*"stub":{[^}]*"chunks":\([0-9]*\).*/\1/p')
aslr=$(echo "$json" | sed -n 's/.*"aslr_bits_lost":\([0-9]*\).*/\1/p')
echo "elfpmd -n --madvise: stub on $chunks chunks of 2 MiB ($((chunks * 2)) MiB); ASLR bits lost: $aslr"
cp original rewritten
"$ELFPMD" -q --madvise rewritten
RUNS="original rewritten"
if [ "$ALIGNED" = 1 ]; then
	cp original aligned
	"$ELFPMD" -q aligned
	RUNS="$RUNS aligned"
fi
for b in $RUNS; do
	"$ELFPMD" -n "$b" | grep -q 'already aligned' || [ "$b" = original ] ||
		die "$b: elfpmd does not see it as aligned"
done

# ------------------------------------------------------------------ runs
# run_locked NAME ARGS...: under the lock, drop the caches (for "aligned",
# then fill its cache with PMD folios), run ./NAME ARGS... with its output
# in out.NAME, and leave the whole run's wall time in $WALL.
run_locked() {
	local name=$1 t0 t1
	shift
	{
		flock -w 3600 9 || die "could not take the lock $LOCK in an hour"
		sync
		echo 3 >/proc/sys/vm/drop_caches
		if [ "$name" = aligned ]; then ./populate aligned; fi
		t0=$EPOCHREALTIME
		"./$name" "$@" >"out.$name" 9>&-
		t1=$EPOCHREALTIME
	} 9>>"$LOCK"
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
}
field() { awk -v k="$1" '$1 == k { print $2 }' "out.$2"; }

if [ -z "$CALLS" ]; then
	# Calibrate on the original, warm (the cold phase faults it in; only
	# the random phase counts): 1M calls, scaled to 0.75 s.
	{
		flock -w 3600 9 || die "could not take the lock $LOCK in an hour"
		./original 1000000 "$GRAN" >out.original 9>&-
	} 9>>"$LOCK"
	CALLS=$(awk -v t="$(field random original)" 'BEGIN {
		c = 1e6 * 0.75 / t; c = int(c / 1e5 + 0.5) * 1e5
		if (c < 1e5) c = 1e5; if (c > 5e8) c = 5e8; printf "%d", c }')
	echo "random phase: $CALLS calls (calibrated: 1M calls took $(field random original) s in the original)"
else
	echo "random phase: $CALLS calls"
fi
echo "granularity of the random offsets: $GRAN bytes; every run from a cold cache"
echo

declare -A V		# V[name.quantity] = values of the counted rounds
declare -A M		# M[name] = a median
declare -A R		# R[quantity] = per-round ratios original / rewritten
order() { # ROUND: the binaries in the order round ROUND runs them
	if [ $(($1 % 2)) = 1 ] || [ "$1" = 0 ]; then
		echo "$RUNS"
	else
		echo "$RUNS" | awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "\n") }'
	fi
}
for ((r = 0; r <= ROUNDS; r++)); do
	line="round $r"
	[ "$r" = 0 ] && line="warm-up"
	declare -A cur=()
	for b in $(order "$r"); do
		run_locked "$b" "$CALLS" "$GRAN"
		cur[$b.total]=$WALL
		cur[$b.cold]=$(field cold "$b")
		cur[$b.random]=$(field random "$b")
		cur[$b.pmd]=$(field pmd_kb "$b")
		cur[$b.ideal]=$(field ideal_kb "$b")
		line+=$(printf '  %s: total %.3f cold %.3f random %.3f pmd %d/%d MiB' "$b" \
			"${cur[$b.total]}" "${cur[$b.cold]}" "${cur[$b.random]}" \
			$((cur[$b.pmd] / 1024)) $((cur[$b.ideal] / 1024)))
	done
	echo "$line"
	[ "$r" = 0 ] && continue
	for q in total cold random pmd ideal; do
		for b in $RUNS; do
			V[$b.$q]+="${cur[$b.$q]} "
		done
	done
	for q in total cold random; do
		R[$q]+="$(awk -v a="${cur[original.$q]}" -v b="${cur[rewritten.$q]}" 'BEGIN { printf "%.4f", a / b }') "
	done
done

# ------------------------------------------------------------------ summary
median() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f..%.2f", v[1], v[NR] }'; }
echo
printf 'median of %d rounds, seconds   %10s %10s' "$ROUNDS" original rewritten
[ "$ALIGNED" = 1 ] && printf ' %10s' "aligned*"
printf '   original/rewritten: of medians, median of rounds (min..max)\n'
for q in total cold random; do
	case $q in
	total) label="whole process" ;;
	cold) label="cold sweep phase" ;;
	random) label="random phase" ;;
	esac
	printf '  %-29s' "$label"
	for b in $RUNS; do
		M[$b]=$(median "${V[$b.$q]}")
		printf ' %10.4f' "${M[$b]}"
	done
	printf '   %.3f  %.3f (%s)\n' "$(awk -v a="${M[original]}" -v b="${M[rewritten]}" 'BEGIN { print a / b }')" \
		"$(median "${R[$q]}")" "$(range "${R[$q]}")"
	if [ "$q" = random ]; then
		RANDOM_RATIO=$(awk -v a="${M[original]}" -v b="${M[rewritten]}" 'BEGIN { printf "%.3f", a / b }')
		RANDOM_ROUNDS=$(median "${R[$q]}")
		if [ "$ALIGNED" = 1 ]; then
			ALIGNED_RATIO=$(awk -v a="${M[original]}" -v b="${M[aligned]}" 'BEGIN { printf "%.3f", a / b }')
		fi
	fi
done
echo "  (the rewrite's cold sweep finds its text already read and mapped by the stub, whose"
echo "  reads count in the whole process: compare whole-process times for the cold start)"
echo
echo "FilePmdMapped (median over rounds) of the ideal (whole 2 MiB chunks of congruent executable VMAs):"
for b in $RUNS; do
	pmd=$(median "${V[$b.pmd]}")
	ideal=$(median "${V[$b.ideal]}")
	printf '  %-10s %6d MiB of %6d MiB' "$b" $((${pmd%.*} / 1024)) $((${ideal%.*} / 1024))
	if [ "${ideal%.*}" -gt 0 ]; then
		printf ' (%d%%; min %d MiB)' $((${pmd%.*} * 100 / ${ideal%.*})) \
			$(($(echo "${V[$b.pmd]}" | tr ' ' '\n' | sed '/^$/d' | sort -n | head -n 1) / 1024))
	fi
	case $b in
	original)
		lucky=$(echo "${V[original.ideal]}" | tr ' ' '\n' | awk '$1 > 0 { n++ } END { print n + 0 }')
		if [ "$lucky" = 0 ]; then
			printf '   (p_align 4 KiB: the load base is not 2 MiB-aligned, so no chunk is congruent)'
		else
			# ASLR picks a 4 KiB-aligned base: 1 run in 512 gets a 2 MiB-aligned one.
			printf '   (load base 2 MiB-aligned by chance in %d rounds: those rounds favour the original)' "$lucky"
		fi ;;
	rewritten) printf '   (elfpmd: %d chunks)' "$chunks" ;;
	esac
	echo
done
if [ "$ALIGNED" = 1 ]; then
	echo "* aligned: elfpmd without --madvise, page cache filled with PMD folios by a helper before each"
	echo "  run (untimed): not a cold start; random phase original/aligned $ALIGNED_RATIO"
fi
echo
awk -v r="$RANDOM_RATIO" -v m="$RANDOM_ROUNDS" 'BEGIN {
	printf "acceptance: random phase original/rewritten %.3f of medians, %.3f median of rounds (>= 1.10): %s\n",
		r, m, (r >= 1.10 ? "PASS" : "FAIL") }'
echo "runtime of this script: $((SECONDS - started)) s"
