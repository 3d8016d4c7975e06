#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-json.sh: elfpmd status --json PID... says for each paused program
# (lib.sh: elfpmd status; orig, align, mad, lib, gone, moved) what an
# independent reading says (tests/status-json.py, a parser of /proc/PID/smaps
# and tests/phdr-dump, sharing no code with elfpmd):
#   - whole_chunks: the 2 MiB chunks of the object's executable mappings
#     whose address and file offset are both 2 MiB-aligned;
#   - file_pmd_mapped_kb: the FilePmdMapped of those mappings, summed, and
#     pmd_mapped_chunks that divided by 2 MiB;
#   - aligned, stub, gain_chunks: orig not aligned, gaining what phdr-dump
#     counts in align's file; align aligned without the stub; mad, lib,
#     gone and moved aligned with the stub (gone and moved are read through
#     /proc/PID/map_files, as root);
#   - mad's text on PMD pages (>= 95% of the ideal) where file THP works
#     here (fixtures/pagecache.c probe), so that the sums are not all 0;
#   - touched_chunks: the whole chunks with a page present or swapped in
#     /proc/PID/pagemap (read here), small_chunks those of them not on huge
#     pages, unused_chunks the rest of the whole ones;
#   - the JSON schema: every process object and the summary with their
#     keys and types; the summary's totals are the sums of the rows.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
status_files

file_thp=false
if [ -x "$O/pagecache" ]; then
	head -c $((4 << 20)) /dev/urandom >"$WORK/probe.dat"
	if probe=$("$O/pagecache" probe "$WORK/probe.dat" 2>&1); then
		file_thp=true
	fi
	note "file THP probe here: ${probe:-none}"
	rm -f "$WORK/probe.dat"
fi

status_start orig align mad lib gone moved
ideal_lib=0
$have_lib && ideal_lib=$(ideal_chunks "$FILES/lib/libmadbig.so")
note "whole chunks once aligned: mad-pie $ideal, libmadbig.so $ideal_lib"

# What each label's file must say (aligned stub gain), and on which object.
declare -A object expect
for l in $labels; do object[$l]=mad-pie; done
expect[orig]="false false $ideal"
expect[align]="true false 0"
expect[mad]="true true 0"
expect[lib]="true true 0"
expect[gone]="true true 0"
expect[moved]="true true 0"
object[lib]=libmadbig.so
object[moved]=old
spec=()
for l in $labels; do
	p=pid_$l
	spec+=("$l:${!p}:${object[$l]}:${expect[$l]// /,}")
done

"$ELFPMD" status --json "${pid_list[@]}" >"$WORK/status.json" 2>"$WORK/status.err"
rc=$?
check "status --json of ${#pid_list[@]} processes exits 0 (got $rc)" [ $rc = 0 ]
check "status --json prints nothing on stderr" [ ! -s "$WORK/status.err" ]

python3 "$TESTS_SRCDIR/status-json.py" "$WORK/status.json" "$PMD" "$file_thp" "${spec[@]}" >"$WORK/compare.out" 2>&1
while IFS= read -r line; do
	case $line in
	PASS:*) pass "${line#PASS: }" ;;
	FAIL:*) fail "${line#FAIL: }" ;;
	*) note "$line" ;;
	esac
done <"$WORK/compare.out"
test_finish
