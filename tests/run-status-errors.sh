#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-errors.sh: elfpmd status of a PID that does not exist: exit 1,
# one line naming it; of "abc": usage error, 64; and a file named status is
# still a file elfpmd processes as ./status.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
status_fixtures
"$ELFPMD" status 2147483646 >/dev/null 2>"$WORK/nopid.err"
rc=$?
holds "a PID that does not exist: exit 1 (got $rc), one line naming it" \
	'[ $rc = 1 ] && [ "$(cat "$WORK/nopid.err")" = "elfpmd status: 2147483646: no such process" ]'
"$ELFPMD" status abc >/dev/null 2>&1
rc=$?
check "status abc: usage error 64 (got $rc)" [ $rc = 64 ]
cp "$O/mad-pie" "$WORK/status"
(cd "$WORK" && "$ELFPMD" -n ./status) >"$WORK/file-status.out" 2>&1
rc=$?
holds "elfpmd -n ./status reports on the file status (exit $rc)" \
	'[ $rc = 0 ] && grep -q "^\./status: x86-64" "$WORK/file-status.out"'
test_finish
