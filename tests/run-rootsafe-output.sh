#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-output.sh: elfpmd -o as root into a directory of nobody's:
# the directory, swapped for a symbolic link to root's victim directory
# right before the temporary file is made (lib.sh: the racer), does not
# bring root's files into the output.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir out"
racing "$T/out" "$V" openat,mkostemp .elfpmd. "$ELFPMD" -q -o "$T/out/new" "$ELF" >"$W/out" 2>&1
raced "-o"
victim_untouched "-o"
finish
