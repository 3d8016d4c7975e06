#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-pretender.sh: a lock holder that reads the file back
# in small folios does not hold a start for long.  The user nobody holds
# the flock of the rewrite of inv-pie and reads its chunks back in small
# folios, one every 14 ms (tests/fixtures/invlock.c pretender), while the
# rewrite starts from an order-0 page cache under strace: it prints what
# the original prints, asks for at most 20 ms of sleep in all, never gets
# the lock, unlocks nothing it does not hold, and repairs without it.  Its
# FilePmdMapped is noted only: anyone may do the same to the original.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches, running as another user"
require_strace
inv_fixture pie
stub_fixture inv-tools
require_nobody "$P_MAD"

locked_start pretender
check_sleeps "$LOCK_WHAT" "$WORK/lock.strace" "$MAX_LOCK_WAIT_NS"
check_repaired_unlocked
read -r kb want _ <<<"$(pmd_coverage "$WORK/lock.smaps" "$P_MAD")"
note "$LOCK_WHAT: FilePmdMapped $kb kB of $want kB ideal"
stub_finish
