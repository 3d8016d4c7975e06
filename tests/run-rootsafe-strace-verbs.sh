#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-strace-verbs.sh: strace -f of elfpmd reapply and elfpmd
# revert as root over nobody's tree: no call names a path inside the tree,
# no rename or link by path; the name is replaced by renameat in the
# directory held open.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
have strace || skip_all "strace not found (Debian: strace)"
for verb in reapply revert; do
	rootsafe_${verb}_setup
	strace -f -qq -o "$W/strace.$verb" -e trace=open,openat,openat2,stat,lstat,newfstatat,statx,link,linkat,rename,renameat,renameat2,unlink,unlinkat,truncate \
		"$ELFPMD" $verb -q --manifest="$W/M" >"$W/out" 2>&1
	rc=$?
	paths=$(grep -F "\"$T" "$W/strace.$verb" | sed 's/^[0-9]* *//' | head -3)
	byname=$(grep -cE '(rename|renameat|renameat2|link|linkat)\((AT_FDCWD, )?"/' "$W/strace.$verb")
	renames=$(grep -cE 'renameat2?\([0-9]+, "[^"/]+", [0-9]+, "prog"' "$W/strace.$verb")
	holds "strace $verb: exit 0 (got $rc), no call names a path inside the tree, no rename or link by path ($byname), the name replaced through the directory held ($renames) ${paths:+: $paths}" \
		'[ $rc -eq 0 ] && [ -z "$paths" ] && [ "$byname" -eq 0 ] && [ "$renames" -ge 1 ]'
done
finish
