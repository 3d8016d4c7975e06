#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# stub-seeds.sh DIR [FILE]: seeds for tests/fuzz/fuzz_stub in DIR: this
# machine's own /proc and /sys files (an environment made up here, not the
# caller's; and FILE, an ELF file, for the perf map's reader), each behind
# the two bytes fuzz_stub reads first (which reader, how many bytes one
# read returns: 0, all, and 7), at most 64 KiB each.  Used by
# tests/run-fuzz.sh and bench/fuzz.sh -t stub.
set -eu
dir=$1
elf=${2:-/bin/sh}
mkdir -p "$dir"
printf 'HOME=/\000ELFPMD_PERF_MAP=1\000ELFPMD_PERF_MAPX=0\000' >"$dir/environ"
k=0
for f in /proc/self/maps /proc/self/smaps /proc/self/mountinfo "$dir/environ" /proc/self/auxv \
	/proc/sys/kernel/osrelease /sys/kernel/mm/transparent_hugepage/enabled "$elf"; do
	for size in 0 7; do
		{ printf "\\$(printf %03o "$k")\\$(printf %03o "$size")"; head -c 65536 "$f" 2>/dev/null || true; } \
			>"$dir/seed-$k-$size"
	done
	k=$((k + 1))
done
rm -f "$dir/environ"
