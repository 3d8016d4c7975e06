#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-prime-fifo.sh: elfpmd prime as root of a file of nobody's
# exchanged for a FIFO after its first open ends within 20 s; so does
# prime -T LIST (what the dpkg trigger and the systemd unit run) when the
# name, resolved in its directory and looked at (an O_PATH open of
# "prog"), is exchanged before it is opened (lib.sh: the racer).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir p && cp '$ELF' p/prog"
"$ELFPMD" -q "$T/p/prog" >/dev/null 2>&1
{ racing "$T/p/prog" "" open,openat "$T/p/prog" env RACER_SKIP=1 RACER_FIFO=1 \
	timeout -k 5 20 "$ELFPMD" prime -q "$T/p/prog" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
holds "prime: ends within 20 s (exit $rc)" '[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]'
rm -rf "$T/p/prog" "$T/p/prog".* "$W/racer.log"
"${AS_NOBODY[@]}" cp "$ELF" "$T/p/prog"
printf '%s\n' "$T/p/prog" > "$W/prime.list"
{ racing "$T/p/prog" "" open,openat prog env RACER_SKIP=1 RACER_FIFO=1 \
	timeout -k 5 20 "$ELFPMD" prime -q -T "$W/prime.list" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
raced "prime -T LIST"
holds "prime -T LIST: ends within 20 s (exit $rc: $(head -1 "$W/out"))" '[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]'
finish
