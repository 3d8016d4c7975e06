#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-nobody.sh: elfpmd status as nobody (setpriv, as root): the
# root-owned processes are counted unreadable and skipped, and named (the
# paused mad-pie among them), exit 0; a root-owned PID named: exit 1, one line
# naming it.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
[ "$(id -u)" = 0 ] && have setpriv || skip_all "not root or no setpriv: the unreadable-process checks"
status_files
status_start mad
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
"${as_nobody[@]}" "$ELFPMD" status --json >"$WORK/nobody.json" 2>"$WORK/nobody.err"
rc=$?
unreadable=$(tail -1 "$WORK/nobody.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["unreadable"])' 2>/dev/null)
holds "as nobody: exit 0 (got $rc), root's processes counted unreadable (${unreadable:-none})" \
	'[ $rc = 0 ] && [ "${unreadable:-0}" -gt 0 ]'
check "as nobody: no line on stderr for the unreadable ones" [ ! -s "$WORK/nobody.err" ]
# shellcheck disable=SC2154  # status_start sets pid_LABEL
named=$(tail -1 "$WORK/nobody.json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
u = s["unreadable_processes"]
print(len(u) == s["unreadable"] and any(x["pid"] == int(sys.argv[1]) and x["comm"] == "mad-pie" for x in u))' "$pid_mad" 2>&1)
check "as nobody: the unreadable processes are named, mad-pie ($pid_mad) among them ($named)" [ "$named" = True ]
"${as_nobody[@]}" "$ELFPMD" status >"$WORK/nobody.txt" 2>&1
check "as nobody: the text summary names unreadable processes" \
	grep -Eq "unreadable, skipped: [0-9]+ [^ ]" "$WORK/nobody.txt"
"$ELFPMD" status "$pid_mad" >/dev/null 2>&1
"${as_nobody[@]}" "$ELFPMD" status "$pid_mad" >/dev/null 2>"$WORK/nobody1.err"
rc=$?
holds "as nobody, root's PID named: exit 1 (got $rc), one line naming it ($(cat "$WORK/nobody1.err"))" \
	'[ $rc = 1 ] && [ "$(wc -l <"$WORK/nobody1.err")" = 1 ] && grep -q "status: $pid_mad: " "$WORK/nobody1.err"'
test_finish
