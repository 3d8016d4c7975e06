#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-dry-run.sh: a dry run (-n, and its alias --check) reports what
# it would change and writes nothing.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/d"
sig=$(file_signature "$WORK/d")
expect_status 0 "dry run" "$ELFPMD" -n "$WORK/d"
grep -q 'result: would change' "$WORK/out" && pass "dry run says it would change" || fail "dry run report: $(cat "$WORK/out")"
check "dry run leaves the file alone" test "$sig" = "$(file_signature "$WORK/d")"
expect_status 0 "--check alias" "$ELFPMD" --check "$WORK/d"
check "--check leaves the file alone" test "$sig" = "$(file_signature "$WORK/d")"
test_finish
