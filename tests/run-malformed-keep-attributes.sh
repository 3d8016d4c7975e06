#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-keep-attributes.sh: what a rewrite in place must keep, as
# root: owner, set-id bits, mode, extended attributes, file capabilities.
# Then notes (no check) on how it treats a symbolic link and a hard link.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
[ "$(id -u)" = 0 ] || skip_all "needs root to give a file away and set capabilities"
K=$WORK/keep
mkdir -p "$K"
cp "$S/bigpie" "$K/keep.elf"
chown 65534:65534 "$K/keep.elf" && chmod 6751 "$K/keep.elf"
want_attr=""
if have setfattr && setfattr -n user.elfpmd -v kept "$K/keep.elf" 2>/dev/null; then
	want_attr=yes
fi
want_cap=""
if have setcap && setcap cap_net_raw+ep "$K/keep.elf" 2>/dev/null; then
	want_cap=$(getcap "$K/keep.elf" | awk '{ print $NF }')
fi
# setcap may clear set-id bits on some systems: take what is there now
before=$(stat -c '%a %u %g' "$K/keep.elf")
mal_tool "$WORK/keep" --no-sync "$K/keep.elf"
reasons=""
if ! mal_status_ok "$RC" "$ERR" || [ "$RC" != 0 ]; then
	reasons+="exit $RC: ${BAD:-$(printf %q "$ERR")}"$'\n'
else
	after=$(stat -c '%a %u %g' "$K/keep.elf")
	[ "$before" = "$after" ] || reasons+="mode/owner changed: '$before' -> '$after'"$'\n'
	cmp -s "$S/bigpie" "$K/keep.elf" && reasons+="file not rewritten (test seed should change)"$'\n'
	if [ -n "$want_attr" ]; then
		[ "$(getfattr --only-values -n user.elfpmd "$K/keep.elf" 2>/dev/null)" = kept ] ||
			reasons+="extended attribute user.elfpmd lost"$'\n'
	fi
	if [ -n "$want_cap" ]; then
		[ "$(getcap "$K/keep.elf" | awk '{ print $NF }')" = "$want_cap" ] ||
			reasons+="file capability $want_cap lost"$'\n'
	fi
fi
mal_count keep-attributes "in place keeps owner, mode, xattrs, capabilities" "$S/bigpie" "$reasons"

cp "$S/bigpie" "$K/target.elf" && ln -s target.elf "$K/link.elf"
if mal_tool "$WORK/sym" --no-sync "$K/link.elf" && [ "$RC" = 0 ]; then
	if [ ! -L "$K/link.elf" ]; then
		note "in-place rewrite of a symlink replaced the link by a regular file (target untouched)"
	elif cmp -s "$S/bigpie" "$K/target.elf"; then
		note "symlink kept, but its target was not rewritten"
	else
		note "in-place rewrite through a symlink rewrote the target, kept the link"
	fi
fi
cp "$S/bigpie" "$K/hard1.elf" && ln "$K/hard1.elf" "$K/hard2.elf"
if mal_tool "$WORK/hard" --no-sync "$K/hard1.elf" && [ "$RC" = 0 ]; then
	if [ "$K/hard1.elf" -ef "$K/hard2.elf" ]; then
		note "hard link kept after in-place rewrite"
	else
		note "in-place rewrite broke a hard link (the other name keeps the old file)"
	fi
fi
malformed_finish
