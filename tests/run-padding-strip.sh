#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-strip.sh: strip and eu-strip of a padded or aligned file give
# a working program whose text is still congruent modulo 2 MiB with p_align
# 2 MiB, and that keeps the old loaders' rules (patchelf's tracker has the
# opposite).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

stripped () {
	local stripper msg s_off s_vaddr s_align
	check_original
	pad_rewrite || return
	for stripper in strip eu-strip; do
		if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
		mkdir -p "$w/$stripper"
		cp -p "$new" "$w/$stripper/$file"
		if $stripper "$w/$stripper/$file" 2>"$w/strip.err"; then
			if msg=$(loader_rules "$w/$stripper/$file"); then
				read -r _ s_off s_vaddr _ s_align <<<"$(text_segment "$w/$stripper/$file")"
				check "$name: after $stripper the text is still congruent (offset 0x$(printf %x "$s_off"), align 0x$(printf %x "$s_align"))" \
					test "$(( (s_vaddr - s_off) % PMD ))" -eq 0 -a "$s_align" -eq "$PMD"
			else
				fail "$name: $stripper breaks a loader rule: $msg"
			fi
			same_run "$w/$stripper" "rewritten and ${stripper}ped file"
		elif cp -p "$orig" "$w/$stripper/orig" && ! $stripper "$w/$stripper/orig" 2>/dev/null; then
			skip "$name: $stripper fails on the original too: $(head -1 "$w/strip.err")"
		else
			fail "$name: $stripper fails on the rewritten file (not on the original): $(head -1 "$w/strip.err")"
		fi
	done
}
for_each_padding_fixture stripped
finish
