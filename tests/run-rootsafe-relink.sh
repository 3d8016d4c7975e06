#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-relink.sh: elfpmd -r as root over nobody's tree holding hard
# links tree/x/prog and tree/y/prog: tree/y, swapped for a symbolic link
# to root's victim directory right before the link is made beside
# tree/y/prog (lib.sh: the racer), does not reach root's victim/prog.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir x y && cp '$ELF' x/prog && ln x/prog y/prog"
racing "$T/y" "$V" linkat,link .elfpmd-link "$ELFPMD" -q -j1 -r "$T" >"$W/out" 2>&1
echo "exit status $?" >>"$W/out"
raced "relink"
victim_untouched "relink"
note "$(tr '\n' ' ' <"$W/out")"
finish
