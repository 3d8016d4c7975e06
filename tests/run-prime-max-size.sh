#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-max-size.sh: a file larger than --max-size (an aligned program
# with a sparse tail making it 1 GiB and 4 KiB) is not primed by default, the
# report says why; the sanity arm: with --max-size=2G the same file is
# primed; --max-size=1x is a usage error.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
ideal=$(ideal_chunks "$WORK/align/mad-pie")
big=$WORK/big/mad-pie
mkdir -p "$WORK/big" && cp "$WORK/align/mad-pie" "$big" && truncate -s $(((1 << 30) + 4096)) "$big" \
	|| hard_error "cannot make $big"
"$PAGECACHE" evict "$big" >/dev/null 2>&1
"$ELFPMD" prime --json "$big" >"$WORK/big.json" 2>"$WORK/big.err"
rc=$?
holds "a file of 1 GiB + 4 KiB: exit 0 (got $rc), not primed, larger than --max-size ($(cat "$WORK/big.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/big.json" primed)" = 0 ] && json "$WORK/big.json" reason | grep -q "larger than --max-size (1073745920 bytes, 1073741824 at most)"'
"$ELFPMD" prime --json --max-size=2G "$big" >"$WORK/big2.json" 2>&1
rc=$?
holds "sanity: with --max-size=2G it is primed: $ideal chunks ($(cat "$WORK/big2.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/big2.json" pmd_folios)" = "$ideal" ] && [ "$(json "$WORK/big2.json" reason)" = null ]'
"$ELFPMD" prime --max-size=1x "$big" >/dev/null 2>&1
rc=$?
check "--max-size=1x: usage error 64 (got $rc)" [ $rc = 64 ]
rm -rf "$WORK/big"
test_finish
