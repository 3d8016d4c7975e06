#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-debuglink-crc.sh: a debug file whose CRC is not the one
# .gnu_debuglink records is passed over: elfpmd map names exec-dl's
# functions from .symtab, with a warning naming the file and both CRCs.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start exec-dl exec-dl.dbg
export ELFPMD_DEBUG_ROOT=$WORK/root-dl
mkdir -p "root-dl$WORK" && cp exec-dl.dbg "root-dl$WORK/exec-g.debug" && printf 'x' >>"root-dl$WORK/exec-g.debug" \
	|| hard_error "cannot make the damaged debug file"
map_check exec-dl-badcrc exec-dl symtab exec-dl
if $dwarf; then
	check "exec-dl, wrong CRC: a warning names the file and the CRCs" \
		grep -q "^elfpmd map: exec-dl: warning: $WORK/root-dl$WORK/exec-g.debug: CRC 0x[0-9a-f]* is not the 0x[0-9a-f]* of .gnu_debuglink; passed over" exec-dl-badcrc.err
fi
test_finish
