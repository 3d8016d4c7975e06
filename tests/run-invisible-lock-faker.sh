#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-faker.sh: a lock holder that fakes progress delays a
# start no more than one that does not.  The user nobody holds flock and
# an OFD read lock grown every millisecond on the rewrite of inv-pie
# (tests/fixtures/invlock.c faker: what a stub at work once showed its
# waiters), which starts from an order-0 page cache under strace: it
# prints what the original prints, asks for at most 20 ms of sleep in all,
# never gets the lock, unlocks nothing it does not hold, then repairs its
# chunks without the lock: FilePmdMapped at least 95% of the ideal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches, running as another user"
require_strace
inv_fixture pie
stub_fixture inv-tools
require_nobody "$P_MAD"

locked_start faker
check_sleeps "$LOCK_WHAT" "$WORK/lock.strace" "$MAX_LOCK_WAIT_NS"
check_repaired_unlocked
check_pmd_coverage "$LOCK_WHAT" "$WORK/lock.smaps" "$P_MAD"
stub_finish
