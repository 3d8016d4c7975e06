#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-ofd.sh: another user's OFD read lock, which does not
# exclude the stub's flock, does not hold a start.  The user nobody holds
# an OFD read lock on the rewrite of inv-pie (tests/fixtures/invlock.c
# ofd), which starts from an order-0 page cache under strace: it prints
# what the original prints, asks for at most 20 ms of sleep in all, takes
# its own lock and releases it, and repairs: FilePmdMapped at least 95% of
# the ideal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches, running as another user"
require_strace
inv_fixture pie
stub_fixture inv-tools
require_nobody "$P_MAD"

locked_start ofd
check_sleeps "$LOCK_WHAT" "$WORK/lock.strace" "$MAX_LOCK_WAIT_NS"
if [ "$LOCK_GOT" -ge 1 ] && [ "$LOCK_UNLOCKED" -eq "$LOCK_GOT" ]; then
	pass "$LOCK_WHAT: the stub took its own lock and released it ($LOCK_GOT)"
else
	fail "$LOCK_WHAT: the stub got its lock $LOCK_GOT time(s) and unlocked $LOCK_UNLOCKED"
fi
check_pmd_coverage "$LOCK_WHAT" "$WORK/lock.smaps" "$P_MAD"
stub_finish
