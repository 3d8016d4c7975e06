#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-bolt-pie.sh: a program in BOLT's layout (bolt-pie): the
# kernel computes its AT_PHDR, before 5.18 as first PT_LOAD p_vaddr -
# p_offset + e_phoff, which any hole before the table breaks.  So the
# text's padding is refused for AT_PHDR (both reports and -n say so), no
# hole is inserted, the old loaders' rules hold and the program runs as
# before.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

refused_pie () {
	check_original
	bolt_layout_ok || return
	dry_run_alone "$orig"
	"$ELFPMD" -n "$orig" >"$w/dry.txt" 2>&1
	pad_rewrite || return
	pass "$name: elfpmd rewrites it in place (exit 0)"
	bolt_reports exe
	check "$name: -n says why: $(grep -m1 'padding refused' "$w/dry.txt" | sed 's/^ *//')" \
		grep -q 'padding refused.*AT_PHDR' "$w/dry.txt"
	if cmp -s "$orig" "$new"; then
		pass "$name: nothing else to do, the file is left as it was"
	elif "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1 && grep -q ' 0 holes' "$w/bytemap.out"; then
		pass "$name: aligned without a hole: $(head -1 "$w/bytemap.out")"
	else
		fail "$name: expected no hole: $(head -3 "$w/bytemap.out")"
	fi
	check_loader_rules "$new"
	same_run "$w/new" "rewritten file"
}
for_each_bolt_fixture exe refused_pie
finish
