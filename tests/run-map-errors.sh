#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-errors.sh: elfpmd map of a file it cannot map exits 1 with one
# line on stderr naming the file: a missing file, a file that is not ELF,
# and sizes the machine does not have (the sizes are chosen as the main
# command chooses them: a page size x86-64 does not have is refused with
# --pmd-size too).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
map_err_check "missing file: exit 1" 1 '^elfpmd map: nosuch: ' map nosuch
echo 'not elf' >notelf
map_err_check "not ELF: exit 1" 1 '^elfpmd map: notelf: ' map notelf
map_err_check "--pmd-size=2M --page-size=16K on x86-64: refused as elfpmd -n refuses it" 1 \
	'^elfpmd map: exec-g: x86-64: this machine has 4K pages only' map --pmd-size=2M --page-size=16K exec-g
test_finish
