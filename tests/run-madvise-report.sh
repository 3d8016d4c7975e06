#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-report.sh: elfpmd -n --json --madvise on each 17 MiB fixture
# exits 0, leaves the file alone and reports "stub":{"injected":true,...}
# with the hook (e_entry, DT_INIT for the library), at least one range and
# as many chunks as the rewritten file's program headers allow (counted
# here by phdr-dump); the rewrite with -q exits 0 and prints nothing.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup

# stub_report JSON HOOK IDEAL: the dry run's "stub" object: injected, hooked
# as HOOK says, IDEAL chunks.
stub_report () {
	python3 - "$@" <<'EOF_PY'
import json, sys
path, hook, ideal = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path).read().splitlines()
if len(lines) != 1:
    sys.exit("expected one line of JSON, got %d" % len(lines))
try:
    r = json.loads(lines[0])
except ValueError as e:
    sys.exit("not JSON: %s" % e)
s = r.get("stub")
if not isinstance(s, dict):
    sys.exit("no \"stub\" object")
errors = []
if s.get("injected") is not True:
    errors.append("injected is %r (%s)" % (s.get("injected"), s.get("reason")))
if not str(s.get("hook", "")).startswith(hook):
    errors.append("hook %r, expected %s" % (s.get("hook"), hook))
if s.get("chunks") != ideal:
    errors.append("chunks %r, the program headers allow %d" % (s.get("chunks"), ideal))
if not isinstance(s.get("ranges"), int) or s.get("ranges") < 1:
    errors.append("ranges %r" % s.get("ranges"))
if errors:
    sys.exit("; ".join(errors))
print("hook %r, %d range(s), %d chunks, stub of %s bytes at offset %#x" % (
    s["hook"], s["ranges"], s["chunks"], s.get("size"), s.get("segment_offset", 0)))
EOF_PY
}

report () {
	local msg
	"$ELFPMD" -n --json --madvise "$w/orig/$file" >"$w/report.json" 2>"$w/report.err"
	check "$name: -n --json --madvise exits 0" test $? -eq 0
	check "$name: -n --json --madvise leaves the file alone" cmp -s "$O/$file" "$w/orig/$file"
	mad_rewrite || return
	pass "$name: elfpmd -q --madvise exits 0"
	[ -s "$w/rewrite.log" ] && fail "$name: elfpmd -q --madvise printed something: $(head -3 "$w/rewrite.log")"
	if msg=$(stub_report "$w/report.json" "$hook" "$(ideal_chunks "$r")" 2>&1); then
		pass "$name: -n --json --madvise: stub injected: $msg"
	else
		fail "$name: -n --json --madvise: $msg"
		grep -o '"stub":.*' "$w/report.json" | head -c 400 | sed 's/^/      /'; echo
	fi
}
for_each_mad_fixture report
finish
