#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-symbols.sh: without DWARF elfpmd map names the functions from the
# symbol tables: .symtab (exec-sym, strip -g), else .dynsym (exec-dyn, a
# -rdynamic build stripped of everything), else none (exec-none, a static
# program stripped of everything).  No debug root: exec-g's build ID would
# find the DWARF.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start exec-sym exec-dyn exec-none
map_check exec-sym exec-sym symtab exec-sym
map_check exec-dyn exec-dyn dynsym exec-dyn
if [ -e exec-none ]; then
	map_check exec-none exec-none none x
	"$ELFPMD" map exec-none >exec-none.txt 2>&1
	check "exec-none: names: none" grep -q '^names: none' exec-none.txt
else
	skip "no static C library: the file without any names is not built"
fi
test_finish
