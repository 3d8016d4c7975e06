#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-several-files.sh: several files in one run, one of them failing:
# the others are still processed, the bad one is untouched and named in one
# line, exit 1; a missing file, a directory.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/a"; cp "$CLI/sample" "$WORK/b"; printf 'not elf\n' > "$WORK/c"
sigc=$(file_signature "$WORK/c")
expect_status 1 "one bad file among three" "$ELFPMD" "$WORK/a" "$WORK/c" "$WORK/b"
[ "$(wc -l < "$WORK/err")" -eq 1 ] && grep -q "^elfpmd: $WORK/c: not an ELF file$" "$WORK/err" \
	&& pass "exactly one error line naming the file" || fail "stderr: $(cat "$WORK/err")"
check "bad file untouched" test "$sigc" = "$(file_signature "$WORK/c")"
! cmp -s "$WORK/a" "$CLI/sample" && ! cmp -s "$WORK/b" "$CLI/sample" && pass "good files rewritten" || fail "good files not rewritten"
grep -c ': changed' "$WORK/out" | grep -qx 2 && pass "summary line per rewritten file" || fail "summary: $(cat "$WORK/out")"
expect_status 1 "missing file" "$ELFPMD" "$WORK/nonexistent"
grep -q "^elfpmd: $WORK/nonexistent: cannot open: No such file or directory$" "$WORK/err" && pass "missing file named" || fail "stderr: $(cat "$WORK/err")"
expect_status 1 "directory" "$ELFPMD" "$WORK"
test_finish
