#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-full-fs.sh: write failures, on a full and on a read-only
# file system (a tmpfs of 3 MiB; needs root with mount rights): in place
# (with and without fsync) and -o onto it.  elfpmd exits 1 with one line
# on stderr naming the input (with -o the output, which is what could not
# be written), the input stays untouched, no temporary file is left.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
[ "$(id -u)" = 0 ] || skip_all "needs root to mount a tmpfs"
M=$WORK/fullfs
mkdir -p "$M"
mount -t tmpfs -o size=3m elfpmd-test "$M" 2>/dev/null || skip_all "cannot mount a tmpfs"
cleanup_on_exit
CLEANUP+=("umount '$M'")

# expect_fail ID DESC INPUT DIR ARGS...: elfpmd ARGS... fails cleanly on
# INPUT (or on NAMED), which stays as the seed bigpie was, and leaves only
# bigpie.elf in DIR.
expect_fail () {
	local id=$1 desc=$2 in=$3 dir=$4 reasons=""
	shift 4
	mal_tool "$WORK/ff" "$@"
	mal_expect_exit1 "${NAMED:-$in}"
	cmp -s "$S/bigpie" "$in" || reasons+="the input was modified"$'\n'
	mal_only_files "$dir" bigpie.elf || reasons+="files left behind in $dir: $(ls -A "$dir" | tr '\n' ' ')"$'\n'
	mal_count "$id" "$desc" "$S/bigpie" "$reasons"
}
cp "$S/bigpie" "$M/bigpie.elf" # 2 MiB of 3: no room for the rewrite
expect_fail fs-full "in place on a full file system" "$M/bigpie.elf" "$M" --no-sync "$M/bigpie.elf"
expect_fail fs-full-sync "in place on a full file system (fsync path)" "$M/bigpie.elf" "$M" "$M/bigpie.elf"
NAMED=$M/out.elf expect_fail fs-full-o "-o onto a full file system" "$S/bigpie" "$M" -o "$M/out.elf" "$S/bigpie"
if mount -o remount,ro "$M" 2>/dev/null; then
	expect_fail fs-ro "in place on a read-only file system" "$M/bigpie.elf" "$M" "$M/bigpie.elf"
else
	skip "cannot remount the tmpfs read-only"
fi
run_cleanup
malformed_finish
