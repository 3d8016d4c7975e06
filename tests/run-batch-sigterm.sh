#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-sigterm.sh: SIGTERM to the whole run (parent and workers) at
# some moment: whatever the moment, no temporary file or worker is left, and
# every file is either the original or a whole aligned file that runs.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
sig=$WORK/sig
mkdir -p "$sig"
for i in $(seq 1 40); do cp "$BATCH/prog" "$sig/p$i"; done
setsid "$ELFPMD" -r -j2 "$sig" > /dev/null 2>&1 &
pid=$!
sleep 0.1
kill -TERM -- "-$pid" 2> /dev/null
wait "$pid"
st=$?
note "SIGTERM: exit status $st"
# A worker in the middle of an fsync dies when it returns: wait for that.
for _ in $(seq 1 50); do
	[ -z "$(pgrep -s "$pid" 2> /dev/null)" ] && break
	sleep 0.1
done
left=$(pgrep -s "$pid" 2> /dev/null)
# shellcheck disable=SC2086  # the PIDs are words
check "SIGTERM: no worker left${left:+: $(ps -o pid,stat,wchan:20,cmd -p "$(echo $left | tr ' ' ,)" | tail -n +2)}" test -z "$left"
check "SIGTERM: no temporary file left" test -z "$(find "$sig" -name '.elfpmd*')"
whole=0 orig=0
for i in $(seq 1 40); do
	if cmp -s "$sig/p$i" "$BATCH/prog"; then
		orig=$((orig + 1))
	elif "$PHDR_DUMP" --expect-relaxed 0x200000 "$sig/p$i" > /dev/null 2>&1 \
		&& LD_LIBRARY_PATH=$BATCH "$sig/p$i" > /dev/null 2>&1; then
		whole=$((whole + 1))
	fi
done
check "SIGTERM: each file original ($orig) or aligned and running ($whole)" test $((orig + whole)) -eq 40
test_finish
