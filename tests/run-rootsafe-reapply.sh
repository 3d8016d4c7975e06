#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-reapply.sh: root converted nobody's tree/d/prog with
# --manifest; nobody replaced it (an upgrade).  Right before the elfpmd
# that reapply runs looks at the name (its first fstatat of "prog"), the
# name becomes a symbolic link of root's to root's victim/prog (lib.sh:
# the racer): the conversion refuses it (exit 1), the victim untouched.
# The sanity arm: the same race against the command reapply ran before
# (elfpmd --madvise NAME, no --expect-inode) converts root's file.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_reapply_setup
racing "$T/d/prog" "$V/prog" fstatat,newfstatat,lstat prog "$ELFPMD" reapply -q --manifest="$W/M" >"$W/out" 2>&1
rc=$?
raced "reapply"
victim_untouched "reapply"
holds "reapply: exit 1, the swapped name refused ($(head -1 "$W/out"))" '[ $rc -eq 1 ] && grep -q "replaced while the run was under way" "$W/out"'
rootsafe_reapply_setup
racing "$T/d/prog" "$V/prog" fstatat,newfstatat,lstat prog "$ELFPMD" -q --madvise "$T/d/prog" >"$W/out" 2>&1
if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null && ! sha256sum -c --quiet "$W/victim.sum" >/dev/null 2>&1; then
	pass "sanity: the same race against elfpmd --madvise NAME (reapply's command before) converts root's victim/prog"
else
	fail "sanity: the race against elfpmd --madvise NAME did not reach root's file ($(cat "$W/racer.log" 2>/dev/null)): the check above proves nothing"
fi
finish
