#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-no-sync.sh: --no-sync writes the same bytes.  Without sync the
# new file takes the name by exchange (renameat2 RENAME_EXCHANGE) and the old
# one is removed: a hard link keeps the old contents, nothing is left under a
# temporary name, the mode is kept; with sync it is renamed over.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/ns1"; cp "$CLI/sample" "$WORK/ns2"
"$ELFPMD" -q "$WORK/ns1" && "$ELFPMD" -q --no-sync "$WORK/ns2"
check "--no-sync output identical" cmp -s "$WORK/ns1" "$WORK/ns2"
mkdir "$WORK/nsd"
cp "$CLI/sample" "$WORK/nsd/p"; chmod 750 "$WORK/nsd/p"; ln "$WORK/nsd/p" "$WORK/nsd/q"
"$ELFPMD" -q --no-sync "$WORK/nsd/p" 2>"$WORK/err"
check "--no-sync: the named file rewritten" cmp -s "$WORK/nsd/p" "$WORK/ns1"
check "--no-sync: its other hard link keeps the old contents" cmp -s "$WORK/nsd/q" "$CLI/sample"
check "--no-sync: the mode kept" test "$(stat -c %a "$WORK/nsd/p")" = 750
check "--no-sync: nothing else in the directory ($(ls -A "$WORK/nsd" | tr '\n' ' '))" \
	test "$(ls -A "$WORK/nsd" | tr '\n' ' ')" = "p q "
have strace || { skip "no strace: how --no-sync replaces the name"; test_finish; }
# LeakSanitizer cannot run under ptrace (the sanitizer build runs this
# file too): no leak check in the traced runs.
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
cp "$CLI/sample" "$WORK/nsd/p"
ASAN_OPTIONS=$traced_asan strace -f -e trace=rename,renameat,renameat2,unlink,unlinkat -o "$WORK/nsd-trace" \
	"$ELFPMD" -q --no-sync "$WORK/nsd/p" || fail "--no-sync under strace"
# Can this file system exchange names?  Asked without elfpmd's code.
: >"$WORK/nsd/x1"; : >"$WORK/nsd/x2"
can=$(python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
print("yes" if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) == 0 else "no")' \
	"$WORK/nsd/x1" "$WORK/nsd/x2" 2>/dev/null)
rm -f "$WORK/nsd/x1" "$WORK/nsd/x2"
if [ "$can" = yes ]; then
	check "--no-sync: the names exchanged, then the old file removed under the temporary name" \
		sh -c "grep -q 'RENAME_EXCHANGE) = 0' '$WORK/nsd-trace' && grep -q 'unlinkat(.*\"\.elfpmd\.[^\"]*\", 0) = 0' '$WORK/nsd-trace'"
else
	skip "--no-sync: this file system cannot exchange names (${can:-no python3})"
fi
cp "$CLI/sample" "$WORK/nsd/p"
ASAN_OPTIONS=$traced_asan strace -f -e trace=renameat,renameat2 -o "$WORK/nsd-trace" "$ELFPMD" -q "$WORK/nsd/p" || fail "elfpmd under strace"
check "with sync: renamed over, not exchanged" sh -c "! grep -q RENAME_EXCHANGE '$WORK/nsd-trace'"
test_finish
