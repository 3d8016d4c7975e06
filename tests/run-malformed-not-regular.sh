#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-not-regular.sh: objects that are not regular files, or not
# there: a directory, a symbolic link to one, a dangling link, a missing
# file, a FIFO (which must not hang), a character device, /dev/null (runs
# that do not write), a sparse 5 GiB file (dry run: offsets past 4 GiB, and
# a tool that reads whole files into memory shows up here).  Each run exits
# 0 or 1 and no worse, says why in one line, and leaves the object the same
# kind of object.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
X=$WORK/special
mkdir -p "$X"

# special_obj DESC PATH RUNS: RUNS all (in place, -n --json, -o), readonly
# (-n --json and -o) or dry (-n --json).
special_obj () {
	local desc=$1 p=$2 which=$3 kind before reasons="" a
	before=$(stat -c %F "$p" 2>/dev/null)
	local -a runs=("-n --json" "-o $WORK/sp-out.elf")
	[ "$which" = all ] && runs=("--no-sync" "${runs[@]}")
	[ "$which" = dry ] && runs=("-n --json")
	for a in "${runs[@]}"; do
		rm -f "$WORK/sp-out.elf"
		# shellcheck disable=SC2086
		mal_tool "$WORK/sp" $a "$p"
		if ! mal_status_ok "$RC" "$ERR"; then
			reasons+="$a: $BAD"$'\n'
		elif [ "$RC" = 1 ]; then
			mal_one_line "$ERR" "$p" || reasons+="$a: exit 1 but stderr is not one line 'elfpmd: $p: reason': $(printf %q "$ERR")"$'\n'
		fi
		kind=$(stat -c %F "$p" 2>/dev/null)
		[ "$kind" = "$before" ] || reasons+="$a: '$p' was a $before, is now ${kind:-gone}"$'\n'
	done
	mal_count "${desc// /-}" "$desc" /nonexistent "$reasons"
}
mkdir -p "$X/dir"
ln -s dir "$X/link-to-dir"
ln -s does-not-exist "$X/dangling-link"
special_obj "directory" "$X/dir" all
special_obj "symlink to a directory" "$X/link-to-dir" all
special_obj "dangling symlink" "$X/dangling-link" all
special_obj "nonexistent file" "$X/no-such-file" all
if mkfifo "$X/fifo" 2>/dev/null; then
	special_obj "FIFO (must not hang)" "$X/fifo" all
else
	skip "mkfifo failed: FIFO case skipped"
fi
if mknod "$X/null" c 1 3 2>/dev/null; then
	special_obj "character device (private /dev/null node)" "$X/null" all
else
	skip "mknod failed: in-place character device case skipped"
fi
special_obj "/dev/null (read-only runs)" /dev/null readonly
cp "$S/pie" "$X/sparse-5g" && truncate -s 5G "$X/sparse-5g" &&
	special_obj "sparse 5 GiB file (dry run)" "$X/sparse-5g" dry
rm -f "$X/sparse-5g"
malformed_finish
