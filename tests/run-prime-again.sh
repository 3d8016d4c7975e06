#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-again.sh: a second elfpmd prime finds every chunk there already
# (0 primed); the original (not aligned): "nothing to prime", exit 0.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require orig align
"$ELFPMD" prime -q "$WORK/align/mad-pie"
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/again.json"
holds "a second prime finds every chunk there already ($(cat "$WORK/again.json"))" \
	'[ "$(json "$WORK/again.json" primed)" = 0 ] && [ "$(json "$WORK/again.json" already)" = "$(ideal_chunks "$WORK/align/mad-pie")" ]'
out=$("$ELFPMD" prime "$WORK/orig/mad-pie" 2>&1)
rc=$?
holds "the original: exit 0 (got $rc), nothing to prime: not aligned ($out)" \
	'[ $rc = 0 ] && [[ $out == *"nothing to prime"*"not aligned"* ]]'
test_finish
