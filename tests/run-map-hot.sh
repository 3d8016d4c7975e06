#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-hot.sh: elfpmd map --hot places the weights of a perf profile's
# lines (function names, addresses, name+offset; comments and blank lines
# ignored) in the ranges of exec-g as map-json.py does, and counts the
# lines it cannot place; the text report sums it up.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
tiny=$(nm exec-g | awk '$3 == "tiny_c" { print $1 }')
cat >hot.txt <<HOT
# perf report --stdio --no-children -q --no-demangle --sort sym -F overhead,sym | awk ...
inb 30.5%
cross01 20
cross12 10
0x$tiny 7
tail_c+0x10 5
lead 2.5

no_such_function 4
0x10 1
HOT
map_check hot exec-g $src "$($dwarf && echo exec-g:file || echo exec-g)" hot.txt
"$ELFPMD" map --hot=hot.txt exec-g >hot.txt.out 2>/dev/null
check "hot, text: total, weight in whole chunks, share and unresolved lines" \
	grep -q '^hot: 8 lines, total weight 75, in whole chunks [0-9.]* ([0-9.]*%), outside [0-9.]*; unresolved 2 lines (weight 5)$' hot.txt.out
test_finish
