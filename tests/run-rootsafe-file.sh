#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-file.sh: elfpmd as root on a file of nobody's named on the
# command line: its directory, swapped for a symbolic link to root's
# victim directory right before the temporary file is made (lib.sh: the
# racer), does not bring root's files into the rewrite.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
rootsafe_fresh
nobody_tree "mkdir dir && cp '$ELF' dir/prog"
racing "$T/dir" "$V" openat,mkostemp .elfpmd. "$ELFPMD" -q "$T/dir/prog" >"$W/out" 2>&1
raced "single file"
victim_untouched "single file"
finish
