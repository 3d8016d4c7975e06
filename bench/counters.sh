#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# counters.sh -- the workloads of bench/itlb-workloads.sh run natively, the
# original programs against copies rewritten with `elfpmd --madvise`, with
# the processor's own instruction-TLB and page-walk counters (perf stat).
#
# Two arms, each a directory of copies (orig as they are, pmd rewritten),
# in rounds of four runs ordered ABBA (orig pmd pmd orig, then pmd orig
# orig pmd, ...) after one untimed run of each.  Every run is counted by
# `perf stat -x,` with the events below that this machine's PMU has; a
# round's ratio of an event is pmd's count over orig's (each the sum of
# its two runs), and the result the geometric mean of the rounds' ratios
# with a t-based 95% interval on their logarithms.  Every run's text
# mappings are read from /proc/PID/smaps of the running program (sampled
# once it has run 0.3 s): the orig arm must have no PMD-mapped text of its
# copies (a baseline that got huge pages anyway is reported and its round
# left out), and the pmd arm's FilePmdMapped is printed.
#
# Events, by the CPU's vendor (/proc/cpuinfo), each kept only when
# `perf stat -e EVENT true` counts it here:
#   all      cycles, instructions, iTLB-loads, iTLB-load-misses
#   Intel    itlb_misses.walk_completed, itlb_misses.walk_active,
#            itlb_misses.stlb_hit, frontend_retired.itlb_miss
#   AMD      bp_l1_tlb_miss_l2_tlb_hit, bp_l1_tlb_miss_l2_tlb_miss,
#            bp_l1_tlb_miss_l2_tlb_miss.if2m, bp_l1_tlb_fetch_hit
#   arm64    l1i_tlb, l1i_tlb_refill, itlb_walk, l2d_tlb_refill,
#            stall_frontend
#
# Usage: bench/counters.sh [-n] [-e EVENTS] [-r ROUNDS] [-w NAMES] [-d DIR] [-k]
#   -n         dry run: the events this machine would be asked for (all
#              vendors' when it has no PMU), the workloads and the
#              commands; nothing runs
#   -e EVENTS  count these events (comma-separated) instead; software
#              events (task-clock,page-faults) try the script out on a
#              machine without a PMU
#   -r ROUNDS  ABBA rounds per workload (default 10; at least 2)
#   -w NAMES   workloads (gcc-c, gcc-cxx, clang-c, rustc; default all)
#   -d DIR     work directory parent (default /var/tmp)
#   -k         keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Exit status: 0; 1 an error; 64 usage; 77 this machine cannot count (no
# perf, or a PMU without the events: a guest without a virtual PMU), with
# the reason on one line.  Runs on bare metal or a guest with a PMU as it
# is; needs perf (Debian: linux-perf), gcc-12, g++-12, clang-14, rustc.

set -eu
export LC_ALL=C

ROUNDS=10
ONLY=gcc-c,gcc-cxx,clang-c,rustc
WORK=
DRY=0
FORCED=
# shellcheck disable=SC2034 # read by bench_workdir (lib.sh)
KEEP=0
while getopts 'ne:r:w:d:kh' opt; do
	case $opt in
	n) DRY=1 ;;
	e) FORCED=${OPTARG//,/ } ;;
	r) ROUNDS=$OPTARG ;;
	w) ONLY=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '/^# Usage/,/^# Exit/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64 ;;
	esac
done
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 2 ] || { echo "${0##*/}: -r: at least 2 rounds" >&2; exit 64; }
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
# shellcheck source=bench/inputs.sh
. "$HERE/inputs.sh"
want () { [[ ,$ONLY, == *,$1,* ]]; }

EV_ALL="cycles instructions iTLB-loads iTLB-load-misses"
EV_INTEL="itlb_misses.walk_completed itlb_misses.walk_active itlb_misses.stlb_hit frontend_retired.itlb_miss"
EV_AMD="bp_l1_tlb_miss_l2_tlb_hit bp_l1_tlb_miss_l2_tlb_miss bp_l1_tlb_miss_l2_tlb_miss.if2m bp_l1_tlb_fetch_hit"
EV_ARM="l1i_tlb l1i_tlb_refill itlb_walk l2d_tlb_refill stall_frontend"
case $(uname -m) in
aarch64) vendor=arm64; EV_VENDOR=$EV_ARM ;;
*)
	case $(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1) in
	GenuineIntel) vendor=Intel; EV_VENDOR=$EV_INTEL ;;
	AuthenticAMD | HygonGenuine) vendor=AMD; EV_VENDOR=$EV_AMD ;;
	*) vendor=unknown; EV_VENDOR= ;;
	esac ;;
esac

# Why this machine cannot count, or nothing.
why_not=
if ! command -v perf >/dev/null; then
	why_not="perf not found (Debian: package linux-perf)"
elif [ -n "$FORCED" ]; then
	EV_ALL=$FORCED
	EV_VENDOR=
elif ! perf stat -x, -e cycles -- true 2>&1 >/dev/null | grep -q '^[0-9][0-9]*,'; then
	# shellcheck disable=SC2046,SC2012 # one line of names
	pmus=$(echo $(ls /sys/bus/event_source/devices 2>/dev/null))
	why_not="no hardware counters: perf stat counts no cycles ($(perf stat -x, -e cycles -- true 2>&1 >/dev/null | head -n 1 | cut -d, -f1)); this kernel's PMUs: ${pmus:-none} (a guest without a virtual PMU, or perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
fi

events=
if [ -z "$why_not" ]; then
	for ev in $EV_ALL $EV_VENDOR; do
		perf stat -x, -e "$ev" -- true 2>&1 >/dev/null | grep -q '^[0-9][0-9.]*,' && events="$events $ev"
	done
	[ -n "$events" ] || why_not="perf stat counts none of the events: $EV_ALL $EV_VENDOR"
fi

if [ "$DRY" = 1 ]; then
	echo "vendor: $vendor ($(uname -m))"
	if [ -n "$why_not" ]; then
		echo "this machine: $why_not"
		echo "events it would ask for: $EV_ALL"
		echo "  on Intel: $EV_INTEL"
		echo "  on AMD:   $EV_AMD"
		echo "  on arm64: $EV_ARM"
	else
		echo "events counted here:$events"
	fi
	echo "rounds: $ROUNDS ABBA rounds of 4 runs per workload, after one untimed run of each arm"
	for w in ${ONLY//,/ }; do
		echo "$w: $(workload_describe "$w")"
	done
	exit 0
fi
if [ -n "$why_not" ]; then
	echo "${0##*/}: cannot count here: $why_not" >&2
	exit 77
fi
events=${events# }
bench_find_elfpmd
bench_workdir counters
inputs_make "$WORK/in" "$ONLY"

# The arms: copies of every object the workloads run, as they are (orig)
# and rewritten (pmd).
for arm in orig pmd; do
	mkdir -p "$WORK/$arm"
done
for w in ${ONLY//,/ }; do
	for obj in $(workload_objects "$w"); do
		name=${obj##*/}
		[ -e "$WORK/orig/$name" ] && continue
		cp "$obj" "$WORK/orig/$name"
		"$ELFPMD" -q --madvise -o "$WORK/pmd/$name" "$obj" || bench_die "elfpmd --madvise $obj failed"
	done
done

# run WORKLOAD ARM OUT: one counted run; OUT.perf (perf stat -x,) and
# OUT.pmd (FilePmdMapped of the arm's copies, kB, sampled at 0.3 s).
run () {
	local w=$1 arm=$2 out=$3 pid
	local ev_args=()
	for ev in $events; do ev_args+=(-e "$ev"); done
	# shellcheck disable=SC2046 # the command's words
	perf stat -x, -o "$out.perf" "${ev_args[@]}" -- env LD_LIBRARY_PATH="$WORK/$arm" \
		$(workload_command "$w" "$WORK/$arm" "$WORK/in" "$out.o") >"$out.log" 2>&1 &
	pid=$!
	sleep 0.3
	# the workload's process is perf's child (env execs it)
	local child
	child=$(pgrep -P "$pid" | head -n 1)
	if [ -n "$child" ] && [ -r "/proc/$child/smaps" ]; then
		awk -v dir="$WORK/$arm/" '$6 ~ "^" dir { own = 1; next } /^[0-9a-f]+-[0-9a-f]+ / { own = 0 }
			own && /^FilePmdMapped:/ { kb += $2 } END { print kb + 0 }' "/proc/$child/smaps" >"$out.pmd"
	else
		echo "?" >"$out.pmd"
	fi
	wait "$pid" || bench_die "$w ($arm) failed: $(tail -3 "$out.log")"
}

for w in ${ONLY//,/ }; do
	echo "== $w: $(workload_describe "$w")"
	run "$w" orig "$WORK/$w.warm-orig"
	run "$w" pmd "$WORK/$w.warm-pmd"
	for ((r = 1; r <= ROUNDS; r++)); do
		if [ $((r % 2)) = 1 ]; then order="orig pmd pmd orig"; else order="pmd orig orig pmd"; fi
		i=0
		for arm in $order; do
			i=$((i + 1))
			run "$w" "$arm" "$WORK/$w.$r.$i.$arm"
		done
	done
	python3 - "$WORK" "$w" "$ROUNDS" "$events" <<'EOF'
import glob, math, os, sys
work, w, rounds, events = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
        12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}
def t975(df):
    return T975.get(df) or T975[min(k for k in T975 if k >= df)] if df <= 30 else 1.96
def counts(path):
    c = {}
    for line in open(path):
        f = line.strip().split(",")
        if len(f) > 2 and f[0][:1].isdigit():
            c[f[2]] = float(f[0])
    return c
ratios = {e: [] for e in events}
dropped, pmd_kb = [], []
for r in range(1, rounds + 1):
    runs = sorted(glob.glob(os.path.join(work, "%s.%d.*.*.perf" % (w, r))))
    tot = {"orig": {}, "pmd": {}}
    base_pmd = False
    for p in runs:
        arm = p.split(".")[-2]
        pmd = open(p[:-5] + ".pmd").read().strip()
        if arm == "orig" and pmd not in ("0", "?"):
            base_pmd = True
        if arm == "pmd" and pmd != "?":
            pmd_kb.append(int(pmd))
        for e, v in counts(p).items():
            tot[arm][e] = tot[arm].get(e, 0) + v
    if base_pmd:
        dropped.append(r)
        continue
    for e in events:
        if tot["orig"].get(e) and tot["pmd"].get(e) is not None:
            ratios[e].append(tot["pmd"][e] / tot["orig"][e])
print("%s: %d rounds%s; pmd arm's FilePmdMapped %s kB" % (w, rounds - len(dropped),
      " (rounds %s left out: the baseline had PMD-mapped text)" % dropped if dropped else "",
      "-".join(str(x) for x in sorted(set([min(pmd_kb), max(pmd_kb)]))) if pmd_kb else "?"))
for e in events:
    v = [x for x in ratios[e] if x > 0]
    if len(v) < 2:
        print("  %-36s (not enough rounds)" % e); continue
    l = [math.log(x) for x in v]
    m = sum(l) / len(l)
    sd = math.sqrt(sum((x - m) ** 2 for x in l) / (len(l) - 1))
    h = t975(len(l) - 1) * sd / math.sqrt(len(l))
    print("  %-36s pmd/orig %.3f (%.3f-%.3f), %d rounds, spread %.3f-%.3f" % (
        e, math.exp(m), math.exp(m - h), math.exp(m + h), len(l), min(v), max(v)))
EOF
done
