#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-unknown-machine.sh: a machine elfpmd knows no PMD size for
# (e_machine EM_MIPS) is refused with exit 2 and a reason naming --pmd-size,
# and processed with --pmd-size and any page size within the bounds.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/mips"
printf '\010\000' | dd of="$WORK/mips" bs=1 seek=18 conv=notrunc status=none
sig=$(file_signature "$WORK/mips")
expect_status 2 "unknown machine without --pmd-size" "$ELFPMD" "$WORK/mips"
grep -q "^elfpmd: $WORK/mips: mips: .*--pmd-size" "$WORK/err" && pass "reason names the machine and the option" || fail "stderr: $(cat "$WORK/err")"
check "unknown-machine file untouched" test "$sig" = "$(file_signature "$WORK/mips")"
expect_status 0 "unknown machine with --pmd-size" "$ELFPMD" -q --pmd-size=2M "$WORK/mips"
# The bounds themselves are accepted (a machine elfpmd does not know takes
# any page size from them).
for page in 4K 256K; do
	expect_status 0 "unknown machine with --pmd-size=2M --page-size=$page" "$ELFPMD" -n --json --pmd-size=2M --page-size=$page "$WORK/mips"
	grep -q "\"page_size\":$(( ${page%K} * 1024 ))," "$WORK/out" && pass "page size $page in the report" || fail "$(cat "$WORK/out")"
done
expect_status 0 "--pmd-size=4K --page-size=4K" "$ELFPMD" -n --pmd-size=4K --page-size=4K "$CLI/sample"
test_finish
