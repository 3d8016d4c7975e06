#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-prime-link.sh: elfpmd prime -T LIST as root refuses a name in
# the list through a symbolic link of nobody's (which nobody could point
# anywhere at any moment), as the rewrite refuses one on its command line:
# root reads and evicts no file nobody chose.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir p && cp '$ELF' p/prog && ln -s p link"
printf '%s\n' "$T/link/prog" > "$W/prime.list"
{ timeout -k 5 20 "$ELFPMD" prime -T "$W/prime.list" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
holds "prime -T LIST: a name through nobody's symbolic link is refused (exit $rc: $(grep -m1 'elfpmd prime:' "$W/out"))" \
	'[ "$rc" -eq 1 ] && grep -q "^elfpmd prime: $T/link/prog: the symbolic link link on the way belongs to another user" "$W/out" \
	 && grep -q "1 failed" "$W/out"'
finish
