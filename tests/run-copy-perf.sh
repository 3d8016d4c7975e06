#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-perf.sh: perf names the functions of copied text with the
# stub's map.  On ext4 mounted data=journal, the --madvise=copy rewrite of
# tests/fixtures/perfhot.S, which loops in hot_alpha and hot_beta (both in
# copied chunks), is recorded by perf attached to it (perf record -p) for
# half a second: perf report names both with ELFPMD_PERF_MAP=1, neither
# without.  Skipped where perf does not work.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# perf_names WITHMAP: the symbol names that perf report gives the samples
# of J/hot, run with ELFPMD_PERF_MAP=1 (WITHMAP 1) or without it, one per
# line.
perf_names () {
	local pid
	if [ "$1" = 1 ]; then ELFPMD_PERF_MAP=1 "$J/hot" & else env -u ELFPMD_PERF_MAP "$J/hot" & fi
	pid=$!
	CLEANUP+=("kill $pid; rm -f /tmp/perf-$pid.map")
	sleep 0.3
	perf record -q -e cpu-clock -p "$pid" -o "$WORK/perf.data" -- sleep 0.5 >/dev/null 2>&1
	perf report -q --stdio --sort sym -i "$WORK/perf.data" 2>/dev/null | awk '{ print $NF }'
	kill "$pid"
	wait "$pid" 2>/dev/null
	rm -f "/tmp/perf-$pid.map"
}

stub_test_start "drop_caches, loop devices"
have perf && perf record -q -e cpu-clock -o "$WORK/perf.probe" -- true >/dev/null 2>&1 \
	|| skip_all "perf does not work here (Debian: linux-perf)"
copy_fixture
stub_fixture perf-hot
copy_journal
copy_rewrite "$O/perfhot" "$J/hot"

with=$(perf_names 1 | grep -c '^hot_\(alpha\|beta\)$')
without=$(perf_names 0 | grep -c '^hot_\(alpha\|beta\)$')
holds "perf report, attached to a copy with ELFPMD_PERF_MAP=1: hot_alpha and hot_beta named ($with of 2); without the map: $without" \
	'[ "$with" -eq 2 ] && [ "$without" -eq 0 ]'
stub_finish
