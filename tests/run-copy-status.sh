#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-status.sh: elfpmd status counts a copy with its object.  On ext4
# mounted data=journal, mad-pie's --madvise=copy rewrite, paused once its
# text is copied (FIXTURE_PAUSE): elfpmd status --json PID says, for that
# object, copied_huge_kb = the anonymous text on huge pages that smaps
# shows = the ideal, and pmd_mapped_chunks = whole_chunks = the ideal
# chunks.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/copy"

pids=()
CLEANUP+=('kill "${pids[@]}"; wait "${pids[@]}"')
start_paused copy "$J/copy"
# shellcheck disable=SC2154  # pid_copy: set by start_paused
"$ELFPMD" status --json "$pid_copy" >"$WORK/status.json" 2>"$WORK/status.err"
read -r copied chunks whole <<<"$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    for o in d.get("objects", []):
        if o["path"].endswith("/copy"):
            print(o["copied_huge_kb"], o["pmd_mapped_chunks"], o["whole_chunks"])' "$WORK/status.json")"
want=$(copy_anon_kb "$WORK/copy.smaps")
holds "data=journal, status of a paused copy: copied_huge_kb ${copied:-none} = smaps' $want = ideal $IDEAL_KB, pmd_mapped_chunks ${chunks:-none} of ${whole:-none}" \
	'[ "${copied:-x}" = "$want" ] && [ "$want" -eq "$IDEAL_KB" ] && [ "${chunks:-x}" = "$IDEAL" ] && [ "${whole:-x}" = "$IDEAL" ]'
stub_finish
