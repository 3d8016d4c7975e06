#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-held.sh: a running program holding the chunks in small folios:
# elfpmd prime reports them held, exit 0; once it has ended, prime gets them
# all.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
drop_caches
"$PAGECACHE" order0 "$WORK/align/mad-pie" >/dev/null
rm -f "$WORK/held.smaps"
FIXTURE_PAUSE=1 FIXTURE_SMAPS=$WORK/held.smaps "$WORK/align/mad-pie" >/dev/null 2>&1 &
held=$!
pids+=("$held")
n=0
while [ ! -s "$WORK/held.smaps" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/held.json" 2>&1
rc=$?
ideal=$(ideal_chunks "$WORK/align/mad-pie")
holds "a running program holds the chunks in small folios: exit 0 (got $rc), $ideal held, 0 primed ($(cat "$WORK/held.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/held.json" busy)" = "$ideal" ] && [ "$(json "$WORK/held.json" pmd_folios)" = 0 ]'
kill "$held"
wait "$held" 2>/dev/null
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/freed.json" 2>&1
check "once it has ended, prime gets every chunk ($(cat "$WORK/freed.json"))" \
	[ "$(json "$WORK/freed.json" pmd_folios)" = "$ideal" ]
test_finish
