#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-madvise.sh: with --madvise the stub's summary, text and JSON,
# adds up to the per-file reports (a dry run over the staging tree), on its
# own line before the summary; without --madvise there is no such line.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_tree "$WORK/orig"
"$ELFPMD" -r -n -j2 --madvise --json "$WORK/orig" >"$WORK/out-stub.json" 2>/dev/null
"$ELFPMD" -r -n -j2 --madvise "$WORK/orig" >"$WORK/out-stub" 2>/dev/null
python3 - "$WORK/out-stub.json" <<'EOF_PY' && pass "--madvise: the summary's stubs add up to the files' reports" || fail "--madvise: stub summary"
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]["summary"]["stubs"]
stubs = [r["stub"] for r in rows[:-1] if "stub" in r and r.get("status") not in ("skipped", "failed")]
assert s["injected"] == sum(1 for x in stubs if x["injected"]) > 0, (s, stubs)
why = collections.Counter(x["reason"] for x in stubs if not x["injected"])
assert s["not_injected"] == sum(why.values()) and s["not_injected_by_reason"] == dict(why), (s, why)
EOF_PY
injected=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["summary"]["stubs"]["injected"])' "$WORK/out-stub.json" 2>/dev/null)
stub_line=$(tail -2 "$WORK/out-stub" | head -1)
case $stub_line in
"elfpmd: startup stub: ${injected:-x} would be injected, "[0-9]*" would not be"*) pass "--madvise: the stub's line before the summary: $stub_line" ;;
*) fail "--madvise: no stub line: $(tail -2 "$WORK/out-stub")" ;;
esac
"$ELFPMD" -r -j2 -p --exclude='skipme' --exclude='*/usr/bin/excluded-*' "$WORK/orig" > "$WORK/out" 2>/dev/null
if tail -2 "$WORK/out" | grep -q 'startup stub'; then fail "without --madvise: a stub line"; else pass "without --madvise: no stub line"; fi
test_finish
