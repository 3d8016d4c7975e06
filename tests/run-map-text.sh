#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-text.sh: elfpmd map's text report of exec-g (lib.sh,
# map_fixture_build): the header, and one line per range with the largest
# functions, sizes in bytes (from nm), the compilation units where the
# build reads DWARF.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
"$ELFPMD" map exec-g >exec-g.txt 2>/dev/null
inb=$((16#$(nm -S exec-g | awk '$4 == "inb" { print $2 }')))
check "text: chunk 0 0x600000-0x800000 lists inb ($inb bytes) first" \
	grep -q "^chunk 0 0x600000-0x800000: .*largest: inb ($inb)" exec-g.txt
check "text: two chunk lines, a head and a tail" \
	test "$(grep -c '^chunk ' exec-g.txt) $(grep -c '^outside .*head' exec-g.txt) $(grep -c '^outside .*tail' exec-g.txt)" = "2 1 1"
if $dwarf; then
	check "text: names from DWARF in the file itself" grep -q '^names: DWARF in exec-g (the file itself)' exec-g.txt
	check "text: chunk 0's CUs, map-b.c first" grep -q '^chunk 0 .*; CUs: map-b.c ([0-9]*), map-a.c' exec-g.txt
fi
test_finish
