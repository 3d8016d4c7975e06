#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-strace.sh: the stub's system calls made to fail (strace fault
# injection, ENOSYS), each run from an order-0 cache so that the stub goes
# down its repair path.  Without PAGEMAP_SCAN (ioctl: the path of kernels
# before 6.7, smaps and mincore), without the kernel's version (uname) or
# the file system's type (statfs of a program, fstatfs of a library's
# file), or without the lock (flock) the stub still repairs the cache (95%
# of the chunks PMD-mapped); without mincore, POSIX_FADV_DONTNEED, madvise,
# or all of them, it gives up and the program runs as before.  Pages that
# cannot be evicted: one write-back, the lock taken, waits of 1 ms, at most
# 8, the lock released.  Needs root, THP, file THP and strace.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache
have strace || skip_all "strace not found"

# The stub's system calls that the loader and libc do not make while a
# fixture starts, so that strace can make them fail for the stub alone.
# (openat, read, pread64, close, fstat and mmap are the loader's too:
# run-invisible-seccomp.sh covers them.)
STUB_ONLY_CALLS=prctl,uname,statfs,fstatfs,madvise,ioctl,mincore,fadvise64,sync_file_range,flock,clock_nanosleep

# strace_case LABEL CALLS: run under strace with CALLS (comma list) made to
# fail with ENOSYS, after $r was cached in order-0 folios: the output must
# be the original's, and the stub must have made at least one of them
# (strace marks them INJECTED).
strace_case () {
	local label=$1 calls=$2 log=$w/strace.$1.log injected
	drop_caches
	"$PAGECACHE" order0 "$r" >/dev/null 2>&1
	rm -f "$w/smaps.strace-$label"
	FIXTURE_SMAPS=$w/smaps.strace-$label run_as "$dir" "$w/strace-$label.out" strace -f -qq -o "$log" \
		-e trace="$STUB_ONLY_CALLS" -e inject="$calls:error=ENOSYS"
	same_output "$w/strace-$label.out" "$calls failing (strace)"
	injected=$(grep -c 'INJECTED' "$log" 2>/dev/null)
	if [ "${injected:-0}" -gt 0 ]; then
		pass "$name: $calls failing: the stub made $injected failing call(s) ($(grep 'INJECTED' "$log" | sed 's/^[0-9]* *//; s/(.*//' | sort -u | tr '\n' ' ' | sed 's/ $//'))"
	else
		fail "$name: $calls failing: strace saw none of the stub's $calls calls fail"
		head -5 "$log" | sed 's/^/      /'
	fi
}

failing () {
	local calls log syncs sleeps
	mad_rewrite || return
	for calls in ioctl uname statfs,fstatfs flock; do
		strace_case "$calls" "$calls"
		stub_coverage "strace-$calls" "$r"
	done
	strace_case mincore mincore
	strace_case madvise madvise
	strace_case fadvise64 fadvise64
	log=$w/strace.fadvise64.log
	syncs=$(grep -c 'sync_file_range(' "$log")
	sleeps=$(grep -c 'nanosleep(' "$log")
	if [ "$syncs" -eq 1 ] && [ "$sleeps" -ge 1 ] && [ "$sleeps" -le 8 ] && grep -Eq 'flock\([0-9]+, LOCK_EX\|LOCK_NB\) +=  *0' "$log" \
		&& grep -Eq 'flock\([0-9]+, LOCK_UN\) += 0' "$log"; then
		pass "$name: pages that stay cached: one write-back, $sleeps waits of 1 ms (at most 8), the lock taken and released"
	else
		fail "$name: pages that stay cached: $syncs write-backs, $sleeps sleeps, lock: $(grep -Eo 'flock\([^)]*\) += [0-9-]+' "$log" | tr '\n' ' ')"
	fi
	strace_case all "$STUB_ONLY_CALLS"
}
for_each_mad_fixture failing
finish
