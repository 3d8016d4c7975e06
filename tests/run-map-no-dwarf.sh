#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-no-dwarf.sh: with ELFPMD_MAP_NO_DWARF=1 elfpmd map reads exec-g
# as a build without libdwarf does: names from .symtab, and (in a build
# that reads DWARF) one line on stderr naming the DWARF not read.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
ELFPMD_MAP_NO_DWARF=1 "$ELFPMD" map --json exec-g >nodwarf.json 2>nodwarf.err
map_expect nodwarf exec-g symtab exec-g
if map_compare nodwarf; then pass "ELFPMD_MAP_NO_DWARF: names from .symtab"; else fail "ELFPMD_MAP_NO_DWARF: $(head -3 nodwarf.diff)"; fi
if $dwarf; then
	check "ELFPMD_MAP_NO_DWARF: one line on stderr names the DWARF not read" \
		test "$(wc -l <nodwarf.err)" = 1 -a "$(grep -c 'exec-g: exec-g: DWARF reading is off' nodwarf.err)" = 1
fi
test_finish
