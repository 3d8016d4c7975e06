#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-pie.sh: a PIE linked with p_align 4 KiB (pie-g) has no whole
# chunk as it is: elfpmd map shows the chunks as elfpmd would align it, and
# says so; its elfpmd rewrite maps as it is.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start pie-g
map_check pie-g pie-g $src "$($dwarf && echo pie-g:file || echo pie-g)"
"$ELFPMD" map pie-g >pie-g.txt 2>/dev/null
check "pie-g: the header says the chunks are those once aligned" \
	grep -q '^chunks: 2 whole chunks of text once elfpmd aligns the file (as it is: 0)' pie-g.txt
"$ELFPMD" -q -o pie-aligned pie-g || hard_error "elfpmd cannot align pie-g"
map_check pie-aligned pie-aligned $src "$($dwarf && echo pie-aligned:file || echo pie-aligned)"
test_finish
