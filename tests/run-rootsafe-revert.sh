#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-revert.sh: root converted nobody's tree/d/prog keeping its
# original in a directory of root's; right before revert renames the
# original back over the name, nobody's tree/d becomes a symbolic link to
# root's victim directory (lib.sh: the racer): the rename happens in the
# directory revert holds open, the victim untouched.  The sanity arm: the
# same race against a rename by path (mv) replaces root's victim/prog.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_revert_setup
racing "$T/d" "$V" renameat,rename prog "$ELFPMD" revert -q --manifest="$W/M" >"$W/out" 2>&1
rc=$?
raced "revert"
victim_untouched "revert"
holds "revert: exit 0, the original back in the directory it held ($(head -1 "$W/out"))" \
	'[ $rc -eq 0 ] && cmp -s "$ELF" "$T/d.orig/prog"'
rootsafe_revert_setup
cp "$ELF" "$W/prog.x" && printf x >>"$W/prog.x" && cp "$W/prog.x" "$W/prog.want"
racing "$T/d" "$V" renameat,rename,renameat2 prog mv "$W/prog.x" "$T/d/prog" >"$W/out" 2>&1
if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null && cmp -s "$V/prog" "$W/prog.want"; then
	pass "sanity: the same race against a rename by path (mv) replaces root's victim/prog"
elif ! grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null; then
	skip "sanity: mv renamed through a call the racer does not wrap ($(cat "$W/out"))"
else
	fail "sanity: the race against mv did not reach root's file: the check above proves less"
fi
finish
