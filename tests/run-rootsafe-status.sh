#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-status.sh: elfpmd status of a process of nobody's that maps
# a file, deletes it and puts a symbolic link to a FIFO at "FILE
# (deleted)": status, run as root and as nobody, ends within 20 s and never
# opens the FIFO (a writer waiting for a reader stays blocked).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir m && head -c 4194304 /dev/urandom > m/blob"
# status_run WHO...: status of nobody's mapper, run by WHO (empty: root).
status_run () {
	local what=$1 writer mpid rc k
	shift
	"${AS_NOBODY[@]}" "$O/mapper" "$T/m/blob" >"$W/mapper.out" 2>&1 &
	mpid=$!
	for ((k = 0; k < 50; k++)); do grep -qs mapped "$W/mapper.out" && break; sleep 0.1; done
	"${AS_NOBODY[@]}" sh -c "rm -f '$T/m/blob' && rm -f '$T/fifo' && mkfifo '$T/fifo' \
		&& ln -s '$T/fifo' '$T/m/blob (deleted)'"
	# A writer that waits for a reader: it ends only if someone opens the FIFO.
	timeout 60 sh -c "echo x > '$T/fifo'" &
	writer=$!
	{ timeout -k 5 20 "$@" "$ELFPMD" status --json "$mpid" >"$W/status.out" 2>&1; rc=$?; } 2>/dev/null
	sleep 0.5
	if [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && kill -0 "$writer" 2>/dev/null; then
		pass "status as $what: ends (exit $rc) and never opens the FIFO the link points to"
	else
		fail "status as $what: exit $rc; the FIFO's writer $(kill -0 "$writer" 2>/dev/null && echo 'still waits' || echo 'was let through: the FIFO was opened')"
	fi
	kill "$writer" "$mpid" 2>/dev/null
	wait "$writer" "$mpid" 2>/dev/null
	rm -f "$T/m/blob (deleted)"
	"${AS_NOBODY[@]}" sh -c "head -c 4194304 /dev/urandom > '$T/m/blob'"
}
status_run root
status_run nobody "${AS_NOBODY[@]}"
finish
