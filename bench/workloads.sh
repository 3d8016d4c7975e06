#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# workloads.sh -- does real work run faster after `elfpmd --madvise`?
#
# Two arms side by side, each a directory of copies of large programs and
# libraries: orig (copied as they are) and pmd (the same copies rewritten
# with `elfpmd --madvise`).  Each workload runs with one arm's copies, in
# rounds of four runs ordered ABBA (orig pmd pmd orig, then pmd orig orig
# pmd, ...), after one untimed run of each arm (the check below: a warm
# page cache, as a build machine has).  A round's ratio is pmd's time over orig's, each the
# sum of its two runs in the round, so that a drift of the machine during
# the round cancels; the result is the geometric mean of the rounds'
# ratios with a t-based 95% interval (on their logarithms), the number of
# rounds and their spread (smallest and largest).  A ratio below 1: the
# rewrite is faster.  "faster" or "slower" only when the interval excludes
# 1; else "not measurable here".  What the rounds can resolve is reported
# beside it: each arm's run-to-run spread (coefficient of variation of its
# timed runs, and their range), and the smallest effect the rounds could
# detect (95% two-sided, 80% power: (t(0.975) + t(0.80)) times the standard
# error of the mean log ratio); an effect below it is not a finding.
# Every timed run is checked too (the preloaded checker below, in every
# run): a round in which an orig run had PMD-mapped text of its copies (a
# sequential read can give even an unmodified binary PMD folios on this
# kernel) is left out of the ratio and counted, and the pmd arm's smallest
# PMD-mapped share is reported.
#
# Workloads (-w names them, comma-separated; default all):
#   gcc-c      gcc -O2 -c of sqlite3's amalgamation (sqlite3.c, about 250,000
#              lines), cc1 from the arm (gcc -B ARM/gcc/)
#   gcc-cxx    g++ -std=c++11 -O2 -c of nlohmann-json's unit-regression1.cpp
#              (the single header, doctest and fifo_map: a large C++
#              translation unit), cc1plus from the arm
#   clang-c    clang-14 -O2 -c of sqlite3.c: clang, libclang-cpp.so.14 and
#              libLLVM-14.so.1 from the arm (LD_LIBRARY_PATH)
#   clang-cxx  clang++ of unit-regression1.cpp, the same copies
#   build      a whole build: xz-utils configured with CC="gcc -B ARM/gcc/"
#              (static: --disable-shared), `make -j$(nproc)` after a
#              `make clean` (untimed)
#   node       node running TypeScript's own compiler (lib/tsc.js of Debian's
#              node-typescript source) over its src/compiler project,
#              type-checked without emit: a program of another kind with
#              large text.  The node of this machine (/usr/bin/node,
#              whichever package gave it: the output says which)
# Each arm is checked to run the copies it claims: one more run of each
# workload per arm with a preloaded library (built here; it spawns
# nothing) whose destructor appends, for every process of the workload,
# its executable's path and the FilePmdMapped and size of the executable
# mappings of the arm's files (/proc/self/smaps): orig must have none
# PMD-mapped, pmd most of the whole chunks; and the outputs of the arms
# must be the same (object files byte for byte, the built xz stripped of
# its debug information and build ID, tsc's diagnostics).
#
# Sources come from Debian source packages (sqlite3, nlohmann-json3,
# xz-utils, node-typescript) fetched once with apt-get source through a
# private sources list (deb-src of this machine's release, on the mirror
# this machine's apt configuration names: tests/vm/lib.sh's vm_mirrors and
# vm_apt) into CACHE (default ~/.cache/elfpmd-workloads, as the VM harness's
# cache; ELFPMD_WORKLOADS_CACHE; it must be this user's and writable by it
# alone); nothing is downloaded from anywhere else.
#
# Usage: bench/workloads.sh [-r ROUNDS] [-w NAMES] [-d DIR] [-k]
#   -r ROUNDS  ABBA rounds per workload (default 5; at least 2)
#   -w NAMES   only these workloads
#   -d DIR     work directory parent (default /var/tmp); about 1 GiB
#   -k         keep the work directory
#   -F         only fetch the sources (and make sqlite3.c) into CACHE
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Every timed run holds the lock /tmp/elfpmd-bench.lock (or
# $ELFPMD_BENCH_LOCK).  Needs gcc-12 (g++), clang-14, node, tclsh (to make
# sqlite3.c), dpkg-dev (apt-get source), python3, THP not [never].  About
# ten minutes per round with every workload, here.

set -eu
export LC_ALL=C

ROUNDS=5
ONLY=gcc-c,gcc-cxx,clang-c,clang-cxx,build,node
WORK=
# shellcheck disable=SC2034 # read by bench_workdir (lib.sh)
KEEP=0
FETCH_ONLY=0
CACHE=${ELFPMD_WORKLOADS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/elfpmd-workloads}
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
while getopts 'r:w:d:kFh' opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	w) ONLY=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	F) FETCH_ONLY=1 ;;
	*) sed -n '/^# Usage/,/^# Every/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
	esac
done
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 2 ] || { echo "${0##*/}: -r: at least 2 rounds" >&2; exit 64; }
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
thp=/sys/kernel/mm/transparent_hugepage/enabled
! grep -q '\[never\]' "$thp" 2>/dev/null || bench_die "transparent huge pages are disabled ($thp)"
for tool in gcc-12 g++-12 clang-14 node tclsh python3 dpkg-source flock; do
	command -v "$tool" >/dev/null || bench_die "$tool not found"
done
JOBS=$(nproc)
CC1=$(gcc-12 -print-prog-name=cc1)
CC1PLUS=$(gcc-12 -print-prog-name=cc1plus)
CLANG=$(readlink -f "$(command -v clang-14)")
LIBDIR=$(cd "$(dirname "$CLANG")/../lib" && pwd)
NODE=$(readlink -f "$(command -v node)")

# ---------------------------------------------------------------------------
# Sources, once, into $CACHE/src.

# fetch PACKAGE: apt-get source PACKAGE into $CACHE/src/PACKAGE (unpacked,
# Debian's patches applied), through bench_apt_src's private sources list.
fetch () {
	local pkg=$1
	[ -f "$CACHE/src/$pkg/.done" ] && return 0
	rm -rf "$CACHE/src/$pkg"
	mkdir -p "$CACHE/src/$pkg"
	(cd "$CACHE/src/$pkg" && bench_apt_src "$CACHE" apt-get -q source "$pkg") >"$CACHE/src/$pkg.log" 2>&1 \
		|| bench_die "apt-get source $pkg failed: $(tail -1 "$CACHE/src/$pkg.log")"
	touch "$CACHE/src/$pkg/.done"
}

# srcdir PACKAGE: the unpacked tree.
srcdir () { find "$CACHE/src/$1" -mindepth 1 -maxdepth 1 -type d | head -n 1; }

want () { [[ ,$ONLY, == *,$1,* ]]; }

bench_private_dir "$CACHE"
mkdir -p "$CACHE/src" "$CACHE/inputs"
IN=$CACHE/inputs
if want gcc-c || want clang-c; then
	if [ ! -s "$IN/sqlite3.c" ]; then
		fetch sqlite3
		s=$(srcdir sqlite3)
		rm -rf "$CACHE/sqlite-build"
		mkdir -p "$CACHE/sqlite-build"
		(cd "$CACHE/sqlite-build" && "$s/configure" --disable-tcl >/dev/null && make sqlite3.c >/dev/null) \
			>"$CACHE/sqlite-build.log" 2>&1 || bench_die "cannot make sqlite3.c: see $CACHE/sqlite-build.log"
		cp "$CACHE/sqlite-build/sqlite3.c" "$CACHE/sqlite-build/sqlite3.h" "$IN/"
	fi
fi
if want gcc-cxx || want clang-cxx; then
	fetch nlohmann-json3
	JSON=$(srcdir nlohmann-json3)
	[ -f "$JSON/tests/src/unit-regression1.cpp" ] || bench_die "$JSON: no tests/src/unit-regression1.cpp"
	# What the project's CMake would configure: where the test data are
	# (the compile never reads them).
	mkdir -p "$IN/json-include"
	echo '#define TEST_DATA_DIRECTORY "/nonexistent"' >"$IN/json-include/test_data.hpp"
	JSON_FLAGS=(-std=c++11 -O2 -w -I "$IN/json-include" -I "$JSON/single_include" -I "$JSON/tests/thirdparty/doctest"
		-I "$JSON/tests/thirdparty/fifo_map" -c "$JSON/tests/src/unit-regression1.cpp")
fi
if want build; then
	fetch xz-utils
	XZ=$(srcdir xz-utils)
fi
if want node; then
	fetch node-typescript
	TS=$(srcdir node-typescript)
	[ -f "$TS/lib/tsc.js" ] || bench_die "$TS: no lib/tsc.js"
	# What TypeScript's own build makes before it checks the compiler: the
	# diagnostics map (scripts/processDiagnosticMessages.ts, run by this
	# machine's node) and the shims' declarations; and a tsconfig without
	# emit and without the node types (@types/node is no part of the
	# source: the compiler's few uses of node's API become errors, the
	# same in both arms, and the whole project is still type-checked).
	if [ ! -f "$TS/src/compiler/tsconfig.bench.json" ]; then
		(cd "$TS" && node lib/tsc.js --target es2017 --module commonjs --outDir "$CACHE/tsgen" \
			scripts/processDiagnosticMessages.ts >"$CACHE/tsgen.log" 2>&1
		 node "$CACHE/tsgen/processDiagnosticMessages.js" src/compiler/diagnosticMessages.json >>"$CACHE/tsgen.log" 2>&1 \
			&& node lib/tsc.js -p src/shims >>"$CACHE/tsgen.log" 2>&1) \
			|| bench_die "cannot prepare TypeScript's sources: see $CACHE/tsgen.log"
		printf '%s\n' '{' '  "extends": "./tsconfig.json",' '  "compilerOptions": {' \
			'    "types": [], "noEmit": true, "composite": false, "pretty": false,' \
			'    "declaration": false, "declarationMap": false, "sourceMap": false' '  }' '}' \
			>"$TS/src/compiler/tsconfig.bench.json"
	fi
fi

[ "$FETCH_ONLY" = 1 ] && { echo "sources in $CACHE/src, sqlite3.c in $IN"; exit 0; }
bench_find_elfpmd

# ---------------------------------------------------------------------------
# The arms.

bench_workdir workloads
echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version | head -n 1))"
echo "kernel:   $(uname -r), $JOBS CPUs, THP $(cat "$thp"), work dir $WORK ($(df -PT "$WORK" | awk 'NR == 2 { print $2 }'))"
echo "node:     $NODE $("$NODE" --version) (package $(dpkg -S "$NODE" 2>/dev/null | cut -d: -f1 | head -n 1) $(dpkg-query -W -f '${Version}' nodejs 2>/dev/null))"
echo "rounds:   $ROUNDS (ABBA, 4 runs each), workloads $ONLY"

for arm in orig pmd; do
	A=$WORK/$arm
	mkdir -p "$A/gcc" "$A/clang/bin" "$A/clang/lib" "$A/node" "$A/out"
	cp "$CC1" "$CC1PLUS" "$A/gcc/"
	cp "$CLANG" "$A/clang/bin/clang"
	cp "$LIBDIR/libclang-cpp.so.14" "$LIBDIR/libLLVM-14.so.1" "$A/clang/lib/"
	ln -s "$(dirname "$CLANG")/../lib/clang" "$A/clang/lib/clang"
	cp "$NODE" "$A/node/node"
done
for f in gcc/cc1 gcc/cc1plus clang/bin/clang clang/lib/libclang-cpp.so.14 clang/lib/libLLVM-14.so.1 node/node; do
	"$ELFPMD" -q --madvise "$WORK/pmd/$f" || bench_die "elfpmd --madvise $f failed"
done

if want build; then
	for arm in orig pmd; do
		mkdir -p "$WORK/$arm/build"
		(cd "$WORK/$arm/build" && "$XZ/configure" CC="gcc-12 -B $WORK/$arm/gcc/" --disable-doc --disable-nls --disable-shared \
			>configure.log 2>&1) || bench_die "xz-utils: configure failed ($WORK/$arm/build/configure.log)"
	done
fi

# run WORKLOAD ARM: one run of WORKLOAD with ARM's copies, its output in
# $WORK/ARM/out.
run () {
	local w=$1 A=$WORK/$2
	case $w in
	gcc-c) gcc-12 -B "$A/gcc/" -O2 -w -c "$IN/sqlite3.c" -o "$A/out/gcc-c.o" ;;
	gcc-cxx) g++-12 -B "$A/gcc/" "${JSON_FLAGS[@]}" -o "$A/out/gcc-cxx.o" ;;
	clang-c) LD_LIBRARY_PATH=$A/clang/lib "$A/clang/bin/clang" -O2 -w -c "$IN/sqlite3.c" -o "$A/out/clang-c.o" ;;
	clang-cxx) LD_LIBRARY_PATH=$A/clang/lib "$A/clang/bin/clang" --driver-mode=g++ "${JSON_FLAGS[@]}" \
		-o "$A/out/clang-cxx.o" ;;
	build) make -C "$A/build" -s -j"$JOBS" >/dev/null ;;
	node) (cd "$TS" && "$A/node/node" lib/tsc.js -p src/compiler/tsconfig.bench.json >"$A/out/node.txt" 2>&1
		[ $? = 1 ] && grep -q ': error TS[0-9]*:' "$A/out/node.txt") ;;
	esac
}

# prepare WORKLOAD ARM: what a run needs first, untimed.
prepare () {
	if [ "$1" = build ]; then make -C "$WORK/$2/build" -s clean >/dev/null 2>&1; fi
	return 0
}

# timed WORKLOAD ARM: seconds of one run, under the lock; the checker's
# lines of the run in $WORK/ARM/timed.pmd (pmd_of reads them).
timed () {
	prepare "$1" "$2"
	exec 9>>"$LOCK"
	flock 9
	local t0 t1
	rm -f "$WORK/$2/timed.pmd"
	t0=$(date +%s%N)
	ARMCHECK_OUT=$WORK/$2/timed.pmd ARMCHECK_DIR=$WORK/$2/ LD_PRELOAD=$WORK/armcheck.so run "$1" "$2" \
		|| bench_die "$1 failed with the $2 arm"
	t1=$(date +%s%N)
	flock -u 9
	exec 9>&-
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}

# pmd_of ARM: the percentage of the arm's text that the last timed run's
# processes had PMD-mapped (from the checker's lines), 0 without lines.
pmd_of () {
	awk '{ p += $2; t += $3 } END { printf "%.0f\n", (t > 0 ? 100 * p / t : 0) }' "$WORK/$1/timed.pmd" 2>/dev/null || echo 0
}

# The preloaded checker (it spawns nothing).
cat >"$WORK/armcheck.c" <<'EOF'
/* armcheck.so: at exit, append "EXE PMD_KB TEXT_KB" to $ARMCHECK_OUT: the
   process's executable and, over the executable mappings in
   /proc/self/smaps of files whose path starts with $ARMCHECK_DIR, their
   FilePmdMapped and their size, in kB.  Nothing when there are none.  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__ ((destructor)) static void
report (void)
{
  const char *out = getenv ("ARMCHECK_OUT"), *dir = getenv ("ARMCHECK_DIR");
  char exe[4096], line[8192];
  if (out == NULL || dir == NULL)
    return;
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  exe[n < 0 ? 0 : n] = '\0';
  FILE *f = fopen ("/proc/self/smaps", "r");
  if (f == NULL)
    return;
  long pmd = 0, text = 0, kb;
  int ours = 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi;
      char perms[8];
      int path = 0;
      if (sscanf (line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &path) == 3)
	{
	  line[strcspn (line, "\n")] = '\0';
	  ours = path > 0 && perms[2] == 'x' && strncmp (line + path, dir, strlen (dir)) == 0;
	  if (ours)
	    text += (long) ((hi - lo) >> 10);
	}
      else if (ours && sscanf (line, "FilePmdMapped: %ld kB", &kb) == 1)
	pmd += kb;
    }
  fclose (f);
  if (text == 0)
    return;
  FILE *o = fopen (out, "a");
  if (o != NULL)
    {
      fprintf (o, "%s %ld %ld\n", exe, pmd, text);
      fclose (o);
    }
}
EOF
cc -O2 -shared -fPIC -o "$WORK/armcheck.so" "$WORK/armcheck.c" || bench_die "cannot build armcheck.so"

# check WORKLOAD: one run per arm under the checker; the arms' outputs must
# agree.  Prints one line.
check () {
	local w=$1 arm line=
	for arm in orig pmd; do
		prepare "$w" "$arm"
		rm -f "$WORK/$arm/check.$w"
		ARMCHECK_OUT=$WORK/$arm/check.$w ARMCHECK_DIR=$WORK/$arm/ LD_PRELOAD=$WORK/armcheck.so run "$w" "$arm" \
			|| bench_die "$w failed with the $arm arm"
		[ -s "$WORK/$arm/check.$w" ] || bench_die "$w: no process of the $arm arm mapped the arm's copies"
		line+=$(awk -v arm="$arm" '{ n++; p += $2; t += $3; if ($2 > 0) np++ }
			END { printf " %s: %d processes, %d with PMD-mapped text, %.1f of %.1f MiB PMD-mapped;", arm, n, np, p / 1024, t / 1024 }' \
			"$WORK/$arm/check.$w")
	done
	awk '$2 > 0 { bad = 1 } END { exit bad }' "$WORK/orig/check.$w" || bench_die "$w: the orig arm has PMD-mapped text"
	awk '$2 > 0 { ok = 1 } END { exit !ok }' "$WORK/pmd/check.$w" || bench_die "$w: the pmd arm has no PMD-mapped text"
	local same=yes
	case $w in
	build)
		# Stripped, and without the build ID, which hashes the debug
		# information, which names the build directory.
		for arm in orig pmd; do
			strip --remove-section=.note.gnu.build-id -o "$WORK/$arm/out/xz" "$WORK/$arm/build/src/xz/xz" || same=no
		done
		cmp -s "$WORK/orig/out/xz" "$WORK/pmd/out/xz" || same=no ;;
	node) cmp -s "$WORK/orig/out/node.txt" "$WORK/pmd/out/node.txt" || same=no ;;
	*) cmp -s "$WORK/orig/out/$w.o" "$WORK/pmd/out/$w.o" || same=no ;;
	esac
	[ $same = yes ] || bench_die "$w: the arms' outputs differ"
	echo "  check:${line} outputs identical"
}

# ---------------------------------------------------------------------------
# The rounds.

: >"$WORK/results"
IFS=, read -r -a names <<<"$ONLY"
# Every check first (so that a broken arm shows in minutes), each also the
# untimed first run of its arms; then the rounds.
for w in "${names[@]}"; do
	case $w in gcc-c | gcc-cxx | clang-c | clang-cxx | build | node) ;; *) bench_die "unknown workload $w" ;; esac
	echo "== $w"
	check "$w"
done
for w in "${names[@]}"; do
	echo "== $w: $ROUNDS rounds"
	for ((r = 0; r < ROUNDS; r++)); do
		if [ $((r % 2)) = 0 ]; then order=(orig pmd pmd orig); else order=(pmd orig orig pmd); fi
		o=0 p=0 times="" runs="" opmd=0 ppmd=100
		for arm in "${order[@]}"; do
			t=$(timed "$w" "$arm")
			share=$(pmd_of "$arm")
			times+=" $arm $t"
			runs+=" $arm:$t"
			if [ "$arm" = orig ]; then
				o=$(awk -v a="$o" -v b="$t" 'BEGIN { print a + b }')
				opmd=$(awk -v a="$opmd" -v b="$share" 'BEGIN { print (b > a ? b : a) }')
			else
				p=$(awk -v a="$p" -v b="$t" 'BEGIN { print a + b }')
				ppmd=$(awk -v a="$ppmd" -v b="$share" 'BEGIN { print (b < a ? b : a) }')
			fi
		done
		[ "$opmd" = 0 ] || times+="  (an orig run had ${opmd}% of its text PMD-mapped: left out)"
		echo "$w $r $o $p $opmd $ppmd$runs" >>"$WORK/results"
		printf '  round %d:%s  pmd/orig %.4f\n' "$((r + 1))" "$times" "$(awk -v a="$p" -v b="$o" 'BEGIN { print a / b }')"
	done
done

# ---------------------------------------------------------------------------
# The table.

python3 - "$WORK/results" >"$WORK/summary" <<'EOF'
import math, sys
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086}
T80 = {1: 1.376, 2: 1.061, 3: 0.978, 4: 0.941, 5: 0.920, 6: 0.906, 7: 0.896, 8: 0.889,
       9: 0.883, 10: 0.879, 11: 0.876, 12: 0.873, 13: 0.870, 14: 0.868, 15: 0.866,
       16: 0.865, 17: 0.863, 18: 0.862, 19: 0.861, 20: 0.860}
rows, left_out, runs, pmd_min = {}, {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    w, r, o, p, opmd, ppmd = f[:6]
    for run in f[6:]:
        arm, t = run.split(":")
        runs.setdefault(w, {}).setdefault(arm, []).append(float(t))
    pmd_min[w] = min(pmd_min.get(w, 100), int(ppmd))
    if int(opmd) > 0:
        left_out[w] = left_out.get(w, 0) + 1
        continue
    rows.setdefault(w, []).append((float(o) / 2, float(p) / 2))
def cv(v):
    m = sum(v) / len(v)
    return 100 * math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) / m if len(v) > 1 else float("nan")
print("| workload | rounds | orig s (median) | pmd s (median) | pmd/orig | 95% interval | rounds' range | smallest detectable | orig spread | pmd spread | pmd arm PMD-mapped | verdict |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for w in runs:
    rs = rows.get(w, [])
    n = len(rs)
    spread = ["%.1f%% (%.2f-%.2f s)" % (cv(runs[w][a]), min(runs[w][a]), max(runs[w][a])) for a in ("orig", "pmd")]
    note = " (%d left out: PMD-mapped baseline)" % left_out[w] if w in left_out else ""
    if n < 2:
        print("| %s | %d%s | | | | | | | %s | %s | >= %d%% | not enough rounds |" % (w, n, note, spread[0], spread[1], pmd_min[w]))
        continue
    logs = [math.log(p / o) for o, p in rs]
    m = sum(logs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (n - 1))
    se = sd / math.sqrt(n)
    h = T95.get(n - 1, 1.96) * se
    mde = (T95.get(n - 1, 1.96) + T80.get(n - 1, 0.842)) * se
    lo, hi = math.exp(m - h), math.exp(m + h)
    verdict = "faster" if hi < 1 else "slower" if lo > 1 else "not measurable here"
    med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
    ratios = [p / o for o, p in rs]
    print("| %s | %d%s | %.2f | %.2f | %.3f | %.3f-%.3f | %.3f-%.3f | %.1f%% | %s | %s | >= %d%% | %s |" % (
        w, n, note, med([o for o, _ in rs]), med([p for _, p in rs]), math.exp(m), lo, hi,
        min(ratios), max(ratios), 100 * (math.exp(mde) - 1), spread[0], spread[1], pmd_min[w], verdict))
EOF
echo
echo "summary (pmd/orig < 1: the rewrite is faster; geometric mean of the rounds' ratios):"
cat "$WORK/summary"
