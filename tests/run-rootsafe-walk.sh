#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-walk.sh: elfpmd -r as root over nobody's tree: tree/walkme,
# swapped for a symbolic link to root's victim directory right before the
# walk reads it (lib.sh: the racer), does not lead the walk there (root's
# set-user-ID victim/prog is not rewritten), and is reported.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir walkme && cp '$ELF' walkme/prog"
racing "$T/walkme" "$V" openat,opendir,scandir walkme "$ELFPMD" -q -j1 -r "$T" >"$W/out" 2>&1
rc=$?
raced "walk"
victim_untouched "walk"
holds "walk: the swapped directory is reported (exit $rc: $(head -c 200 "$W/out" | tr '\n' ' '))" \
	'[ "$rc" -eq 1 ] && grep -q "walkme" "$W/out"'
finish
