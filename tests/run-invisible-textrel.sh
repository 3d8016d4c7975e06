#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-textrel.sh: no stub where the text has relocations.  A PIE
# and a library linked -z notext (DT_TEXTREL; tests/fixtures inv-textrel,
# libinvtr.so, which useinvtr loads): elfpmd -n --json --madvise says
# "injected":false for a reason naming TEXTREL (the stub could discard
# the relocated pages), elfpmd -q --madvise exits 0 and leaves no stub,
# and the result runs as the original, from a cold, a warm and an order-0
# page cache.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
stub_fixture inv-textrel
w=$WORK/textrel
mkdir -p "$w/orig" "$w/mad"
cp -p "$O/inv-textrel" "$O/libinvtr.so" "$w/orig/"

run_logged "$w/pie.ref" "$w/orig/inv-textrel" "${ARGS[@]}"
if stub_refused "TEXTREL PIE" "$w/orig/inv-textrel" TEXTREL "$w/mad/inv-textrel"; then
	same_in_states "TEXTREL PIE" "$w/pie.ref" "$w/mad/inv-textrel" "$w/mad/inv-textrel" "${ARGS[@]}"
fi

run_logged "$w/lib.ref" env LD_LIBRARY_PATH="$w/orig" "$O/useinvtr" "${ARGS[@]}"
if stub_refused "TEXTREL library" "$w/orig/libinvtr.so" TEXTREL "$w/mad/libinvtr.so"; then
	same_in_states "TEXTREL library" "$w/lib.ref" "$w/mad/libinvtr.so" \
		env LD_LIBRARY_PATH="$w/mad" "$O/useinvtr" "${ARGS[@]}"
fi
stub_finish
