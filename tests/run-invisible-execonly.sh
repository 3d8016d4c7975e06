#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-execonly.sh: no stub where the text is execute-only.  A
# copy of inv-pie whose text PT_LOAD is made PF_X without PF_R (the stub
# reads the text, and could not): elfpmd -n --json --madvise says
# "injected":false for a reason naming execute-only, elfpmd -q --madvise
# exits 0 and leaves no stub, and the result runs as the original, from a
# cold, a warm and an order-0 page cache.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
inv_fixture pie
w=$WORK/xonly
mkdir -p "$w/orig"
cp "$P_ORIG" "$w/orig/inv-pie"
xs=$("$PHDR_DUMP" "$P_ORIG" | awk '$2 == "LOAD" && $3 == "R-X" { print $1 }')
[ -n "$xs" ] || hard_error "inv-pie has no R-X PT_LOAD"
for i in $xs; do poke "$w/orig/inv-pie" phdr "$i" flags 1; done
chmod 755 "$w/orig/inv-pie"

run_logged "$w/ref" "$w/orig/inv-pie" "${ARGS[@]}"
cmp -s "$WORK/pie.ref" "$w/ref" \
	|| skip_all "the execute-only copy of the original does not run here ($(tail -1 "$w/ref"))"
if stub_refused "execute-only text" "$w/orig/inv-pie" execute-only "$w/mad/inv-pie"; then
	same_in_states "execute-only text" "$w/ref" "$w/mad/inv-pie" "$w/mad/inv-pie" "${ARGS[@]}"
fi
stub_finish
