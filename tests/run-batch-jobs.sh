#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-jobs.sh: -j1 and -j2 over the staging tree print the same bytes
# and write the same bytes; the JSON lines parse and the summary object adds
# up.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_tree "$WORK/orig"
for j in 1 2; do
	cp -a "$WORK/orig" "$WORK/tree-j$j"
	"$ELFPMD" -r -j$j --json "$WORK/tree-j$j" 2>&1 | sed "s|tree-j$j|tree-J|g" > "$WORK/out-j$j"
done
check "-j1 and -j2 print the same" cmp -s "$WORK/out-j1" "$WORK/out-j2"
diff -r -x fifo "$WORK/tree-j1" "$WORK/tree-j2" > /dev/null 2>&1 && pass "-j1 and -j2 write the same bytes" \
	|| fail "-j1 and -j2 outputs differ"
python3 - "$WORK/out-j1" <<'EOF_PY' && pass "JSON lines parse; the summary object adds up" || fail "JSON summary"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]["summary"]
parts = ("changed", "would_change", "already_aligned", "padding_refused", "needs_padding",
         "nothing_eligible", "skipped", "failed", "hard_links")
assert sum(s[k] for k in parts) == s["files"], s
assert sum(s["skipped_by_reason"].values()) == s["skipped"], s
assert len(rows) - 1 == s["changed"] + s["hard_links"], (len(rows), s)
EOF_PY
test_finish
