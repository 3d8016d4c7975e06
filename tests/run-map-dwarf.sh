#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-dwarf.sh: elfpmd map --json of a program with its DWARF in the
# file (lib.sh, map_fixture_build: exec-g) is the map computed from nm and
# readelf: the chunks, the functions in each, the compilation units, with
# nothing on stderr.  A build without libdwarf names the functions from
# .symtab and says so in one line on stderr.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
if $dwarf; then
	map_check exec-g exec-g dwarf exec-g:file
	check "exec-g: nothing on stderr" test ! -s exec-g.err
else
	map_check exec-g exec-g symtab exec-g
	check "exec-g without libdwarf: one line on stderr says so" \
		test "$(grep -c 'built without libdwarf' exec-g.err)" = 1 -a "$(wc -l <exec-g.err)" = 1
fi
test_finish
