#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-layout.sh: the file elfpmd writes is its input with holes at
# PT_LOAD starts and nothing else moved or changed (phdr-dump --bytemap, an
# independent reader); the lld fixtures grow by a multiple of 4 KiB below
# 2 MiB a hole, and by at most 64 KiB on disk (the padding is a hole), the
# GNU ld ones not at all; the text is congruent modulo 2 MiB with p_align
# 2 MiB; the loader rules of kernels before 5.18 (AT_PHDR) and glibc before
# 2.35 hold; eu-elflint --gnu-ld complains no more than about the input.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi

# allocated FILE: bytes of disk space FILE occupies.
allocated () { echo $(( $(stat -c '%b * %B' -- "$1") )); }

layout () {
	local grew alloc_grew holes t_index t_off t_vaddr t_align
	pad_rewrite || return
	if "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1; then
		pass "$name: phdr-dump --bytemap: $(head -1 "$w/bytemap.out")"
	else
		fail "$name: phdr-dump --bytemap finds the output is not the input with holes"
		head -20 "$w/bytemap.out" | sed 's/^/      /'
	fi
	grew=$(($(stat -c %s "$new") - $(stat -c %s "$orig")))
	alloc_grew=$(($(allocated "$new") - $(allocated "$orig")))
	# Each hole is below the PMD size; lld-twoseg has two.
	holes=$(awk '$1 == "hole" { n++ } END { print n + 0 }' "$w/bytemap.out" 2>/dev/null)
	[ "${holes:-0}" -gt 0 ] || holes=1
	if [ "$padded" = yes ]; then
		check "$name: file grew by $grew bytes, a multiple of 4 KiB in (0, $holes x 2 MiB)" \
			test "$grew" -gt 0 -a "$((grew % 4096))" -eq 0 -a "$grew" -lt "$((holes * PMD))"
		check "$name: allocated size grew by $alloc_grew bytes (<= 64 KiB: the padding is a hole)" \
			test "$alloc_grew" -le 65536
	else
		check "$name: file size unchanged (nothing to pad)" test "$grew" -eq 0
	fi
	read -r t_index t_off t_vaddr _ t_align <<<"$(text_segment "$new")"
	check "$name: text PT_LOAD $t_index: p_offset 0x$(printf %x "$t_off") congruent with p_vaddr 0x$(printf %x "$t_vaddr") mod 2 MiB, p_align 0x$(printf %x "$t_align")" \
		test -n "$t_off" -a "$(( (t_vaddr - t_off) % PMD ))" -eq 0 -a "$t_align" -eq "$PMD"
	$have_elflint && lint_before=$(elflint_count "$orig")
	check_elflint "$new"
	check_loader_rules "$new"
}
for_each_padding_fixture layout
finish
