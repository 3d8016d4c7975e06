#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-coverage.sh: each 17 MiB fixture given the stub gets at least
# 95% of its text's whole 2 MiB chunks PMD-mapped (FilePmdMapped of its
# VMAs in /proc/PID/smaps while it runs; the fixture copies its smaps to
# $FIXTURE_SMAPS) from a cold cache (sync; drop_caches) and warm (the
# second of two runs), and a warm start has nothing to repair: the stub
# neither evicts, writes back, waits nor remaps (strace).  Needs root,
# THP and file THP on the build tree's file system; skipped otherwise.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache
have_strace=false
if have strace; then have_strace=true; else skip "strace not found: the warm start's system calls are not checked"; fi

cold_warm () {
	mad_rewrite || return
	drop_caches
	coverage cold "$dir" "$r"
	run_as "$dir" "$w/warm0.out"
	coverage warm "$dir" "$r"
	$have_strace || return 0
	run_as "$dir" "$w/warm-strace.out" strace -f -qq -o "$w/warm.strace" \
		-e trace=flock,fdatasync,fadvise64,sync_file_range,clock_nanosleep,nanosleep,mmap
	if grep -Eq 'flock|fdatasync|fadvise64|sync_file_range|nanosleep|PROT_READ\|PROT_EXEC, MAP_PRIVATE\|MAP_FIXED, ' "$w/warm.strace"; then
		fail "$name: warm start: the stub went down its repair path: $(grep -Em1 'flock|fdatasync|fadvise64|sync_file_range|nanosleep' "$w/warm.strace")"
	else
		pass "$name: warm start: no eviction, write-back, wait or remapping from the stub"
	fi
}
for_each_mad_fixture cold_warm
finish
