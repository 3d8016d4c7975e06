#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-text.sh: elfpmd status without --json: a row per object with the
# figures --json gives, orig's row saying not aligned and what aligning
# gains, and the summary line.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
status_files
status_start orig mad
"$ELFPMD" status --json "${pid_list[@]}" >"$WORK/status.json" 2>"$WORK/status.err"
"$ELFPMD" status "${pid_list[@]}" >"$WORK/status.txt" 2>&1
rc=$?
check "status (text) exits 0 (got $rc)" [ $rc = 0 ]
# shellcheck disable=SC2154  # status_start sets pid_LABEL
row=$(awk -v p="$pid_mad" '$1 == p && $NF ~ /\/mad\/mad-pie$/' "$WORK/status.txt")
json_row=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("pid") == int(sys.argv[2]):
        o = [o for o in d["objects"] if o["path"].endswith("/mad/mad-pie")][0]
        print("%d/%d %d yes yes" % (o["pmd_mapped_chunks"], o["whole_chunks"], o["file_pmd_mapped_kb"]))' \
	"$WORK/status.json" "$pid_mad")
got_row=$(echo "$row" | awk '{ print $4, $5, $7, $8 }')
check "text row of mad says what the JSON says ($json_row; row: $row)" [ "$got_row" = "$json_row" ]
# shellcheck disable=SC2154  # status_start sets pid_LABEL
row=$(awk -v p="$pid_orig" '$1 == p && $NF ~ /\/orig\/mad-pie$/' "$WORK/status.txt")
check "text row of orig says not aligned, +$ideal chunks ($row)" [ "$(echo "$row" | awk '{ print $7 }')" = "no,+$ideal" ]
check "text report ends with the summary line" grep -q "^elfpmd status: ${#pid_list[@]} processes, " "$WORK/status.txt"
test_finish
