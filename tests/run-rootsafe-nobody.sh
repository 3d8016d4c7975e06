#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-nobody.sh: what root is refused, nobody may do over its own
# tree: elfpmd -r as nobody rewrites its files, and a name through its own
# symbolic link is rewritten too.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir -p d && cp '$ELF' d/prog && ln -s d dlink"
"${AS_NOBODY[@]}" "$ELFPMD" -q -r "$T" >"$W/out" 2>&1
rc=$?
"${AS_NOBODY[@]}" "$ELFPMD" -q "$T/dlink/prog" >>"$W/out" 2>&1
rc2=$?
holds "nobody: -r over its tree and a name through its own link work (exit $rc, $rc2: $(tr '\n' ' ' <"$W/out"))" \
	'[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && ! cmp -s "$ELF" "$T/d/prog"'
finish
