#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# cc1plus.sh -- does a large real program run faster (or at least not
# slower) once elfpmd --madvise has rewritten it?  gcc's cc1plus, compiling
# a generated template-heavy C++ translation unit at -O2.
#
# Copies cc1plus (`gcc -print-prog-name=cc1plus`) into a work directory as
# cc1plus.orig, writes cc1plus.pmd with `elfpmd --madvise -o`, checks that
# both compile the test unit to the same assembly, drops both files from the
# page cache and runs each once (untimed warm-up: the rewritten one's stub
# fills the cache with PMD-sized folios), then runs the two side by side,
# warm cache, ROUNDS times each in alternating order (odd rounds original
# first, even rounds rewritten first), invoking cc1plus directly on a .ii
# preprocessed once with g++ -E:  cc1plus -quiet -O2 -o /dev/null t.ii
#
# Prints each run's wall and user+sys time, the median, min .. max and
# spread of each, the ratio original/rewritten (of the medians, and the
# median and range of the per-round ratios), an acceptance line (not slower:
# the ratio at least 1 minus half the larger spread), then FilePmdMapped of
# each copy's text sampled from /proc/PID/smaps DELAY seconds into a compile
# (warm, and after a global `echo 3 > drop_caches`), against the ideal: the
# whole PMD chunks inside its executable PT_LOADs.  A startup check follows: the time of BATCH
# compiles of an empty unit, for each copy.
#
# Every measurement (one run, with its cache drop) holds the lock
# /tmp/elfpmd-bench.lock (or $ELFPMD_BENCH_LOCK; flock), so that benchmarks
# run by others on the same machine never time at the same moment.
#
# With -x a third arm runs the rewritten copy with THP disabled
# (PR_SET_THP_DISABLE through a small wrapper: the stub then does nothing
# and no PMD mapping is made): the same file and layout without huge pages,
# which separates the effect of the PMD mappings from everything else.
#
# Usage: bench/cc1plus.sh [-n ROUNDS] [-t TYPES] [-s DELAY] [-d DIR] [-k] [-x]
#   -n ROUNDS    timed runs of each copy (default 5)
#   -t TYPES     distinct types in the generated unit (default 20: about
#                8000 template instantiations, ~5 s at -O2 on a 2-core VM)
#   -s DELAY     when to sample smaps, seconds into the compile (default 1)
#   -d DIR       work directory parent (default /var/tmp)
#   -k           keep the work directory
#   -x           add the THP-disabled arm
#   CC1PLUS=path the compiler proper to copy (default: gcc's)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Needs root (drop_caches), g++, cc, readelf, flock.  Not a test: about
# 2 minutes (3 with -x).

set -eu
export LC_ALL=C

ROUNDS=5
TYPES=20
DELAY=1
PARENT=/var/tmp
KEEP=0
BATCH=20
NOTHP=0
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
while getopts 'n:t:s:d:kxh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	t) TYPES=$OPTARG ;;
	s) DELAY=$OPTARG ;;
	d) PARENT=$OPTARG ;;
	k) KEEP=1 ;;
	x) NOTHP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
for t in g++ cc readelf flock; do
	command -v "$t" >/dev/null || { echo "$t is needed" >&2; exit 1; }
done
[ -w /proc/sys/vm/drop_caches ] || { echo "needs root (drop_caches)" >&2; exit 1; }
CC1PLUS=${CC1PLUS:-$(g++ -print-prog-name=cc1plus)}
[ -x "$CC1PLUS" ] || { echo "cc1plus not found: set CC1PLUS" >&2; exit 1; }

mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/cc1plus-bench.XXXXXX")
cleanup() { [ "$KEEP" = 1 ] && echo "kept $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "cc1plus:  $CC1PLUS ($(stat -c %s "$CC1PLUS") bytes)"
echo "work dir: $WORK ($(df -T . | awk 'NR == 2 { print $2 " on " $1 }'))"
ra_kb() { # read_ahead_kb of the disk holding the current directory
	local dev
	dev=$(basename "$(df . | awk 'NR == 2 { print $1 }')")
	[ -e "/sys/block/$dev" ] || dev=$(lsblk -no pkname "/dev/$dev" 2>/dev/null | head -n 1)
	cat "/sys/block/$dev/queue/read_ahead_kb" 2>/dev/null || echo '?'
}
echo "kernel:   $(uname -r), $(nproc) CPUs, THP $(sed 's/.*\[\(.*\)\].*/\1/' \
	/sys/kernel/mm/transparent_hugepage/enabled), read_ahead_kb $(ra_kb)"

# ------------------------------------------------------------------ copies
cp "$CC1PLUS" cc1plus.orig
echo
echo "elfpmd -n --json --madvise:"
"$ELFPMD" -n --json --madvise cc1plus.orig >report.json
python3 - report.json <<'EOF' 2>/dev/null || cat report.json
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["segments"]:
    print("  PT_LOAD[%d] %s offset %#x vaddr %#x filesz %#x align %#x -> %#x (%s%s)" % (
        s["index"], s["flags"], s["offset"], s["vaddr"], s["filesz"], s["align"],
        s["new_align"], s["action"], ", padding %d" % s["padding"] if s["padding"] else ""))
st = d.get("stub") or {}
print("  PMD chunks of text %d -> %d, padded segments %d, size %d -> %d" % (
    d["pmd_chunks_before"], d["pmd_chunks_after"], d["padded_segments"],
    d["size_before"], d["size_after"]))
print("  stub: injected %s, hook %s, table_moved %s, %s range(s), %s chunks" % (
    st.get("injected"), st.get("hook"), st.get("table_moved"), st.get("ranges"), st.get("chunks")))
EOF
"$ELFPMD" --madvise -o cc1plus.pmd cc1plus.orig

PMD=2097152
# Whole PMD chunks inside the executable PT_LOADs of FILE (addresses as
# linked; an ET_DYN base is PMD-aligned once p_align is).
ideal_chunks() {
	local type off v f m fl rest c=0 n
	while read -r type off v f m fl rest; do
		[ "$type" = LOAD ] || continue
		case "$fl$rest" in *E*) ;; *) continue ;; esac
		n=$(((v + m) / PMD - (v + PMD - 1) / PMD))
		[ "$n" -gt 0 ] && c=$((c + n))
	done < <(readelf -lW "$1")
	echo "$c"
}
IDEAL=$(ideal_chunks cc1plus.pmd)
echo "  ideal: $IDEAL whole 2 MiB chunks of text ($((IDEAL * 2)) MiB)"

# A wrapper that disables THP for what it runs (PR_SET_THP_DISABLE, which
# exec keeps): the rewritten cc1plus with its stub idle and no PMD mapping.
cat >nothp.c <<'EOF'
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 2)
		return 64;
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
		perror("prctl");
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
EOF
cc -O2 -o nothp nothp.c

# ------------------------------------------------------------------ workload
gen() { # TYPES
	cat <<'EOF'
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

template <int N, class T> struct Rec {
  static T fold(const std::vector<T> &v, T acc) {
    for (const auto &x : v) acc = acc + x;
    return Rec<N - 1, T>::fold(v, acc);
  }
};
template <class T> struct Rec<0, T> {
  static T fold(const std::vector<T> &, T acc) { return acc; }
};
EOF
	local i
	for ((i = 1; i <= $1; i++)); do
		cat <<EOF
struct K$i { int a; long b; bool operator<(const K$i &o) const { return std::tie(a, b) < std::tie(o.a, o.b); } };
struct V$i { long x; V$i operator+(const V$i &o) const { return {x + o.x + $i}; } };
long f$i(int n) {
  std::map<K$i, std::vector<std::tuple<V$i, int>>> m;
  std::vector<std::variant<K$i, V$i, long>> vars;
  std::vector<V$i> vs;
  for (int j = 0; j < n; j++) {
    m[K$i{j % 7, (long)j * $i}].emplace_back(V$i{j}, j);
    vars.emplace_back(j % 2 ? std::variant<K$i, V$i, long>(V$i{j}) : std::variant<K$i, V$i, long>(K$i{j, j}));
    vs.push_back(V$i{j * 3L});
  }
  long s = Rec<$((i % 13 + 3)), V$i>::fold(vs, V$i{0}).x;
  for (const auto &[k, v] : m) s += k.a + (long)v.size() + std::get<1>(v.back());
  for (const auto &x : vars) if (auto *p = std::get_if<V$i>(&x)) s += p->x; else if (x.index() == 0) s += std::get<0>(x).b;
  auto it = m.find(K$i{1, $i});
  return s + (it == m.end() ? 0 : (long)it->second.size());
}
EOF
	done
	echo "long (*table[])(int) = {"
	for ((i = 1; i <= $1; i++)); do echo "  f$i,"; done
	echo "};"
}
gen "$TYPES" >t.cc
g++ -std=c++17 -E t.cc -o t.ii
: >empty.ii
echo
echo "workload: $TYPES types, $(wc -l <t.cc) lines, t.ii $(stat -c %s t.ii) bytes"

# Same output from both copies (assembly of the test unit).
./cc1plus.orig -quiet -O2 -o orig.s t.ii
./cc1plus.pmd -quiet -O2 -o pmd.s t.ii
if cmp -s orig.s pmd.s; then
	echo "output: identical assembly ($(wc -l <orig.s) lines)"
else
	echo "output: the two copies' assembly DIFFERS" >&2
	exit 1
fi
rm -f orig.s pmd.s

# ------------------------------------------------------------------ helpers
# One measurement under the lock: optional global cache drop, then run the
# compiler on II; with SNAP set, copy /proc/PID/smaps to SNAP DELAY seconds
# in.  Prints wall milliseconds (of the compile only).
measure() { # BIN II COLD SNAP
	flock "$LOCK" bash -c '
		bin=$1 ii=$2 cold=$3 snap=$4 delay=$5
		if [ "$cold" = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
		t0=$(date +%s%N)
		"$bin" -quiet -O2 -o /dev/null "$ii" &
		pid=$!
		if [ -n "$snap" ]; then
			sleep "$delay"
			cat /proc/$pid/smaps >"$snap" 2>/dev/null || :
		fi
		wait $pid
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))' _ "$1" "$2" "$3" "$4" "$DELAY"
}
# One timed run under the lock: wall, user and system seconds.  WRAPPER
# (the THP-off one) runs the compiler when given.
timed() { # BIN [WRAPPER]
	flock "$LOCK" bash -c '
		TIMEFORMAT="%3R %3U %3S"
		{ time $2 "$1" -quiet -O2 -o /dev/null t.ii 2>>errors.log; } 2>&1' _ "$1" "${2:-}"
}
# BATCH compiles of an empty unit, under the lock; milliseconds per run.
startup() { # BIN
	flock "$LOCK" bash -c '
		t0=$(date +%s%N)
		for ((i = 0; i < $2; i++)); do "$1" -quiet -O2 -o /dev/null empty.ii; done
		t1=$(date +%s%N)
		awk -v t=$((t1 - t0)) -v n=$2 "BEGIN { printf \"%.2f\", t / n / 1e6 }"' _ "$1" "$BATCH"
}
# FilePmdMapped (KiB) of FILE's executable and other VMAs in a smaps copy.
pmd_kib() { # SMAPS FILE -> "TEXT_KIB OTHER_KIB VMAS"
	awk -v f="$2" '
		/^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == f); x = ($2 ~ /x/); if (cur) n++; next }
		cur && /^FilePmdMapped:/ { if (x) t += $2; else o += $2 }
		END { print t + 0, o + 0, n + 0 }' "$1"
}
coverage() { # LABEL SMAPS FILE
	local t o n
	read -r t o n < <(pmd_kib "$2" "$3")
	if [ "$n" = 0 ]; then
		printf '  %-30s no mapping of %s in the sample (did the run end before %ss?)\n' "$1" "$3" "$DELAY"
		return
	fi
	awk -v l="$1" -v t="$t" -v o="$o" -v i="$IDEAL" 'BEGIN {
		printf "  %-30s text %3d of %3d MiB PMD-mapped (%5.1f%%)", l, t / 1024, i * 2,
			i ? 100 * t / 1024 / (i * 2) : 0
		if (o) printf ", plus %d MiB of non-text segments", o / 1024
		printf "\n" }'
}

# ------------------------------------------------------------------ warm runs
# Start from a page cache that holds neither copy (as after installing the
# files), then one untimed run each.
for f in cc1plus.orig cc1plus.pmd; do dd if="$f" iflag=nocache count=0 status=none; done
echo
echo "warm-up (untimed): original $(measure ./cc1plus.orig t.ii 0 '') ms," \
	"rewritten $(measure ./cc1plus.pmd t.ii 0 '') ms"
declare -A W C SPREAD
if [ "$NOTHP" = 1 ]; then
	ARMS="O P N"
	echo "$ROUNDS rounds, warm cache, seconds wall (user+sys); O original, P rewritten,"
	echo "N rewritten with THP disabled; the order rotates (OPN, PNO, NOP):"
else
	ARMS="O P"
	echo "$ROUNDS rounds, warm cache, seconds wall (user+sys); O original, P rewritten;"
	echo "odd rounds original first:"
fi
for ((r = 1; r <= ROUNDS; r++)); do
	if [ "$NOTHP" = 1 ]; then
		case $((r % 3)) in 1) order="O P N" ;; 2) order="P N O" ;; 0) order="N O P" ;; esac
	elif [ $((r % 2)) = 1 ]; then
		order="O P"
	else
		order="P O"
	fi
	line=
	for a in $order; do
		case $a in
		O) read -r w u y < <(timed ./cc1plus.orig) ;;
		P) read -r w u y < <(timed ./cc1plus.pmd) ;;
		N) read -r w u y < <(timed ./cc1plus.pmd ./nothp) ;;
		esac
		W[$a.$r]=$w C[$a.$r]=$(awk -v u="$u" -v y="$y" 'BEGIN { printf "%.3f", u + y }')
		line+="$(printf '%s %6.3f (%6.3f)   ' "$a" "$w" "${C[$a.$r]}")"
	done
	printf '  round %d: %s ratio O/P %.3f\n' "$r" "$line" \
		"$(awk -v o="${W[O.$r]}" -v p="${W[P.$r]}" 'BEGIN { print o / p }')"
done
col() { # ARM ARRAY-NAME -> its ROUNDS values
	local -n arr=$2
	local r
	for ((r = 1; r <= ROUNDS; r++)); do printf '%s ' "${arr[$1.$r]}"; done
}
ratios() { # A B ARRAY-NAME -> the per-round ratios A/B
	local -n arr=$3
	local r
	for ((r = 1; r <= ROUNDS; r++)); do
		awk -v a="${arr[$1.$r]}" -v b="${arr[$2.$r]}" 'BEGIN { printf "%.4f ", a / b }'
	done
}
summ() { # VALUES -> "median min max spread%"
	tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.4f %.4f %.4f %.1f\n", m, v[1], v[NR], 100 * (v[NR] - v[1]) / m }'
}
declare -A NAME=([O]="original" [P]="rewritten" [N]="rewritten, THP off")
for a in $ARMS; do
	read -r m lo hi sp < <(summ "$(col "$a" W)")
	read -r cm _ _ csp < <(summ "$(col "$a" C)")
	printf '%-19s wall median %.3f s, min .. max %.3f .. %.3f, spread %.1f%%; user+sys median %.3f s (spread %.1f%%)\n' \
		"${NAME[$a]}:" "$m" "$lo" "$hi" "$sp" "$cm" "$csp"
	SPREAD[$a]=$sp
done
ratio_line() { # A B LABEL
	local rm rlo rhi cm
	read -r rm rlo rhi _ < <(summ "$(ratios "$1" "$2" W)")
	read -r cm _ _ _ < <(summ "$(ratios "$1" "$2" C)")
	awk -v l="$3" -v a="$(summ "$(col "$1" W)")" -v b="$(summ "$(col "$2" W)")" \
		-v rm="$rm" -v rlo="$rlo" -v rhi="$rhi" -v cm="$cm" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		printf "ratio %-29s wall %.3f of medians, per round median %.3f (%.3f .. %.3f); user+sys per round %.3f\n",
			l, x[1] / y[1], rm, rlo, rhi, cm }'
}
ratio_line O P "original / rewritten:"
if [ "$NOTHP" = 1 ]; then
	ratio_line N P "rewritten THP off / on:"
	ratio_line O N "original / rewritten THP off:"
fi
echo "(> 1: the second is faster)"
# Acceptance: not slower, within noise: the ratio of the medians is at least
# 1 minus half the larger spread ((max - min) / median) of the two.
awk -v a="$(summ "$(col O W)")" -v b="$(summ "$(col P W)")" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	r = x[1] / y[1]; noise = (x[4] > y[4] ? x[4] : y[4]) / 200
	printf "acceptance, not slower (ratio of medians >= 1 - half the larger spread = %.3f): %s, ratio %.3f\n",
		1 - noise, (r >= 1 - noise) ? "PASS" : "FAIL", r }'

# ------------------------------------------------------------------ coverage
echo
echo "FilePmdMapped ${DELAY}s into a compile (ideal $IDEAL chunks = $((IDEAL * 2)) MiB):"
ms=$(measure ./cc1plus.pmd t.ii 0 smaps.pmd.warm)
coverage "rewritten, warm ($ms ms)" smaps.pmd.warm "$WORK/cc1plus.pmd"
ms=$(measure ./cc1plus.orig t.ii 0 smaps.orig.warm)
coverage "original, warm ($ms ms)" smaps.orig.warm "$WORK/cc1plus.orig"
ms=$(measure ./cc1plus.pmd t.ii 1 smaps.pmd.cold)
coverage "rewritten, cold ($ms ms)" smaps.pmd.cold "$WORK/cc1plus.pmd"
ms=$(measure ./cc1plus.orig t.ii 1 smaps.orig.cold)
coverage "original, cold ($ms ms)" smaps.orig.cold "$WORK/cc1plus.orig"
echo "(cold runs: one each, after sync + drop_caches; their times include reading"
echo " the compiler and its libraries from disk, so they are no speed comparison)"

# ------------------------------------------------------------------ startup
so=$(startup ./cc1plus.orig) sp=$(startup ./cc1plus.pmd)
so2=$(startup ./cc1plus.orig) sp2=$(startup ./cc1plus.pmd)
echo
echo "startup, empty unit, mean of $BATCH runs, twice (warm): original $so / $so2 ms," \
	"rewritten $sp / $sp2 ms"
