#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-privilege-small-stack.sh: the --madvise rewrite of inv-pie, its text
# cached in 4 KiB folios, under ulimit -s 16 prints what the original
# prints under the same limit.  16 KiB hold the environment too, and where
# the stack starts is random: with a test's environment (make distcheck's
# is larger) the original itself fails about one start in four.  So both
# run with an empty environment and without address randomisation
# (setarch -R): the same layout every time, some 5 KiB from the limit,
# which the stub's 1.1 KiB would cross only if it needed more than it says.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

privilege_start "drop_caches" inv-pie
have setarch || skip_all "setarch not found (Debian: util-linux)"
M=$WORK/inv-pie.mad
"$ELFPMD" -q --madvise -o "$M" "$O/inv-pie" || hard_error "elfpmd --madvise inv-pie failed"
SMALL=(env -i PATH=/usr/bin:/bin bash -c 'ulimit -s 16 && exec setarch "$(uname -m)" -R "$@"' -)
run_logged "$WORK/small.orig.out" "${SMALL[@]}" "$O/inv-pie" "${ARGS[@]}"
[ "$(tail -1 "$WORK/small.orig.out")" = "exit status 42" ] \
	|| skip_all "ulimit -s 16: the original does not run so ($(tail -1 "$WORK/small.orig.out"))"
cache_order0 "$M"
run_logged "$WORK/small.mad.out" "${SMALL[@]}" "$M" "${ARGS[@]}"
same "$WORK/small.orig.out" "$WORK/small.mad.out" "inv-pie --madvise under ulimit -s 16"
finish
