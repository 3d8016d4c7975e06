#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-json.sh: --json prints one line per file, errors included, that
# parses with the status and the segment to change.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/j"
printf 'not elf\n' > "$WORK/c"
expect_status 1 "--json over good and bad" "$ELFPMD" -n --json "$WORK/j" "$WORK/c" "$CLI/small"
[ "$(wc -l < "$WORK/out")" -eq 3 ] && pass "three JSON lines" || fail "JSON lines: $(wc -l < "$WORK/out")"
if have python3; then
	python3 - "$WORK/out" <<'PY' && pass "JSON parses, statuses right" || fail "JSON content"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["status"] == "would change" and rows[0]["changed"] is True, rows[0]
assert rows[1]["status"] == "error" and rows[1]["error"] == "not an ELF file", rows[1]
assert rows[2]["status"] == "nothing eligible" and rows[2]["changed"] is False, rows[2]
seg = [s for s in rows[0]["segments"] if s["new_align"] != s["align"]]
assert len(seg) == 1 and seg[0]["new_align"] == 2097152 and seg[0]["flags"] == "R-X", seg
PY
else
	skip "python3 missing: JSON not parsed"
fi
test_finish
