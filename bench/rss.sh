#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# rss.sh -- what does `elfpmd --madvise` do to a program's memory figures?
#
# ps, time, cgroup limits and the OOM killer's score count the file pages a
# process maps: text the stub maps shows as resident set, though it is
# shared page cache.  This compares, side by side, copies of large programs
# as they are (orig) and rewritten with `elfpmd --madvise` (pmd; and, with
# -b, a second rewrite by another elfpmd, before), each warm (one untimed
# run of each first, so that every chunk the programs run is cached as the
# stub leaves it):
#   idle      the program started and waiting on its standard input (a pipe
#             kept open), a second after its start: Rss, Pss and
#             FilePmdMapped of /proc/PID/smaps_rollup;
#   compile   one compile, sampled every 20 ms: the largest Rss and Pss
#             seen, ru_maxrss (wait4), and the FilePmdMapped of the last
#             sample.
# Programs: clang (clang-14 with its libclang-cpp.so.14 and libLLVM-14.so.1
# copied beside it, LD_LIBRARY_PATH) idle as `clang -x c++ -fsyntax-only -`,
# and gcc's cc1plus idle as `cc1plus -quiet -o /dev/null`; both compile one
# C++ translation unit written here (bits/stdc++.h and some templates,
# -O2), cc1plus through g++ -B (so the figures are cc1plus's, the process
# that compiles).  R rounds of each, in the order orig, pmd[, before],
# then reversed; the medians.
#
# Usage: bench/rss.sh [-r ROUNDS] [-b ELFPMD_BEFORE] [-d DIR] [-k]
#   -r ROUNDS  rounds (default 3)
#   -b PATH    also an arm rewritten by this elfpmd (before)
#   -d DIR     work directory parent (default /var/tmp)
#   -k         keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Needs clang-14, g++-12, python3, THP not [never].  About a minute.
set -eu
export LC_ALL=C
ROUNDS=3
BEFORE=
WORK=
KEEP=0
while getopts 'r:b:d:kh' opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	b) BEFORE=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
case $ROUNDS in '' | *[!0-9]* | 0) bench_die "-r wants a number of rounds, at least 1" ;; esac
bench_find_elfpmd
for tool in clang-14 g++-12 python3; do
	command -v "$tool" >/dev/null || bench_die "$tool is needed"
done
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || bench_die "-b $BEFORE: not an executable"
thp=/sys/kernel/mm/transparent_hugepage/enabled
! grep -q '\[never\]' "$thp" || bench_die "transparent huge pages are disabled ($thp)"
bench_workdir rss
CLANG=$(readlink -f "$(command -v clang-14)")
LIBDIR=$(dirname "$(readlink -f "$(dirname "$CLANG")/../lib/libLLVM-14.so.1")")
CC1PLUS=$(readlink -f "$(g++-12 -print-prog-name=cc1plus)")
echo "elfpmd: $ELFPMD${BEFORE:+; before: $BEFORE}"
echo "kernel: $(uname -r), THP $(cat "$thp"); work dir $WORK"

ARMS=(orig pmd)
[ -z "$BEFORE" ] || ARMS+=(before)
for a in "${ARMS[@]}"; do
	A=$WORK/$a
	mkdir -p "$A/clang/bin" "$A/clang/lib" "$A/gcc"
	cp "$CLANG" "$A/clang/bin/clang"
	cp "$LIBDIR/libclang-cpp.so.14" "$LIBDIR/libLLVM-14.so.1" "$A/clang/lib/"
	ln -s "$(dirname "$CLANG")/../lib/clang" "$A/clang/lib/clang"
	cp "$CC1PLUS" "$A/gcc/cc1plus"
	case $a in
	orig) ;;
	pmd) "$ELFPMD" -q --madvise "$A/clang/bin/clang" "$A/clang/lib/"*.so* "$A/gcc/cc1plus" ;;
	before) "$BEFORE" -q --madvise "$A/clang/bin/clang" "$A/clang/lib/"*.so* "$A/gcc/cc1plus" ;;
	esac
done
cat >"$WORK/unit.cpp" <<'EOF'
#include <bits/stdc++.h>
template <int N> struct fib { static constexpr long v = fib<N - 1>::v + fib<N - 2>::v; };
template <> struct fib<1> { static constexpr long v = 1; };
template <> struct fib<0> { static constexpr long v = 0; };
std::map<std::string, std::vector<std::regex>> table;
int main (int argc, char **argv)
{
  std::vector<std::string> words (argv, argv + argc);
  std::sort (words.begin (), words.end ());
  for (auto &w : words)
    table[w].emplace_back (w + ".*");
  std::unordered_map<std::string, std::shared_ptr<std::function<long (long)>>> f;
  f["x"] = std::make_shared<std::function<long (long)>> ([] (long x) { return x * fib<40>::v; });
  std::cout << std::accumulate (words.begin (), words.end (), std::string ()) << (*f["x"]) (argc)
	    << std::endl;
}
EOF

# measure.py ARM KIND -- COMMAND...: run COMMAND (KIND idle: its standard
# input a pipe kept open for a second; compile: stdin /dev/null) and print
# "rss_kB pss_kB pmd_kB maxrss_kB".
cat >"$WORK/measure.py" <<'EOF'
import os, resource, subprocess, sys, time
kind = sys.argv[1]
cmd = sys.argv[3:]
def rollup(pid):
    v = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                k, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    v[k] = int(rest.split()[0])
    except OSError:
        pass
    return v
if kind == "idle":
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    v = rollup(p.pid)
    p.stdin.close()
    _, status, ru = os.wait4(p.pid, 0)
    print(v.get("Rss", 0), v.get("Pss", 0), v.get("FilePmdMapped", 0), ru.ru_maxrss)
else:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    rss = pss = pmd = 0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid != 0:
            break
        v = rollup(p.pid)
        rss, pss = max(rss, v.get("Rss", 0)), max(pss, v.get("Pss", 0))
        pmd = v.get("FilePmdMapped", pmd)
        time.sleep(0.02)
    if os.WEXITSTATUS(status) != 0:
        sys.exit("compile failed: " + " ".join(cmd))
    print(rss, pss, pmd, ru.ru_maxrss)
EOF

# run ARM PROGRAM KIND: one measurement, as "rss pss pmd maxrss".
run () {
	local A=$WORK/$1
	case $2.$3 in
	clang.idle) LD_LIBRARY_PATH=$A/clang/lib python3 "$WORK/measure.py" idle -- \
		"$A/clang/bin/clang" -x c++ -fsyntax-only - ;;
	clang.compile) LD_LIBRARY_PATH=$A/clang/lib python3 "$WORK/measure.py" compile -- \
		"$A/clang/bin/clang" -O2 -c "$WORK/unit.cpp" -o "$WORK/$1.clang.o" ;;
	cc1plus.idle) python3 "$WORK/measure.py" idle -- "$A/gcc/cc1plus" -quiet -o /dev/null ;;
	# g++ -B runs the arm's cc1plus; python watches g++'s child, so run cc1plus
	# itself on the preprocessed unit, as g++ does.
	cc1plus.compile) python3 "$WORK/measure.py" compile -- "$A/gcc/cc1plus" -fpreprocessed \
		"$WORK/unit.ii" -quiet -O2 -o "$WORK/$1.s" ;;
	esac
}
g++-12 -E -O2 "$WORK/unit.cpp" -o "$WORK/unit.ii"

declare -A R
for a in "${ARMS[@]}"; do for p in clang cc1plus; do for k in idle compile; do
	run "$a" "$p" "$k" >/dev/null	# warm: every chunk run is cached as the stub leaves it
done; done; done
order=("${ARMS[@]}")
for ((r = 0; r < ROUNDS; r++)); do
	for a in "${order[@]}"; do for p in clang cc1plus; do for k in idle compile; do
		R[$a.$p.$k]+="$(run "$a" "$p" "$k");"
	done; done; done
	mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
done

# The median of field F (1-4) of the ROUNDS lines of one cell, in MB.
med () {
	echo "$1" | tr ';' '\n' | awk -v f="$2" 'NF { print $f }' | sort -n |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1024 }'
}
echo
echo "medians of $ROUNDS rounds, MB (1 MB = 1024 kB); PMD: FilePmdMapped"
printf '| program | state | arm | Rss | Pss | PMD-mapped | ru_maxrss |\n|---|---|---|---|---|---|---|\n'
for p in clang cc1plus; do for k in idle compile; do for a in "${ARMS[@]}"; do
	c=${R[$a.$p.$k]}
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$k" "$a" "$(med "$c" 1)" "$(med "$c" 2)" \
		"$(med "$c" 3)" "$(med "$c" 4)"
done; done; done
