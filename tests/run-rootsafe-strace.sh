#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-strace.sh: strace -f of elfpmd -r as root over nobody's tree
# (a hard link, a subdirectory): no open, stat, link, rename or unlink
# names a path inside the tree; every one names a file in a directory held
# open; and the run does rewrite the files.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
have strace || skip_all "strace not found (Debian: strace)"
rootsafe_fresh
nobody_tree "mkdir -p a/b && cp '$ELF' a/b/prog && ln a/b/prog a/prog2 && cp '$ELF' top"
strace -f -qq -o "$W/strace.log" -e trace=open,openat,openat2,stat,lstat,newfstatat,statx,link,linkat,rename,renameat,renameat2,unlink,unlinkat,readlink,readlinkat,mkdir,mkdirat,chmod,fchmodat,chown,fchownat,utimensat,truncate \
	"$ELFPMD" -q -j2 -r "$T" >"$W/out" 2>&1
paths=$(grep -F "\"$T" "$W/strace.log" | sed 's/^[0-9]* *//' | head -5)
calls=$(grep -cE '(openat|newfstatat|linkat|renameat|unlinkat)\([0-9]+, "[^"/]+"' "$W/strace.log")
if [ -z "$paths" ] && [ "$calls" -gt 0 ]; then
	pass "strace: no call names a path inside the tree; $calls name a file in a directory held open"
else
	fail "strace: calls by path inside the tree: $paths"
fi
holds "strace: the run rewrote the files ($(tr '\n' ' ' <"$W/out"))" \
	'[ "$(stat -c %i "$T/a/b/prog")" = "$(stat -c %i "$T/a/prog2")" ] && ! cmp -s "$ELF" "$T/top"'
finish
