#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-privilege-small-thread.sh: the --madvise rewrite of libinv.so
# dlopened on a thread whose stack is PTHREAD_STACK_MIN, 16 KiB
# (tests/fixtures/smallstack.c), its text cached in 4 KiB folios: it
# prints what the original prints, and its text carries MADV_HUGEPAGE
# (the stub ran), which the original's does not.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

privilege_start "drop_caches" inv-smallstack
L=$WORK/lib
mkdir -p "$L/orig" "$L/mad"
cp "$O/libinv.so" "$L/orig/libinv.so"
"$ELFPMD" -q --madvise -o "$L/mad/libinv.so" "$O/libinv.so" || { fail "elfpmd --madvise libinv.so failed"; finish; }
run_logged "$L/orig.out" "$O/smallstack" "$L/orig/libinv.so"
[ "$(tail -1 "$L/orig.out")" = "exit status 42" ] \
	|| skip_all "16 KiB thread: the original does not load here ($(tail -1 "$L/orig.out"))"
cache_order0 "$L/mad/libinv.so"
run_logged "$L/mad.out" "$O/smallstack" "$L/mad/libinv.so"
sed 's/^text advised: .*/text advised: -/' "$L/orig.out" >"$L/orig.cmp"
sed 's/^text advised: .*/text advised: -/' "$L/mad.out" >"$L/mad.cmp"
cp "$L/mad.out.err" "$L/mad.cmp.err" 2>/dev/null
same "$L/orig.cmp" "$L/mad.cmp" "libinv.so --madvise, dlopen on a 16 KiB thread stack"
holds "libinv.so --madvise on a 16 KiB thread stack: the stub ran (text advised: $(sed -n 's/^text advised: //p' "$L/mad.out"))" \
	'grep -qx "text advised: yes" "$L/mad.out"'
finish
