#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-errors.sh: elfpmd prime of a file that is not ELF and of a
# missing file: exit 1, one line naming each, the other files still primed;
# no FILE: usage error 64.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
ideal=$(ideal_chunks "$WORK/align/mad-pie")
printf 'not an ELF file\n' >"$WORK/text"
"$ELFPMD" prime "$WORK/text" "$WORK/missing" "$WORK/align/mad-pie" >"$WORK/err.out" 2>"$WORK/err.err"
rc=$?
holds "a text file and a missing file: exit 1 (got $rc), one line on stderr for each" \
	'[ $rc = 1 ] && [ "$(wc -l <"$WORK/err.err")" = 2 ] && grep -q "^elfpmd prime: $WORK/text: " "$WORK/err.err" && grep -q "^elfpmd prime: $WORK/missing: " "$WORK/err.err"'
check "... and the good file after them is still primed ($(cat "$WORK/err.out"))" \
	grep -q "^$WORK/align/mad-pie: $ideal of $ideal chunks" "$WORK/err.out"
"$ELFPMD" prime >/dev/null 2>&1
rc=$?
check "prime without FILE: usage error 64 (got $rc)" [ $rc = 64 ]
test_finish
