#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-seccomp-kill.sh: the stub never makes the system calls it
# must not.  tests/fixtures/invseccomp.c runs inv-static-pie and inv-pie,
# and their rewrites by elfpmd --madvise (from an order-0 page cache),
# under a filter that kills the process on open, on nanosleep or on
# fdatasync: the rewrite does what the original does (it is not killed).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NEVER_CALLS="open nanosleep fdatasync"

invisible_start "drop_caches"
inv_fixture static-pie
inv_fixture pie
stub_fixture inv-tools

# shellcheck disable=SC2086  # the list is words
seccomp_like_original kill static-pie "$S_ORIG" "$S_MAD" $NEVER_CALLS
# shellcheck disable=SC2086
seccomp_like_original kill pie "$P_ORIG" "$P_MAD" $NEVER_CALLS
stub_finish
