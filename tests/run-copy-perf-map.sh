#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-perf-map.sh: ELFPMD_PERF_MAP=1 names the copied text for perf.
# On ext4 mounted data=journal, mad-pie's --madvise=copy rewrite run with
# ELFPMD_PERF_MAP=1 prints what the original prints and writes
# /tmp/perf-PID.map holding exactly the function symbols (nm -S, a reader
# independent of elfpmd) that overlap the copied range, each at its
# address plus the load bias and with its size; run without it, it writes
# no map.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# map_verdict MAP RANGES EXE: "ok N symbols: ..." when MAP lists exactly
# the function symbols of EXE that overlap the address RANGES (lo-hi ...,
# hexadecimal), at the right place and size; else what differs.
map_verdict () {
	python3 - "$@" <<'PY'
import subprocess, sys
mapfile, ranges, exe = sys.argv[1], sys.argv[2].split(), sys.argv[3]
got = {}
for line in open(mapfile):
    a, s, name = line.rstrip("\n").split(" ", 2)
    got[name] = (int(a, 16), int(s, 16))
syms = {}
for line in subprocess.run(["nm", "-S", "--defined-only", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "tTwWiI":
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
# The load bias from any symbol, then every symbol checked against it.
if not got:
    print("empty map"); sys.exit()
name = next(iter(got))
if name not in syms:
    print("%s not in nm" % name); sys.exit()
bias = got[name][0] - syms[name][0]
spans = [tuple(int(x, 16) for x in r.split("-")) for r in ranges]
want = {n for n, (v, s) in syms.items() if s and any(v + bias < hi and v + bias + s > lo for lo, hi in spans)}
bad = [n for n, (a, s) in got.items() if n not in syms or syms[n] != (a - bias, s)]
if set(got) != want or bad:
    print("map %s, nm %s, wrong %s" % (sorted(got), sorted(want), bad))
else:
    print("ok %d symbols: %s" % (len(got), " ".join(sorted(got))))
PY
}

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/copy"

(echo "$BASHPID" >"$WORK/pid"; exec env ELFPMD_PERF_MAP=1 FIXTURE_SMAPS="$WORK/perfmap.smaps" "$J/copy" "${ARGS[@]}" >"$WORK/perfmap.out" 2>"$WORK/perfmap.out.err")
echo "exit status $?" >>"$WORK/perfmap.out"
map=/tmp/perf-$(cat "$WORK/pid").map
CLEANUP+=("rm -f '$map'")
if [ -s "$map" ]; then
	range=$(awk '/^[0-9a-f]+-[0-9a-f]+ / && $2 ~ /x/ && $5 == 0 && $6 != "[vdso]" && $6 != "[vsyscall]" { print $1 }' "$WORK/perfmap.smaps")
	verdict=$(map_verdict "$map" "$range" "$J/copy")
	holds "data=journal, ELFPMD_PERF_MAP=1: $map: $verdict" '[ "${verdict%% *}" = ok ]'
else
	fail "data=journal, ELFPMD_PERF_MAP=1: no $map written"
fi
same "$J/orig.out" "$WORK/perfmap.out" "data=journal, copy with ELFPMD_PERF_MAP=1"

(echo "$BASHPID" >"$WORK/pid"; exec "$J/copy" "${ARGS[@]}" >/dev/null 2>&1)
map=/tmp/perf-$(cat "$WORK/pid").map
CLEANUP+=("rm -f '$map'")
holds "data=journal, copy without ELFPMD_PERF_MAP: no perf map written" '[ ! -e "$map" ]'
stub_finish
