#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-worker.sh: a start waits for a lock holder that does
# its work only as long as the work goes on.  The user nobody holds the
# flock of the rewrite of inv-pie and evicts and reads back its chunks as
# PMD folios, one every 14 ms (tests/fixtures/invlock.c worker), while the
# rewrite starts from an order-0 page cache under strace: it prints what
# the original prints, asks for at most 20 ms of sleep plus 4 ms per chunk
# (stub/lock.c, FOLLOW_MS), never gets the lock and unlocks nothing, and
# ends with FilePmdMapped at least 95% of the ideal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FOLLOW_NS=4000000

invisible_start "drop_caches, running as another user"
require_strace
inv_fixture pie
stub_fixture inv-tools
require_nobody "$P_MAD"

locked_start worker
read -r _ _ ideal <<<"$(pmd_coverage "$WORK/lock.smaps" "$P_MAD")"
check_sleeps "$LOCK_WHAT" "$WORK/lock.strace" $((MAX_LOCK_WAIT_NS + ${ideal:-0} * FOLLOW_NS))
if [ "$LOCK_GOT" -eq 0 ] && [ "$LOCK_UNLOCKED" -eq 0 ]; then
	pass "$LOCK_WHAT: the stub never got the lock and unlocked nothing ($LOCK_EVICTIONS evictions of its own)"
else
	fail "$LOCK_WHAT: the stub got the lock $LOCK_GOT time(s), unlocked $LOCK_UNLOCKED"
fi
check_pmd_coverage "$LOCK_WHAT" "$WORK/lock.smaps" "$P_MAD"
stub_finish
