#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-sizes.sh: --pmd-size and --page-size reach the report; a page
# size the machine does not have is refused with the reason.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
expect_status 0 "--pmd-size 1M" "$ELFPMD" -n --json --pmd-size=1M "$CLI/sample"
grep -q '"pmd_size":1048576,"pmd_source":"--pmd-size"' "$WORK/out" && pass "pmd size from option" || fail "$(cat "$WORK/out")"
expect_status 1 "--page-size 64K on x86-64" "$ELFPMD" -n --page-size=64K "$CLI/sample"
expect_status 1 "--page-size 64K on x86-64 with --pmd-size" "$ELFPMD" -n --pmd-size=2M --page-size=64K "$CLI/sample"
grep -q '4K pages only' "$WORK/err" && pass "page size refused with reason" || fail "$(cat "$WORK/err")"
test_finish
