#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-mlockall.sh: under mlockall the stub gives up at once.
# invdl calls mlockall(MCL_CURRENT | MCL_FUTURE), then dlopens and closes
# libinv.so, rewritten by elfpmd --madvise and cached in order-0 folios,
# 10 times: it prints what the original prints, the stub makes at most one
# failing MADV_DONTNEED per dlopen (MADV_DONTNEED fails on locked memory)
# and never sleeps (no nanosleep or clock_nanosleep).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
require_strace
inv_fixture lib
w=$WORK/mlock
what="mlockall, 10 dlopen, order-0"
run_logged "$w.orig" "$INVDL" --mlockall "$L_ORIG" 10
[ "$(tail -1 "$w.orig")" = "exit status 42" ] \
	|| skip_all "$what: the original does not run under mlockall here ($(head -1 "$w.orig.err"))"

cache_order0 "$L_MAD"
run_logged "$w.mad" strace -f -qq -o "$w.strace" -e trace=write,madvise,nanosleep,clock_nanosleep \
	"$INVDL" --mlockall "$L_MAD" 10
same "$w.orig" "$w.mad" "$what"
# The failing MADV_DONTNEED calls of each round: before the line that
# invdl writes (and flushes) after the round's dlopen.
per=$(awk '
	/ madvise\(.*MADV_DONTNEED.* = -1 / { c++ }
	/ write\(1, "round / { printf "%d ", c; c = 0 }
	END { print "" }' "$w.strace")
max=$(echo "$per" | tr ' ' '\n' | sort -n | tail -1)
if [ "$(echo "$per" | wc -w)" -ne 10 ]; then
	fail "$what: strace saw $(echo "$per" | wc -w) rounds of dlopen, not 10"
elif [ "${max:-0}" -le 1 ]; then
	pass "$what: at most one failing MADV_DONTNEED per dlopen ($per)"
else
	fail "$what: up to $max failing MADV_DONTNEED per dlopen (per dlopen: $per)"
fi
nsleeps=$(strace_calls "$w.strace" nanosleep clock_nanosleep | wc -l)
if [ "$nsleeps" -eq 0 ]; then
	pass "$what: no nanosleep or clock_nanosleep"
else
	fail "$what: $nsleeps nanosleep/clock_nanosleep calls, $(($(strace_sleep_ns "$w.strace") / 1000)) us in all"
fi
stub_finish
