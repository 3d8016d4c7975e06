#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-seccomp-errors.sh: a seccomp filter that makes the stub's
# system calls fail changes nothing.  tests/fixtures/invseccomp.c runs
# inv-static-pie and inv-pie, and their rewrites by elfpmd --madvise (from
# an order-0 page cache), under a filter that makes one of the calls that
# the stub makes, or has made, fail (and then all of them at once), with
# EPERM, then with ENOSYS: the rewrite does what the original does.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STUB_CALLS="prctl uname openat read pread64 close fstat newfstatat statfs fstatfs madvise ioctl
	mincore fadvise64 fdatasync sync_file_range mmap munmap clock_nanosleep clock_gettime flock fcntl open
	nanosleep all"

invisible_start "drop_caches"
inv_fixture static-pie
inv_fixture pie
stub_fixture inv-tools

for mode in eperm enosys; do
	# shellcheck disable=SC2086  # the list is words
	seccomp_like_original $mode static-pie "$S_ORIG" "$S_MAD" $STUB_CALLS
	# shellcheck disable=SC2086
	seccomp_like_original $mode pie "$P_ORIG" "$P_MAD" $STUB_CALLS
done
stub_finish
