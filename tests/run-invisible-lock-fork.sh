#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-lock-fork.sh: a fork while a library's stub holds its lock
# leaves no lock behind.  tests/fixtures/invfork.c dlopens libinv.so,
# rewritten by elfpmd --madvise and cached in order-0 folios, while a
# second thread forks as soon as /proc/locks shows a lock on it; the child
# keeps copies of the parent's descriptors: once dlopen has returned, no
# lock on the library may be left.  SKIP when the watcher never saw the
# lock (the repair was over before it looked).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
inv_fixture lib
stub_fixture inv-tools

cache_order0 "$L_MAD"
run_logged "$WORK/fork.out" "$O/invfork" "$L_MAD"
if grep -qx 'forked: no' "$WORK/fork.out"; then
	skip "fork: the watcher thread never saw the stub's lock (the repair was over before it looked)"
elif grep -qx 'forked: yes' "$WORK/fork.out" && grep -qx 'locks after dlopen: 0' "$WORK/fork.out"; then
	pass "fork: a child forked while the stub held the library's locks keeps none of them after dlopen"
else
	fail "fork: $(tr '\n' ' ' <"$WORK/fork.out")"
fi
stub_finish
