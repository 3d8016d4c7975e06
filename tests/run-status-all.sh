#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-all.sh: elfpmd status without PIDs reports on every process
# this user can read: every paused program (lib.sh: elfpmd status) among
# them; status -q prints the summary line only.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
status_files
status_start orig align mad lib gone moved
"$ELFPMD" status --json >"$WORK/all.json" 2>"$WORK/all.err"
rc=$?
check "status --json of every process exits 0 (got $rc)" [ $rc = 0 ]
missing=
for p in "${pid_list[@]}"; do
	grep -q "^{\"pid\":$p," "$WORK/all.json" || missing="$missing $p"
done
check "status without PIDs lists every paused program${missing:+ (missing:$missing)}" [ -z "$missing" ]
"$ELFPMD" status -q >"$WORK/quiet.txt" 2>&1
check "status -q prints the summary line only" [ "$(wc -l <"$WORK/quiet.txt")" = 1 ]
test_finish
