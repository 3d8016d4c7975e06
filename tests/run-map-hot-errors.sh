#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-hot-errors.sh: elfpmd map --hot refuses a profile it cannot read
# whole: exit 1 and one line on stderr naming the file and the line (a
# line of one word, a negative weight, nan, a bad address) or the missing
# file.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
printf 'inb 1\ninb\n' >bad1
map_err_check "--hot: a line of one word names line 2" 1 'bad1:2: 1 words' map --hot=bad1 exec-g
printf '# c\ninb -3\n' >bad2
map_err_check "--hot: a negative weight names line 2" 1 "bad2:2: '-3' is not a weight" map --hot=bad2 exec-g
printf 'inb nan\n' >bad3
map_err_check "--hot: nan is not a weight" 1 "bad3:1: 'nan' is not a weight" map --hot=bad3 exec-g
printf '0xzz 1\n' >bad4
map_err_check "--hot: a bad address" 1 "bad4:1: '0xzz' is not a hexadecimal address" map --hot=bad4 exec-g
map_err_check "--hot: a missing file" 1 '^elfpmd map: exec-g: --hot: nohot: ' map --hot=nohot exec-g
test_finish
