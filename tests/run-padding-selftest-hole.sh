#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-selftest-hole.sh: the checkers' self-test on a padded output
# (lld-pie): phdr-dump --bytemap accepts it, and it and elfpmd's read-back
# checker each catch every kind of damage done to it: a changed text byte,
# a non-zero byte in the hole, a p_align raised without congruence (glibc
# < 2.35), PT_PHDR not where AT_PHDR points (kernel < 5.18), a segment or
# a section left at its old offset, PT_LOADs out of order, a truncation.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
w=$WORK

cp "$O/lld-pie" "$w/in"
cp "$O/lld-pie" "$w/good"
"$ELFPMD" -q "$w/good"
read -r _ t_off _ t_filesz _ <<<"$(text_segment "$w/good")"
read -r _ in_off _ <<<"$(text_segment "$w/in")"
rw_index=$("$PHDR_DUMP" "$w/good" | awk '$2 == "LOAD" && $3 ~ /W/ { print $1; exit }')
rw_in=$("$PHDR_DUMP" "$w/in" | awk -v i="$rw_index" '$1 == i { print $4 }')
phdr_index=$(phdr_field "$w/good" PHDR 1)
phdr_vaddr=$(phdr_field "$w/good" PHDR 5)
dyn_index=$(phdr_field "$w/good" DYNAMIC 1)
dyn_in=$(phdr_field "$w/in" DYNAMIC 4)
read -r sec_index _ <<<"$(section_before "$w/good" "$t_off")"

if "$PHDR_DUMP" --bytemap "$w/in" "$w/good" >/dev/null 2>"$w/err"; then
	pass "bytemap accepts elfpmd's output of lld-pie"
else
	fail "bytemap rejects elfpmd's output of lld-pie: $(head -1 "$w/err")"
fi
damage "a changed text byte" "differs from output byte" byte $((t_off + t_filesz / 2)) 0x90
damage "a non-zero byte in the hole" "hole .* not all zeros" byte $((in_off + 1)) 1
[ -n "$rw_index" ] && damage "a raised p_align without congruence (glibc < 2.35)" "glibc < 2.35 rule" \
	phdr "$rw_index" align "$PMD"
[ -n "$phdr_index" ] && damage "PT_PHDR not where AT_PHDR points (kernel < 5.18)" "AT_PHDR rule" \
	phdr "$phdr_index" vaddr $((phdr_vaddr + 8))
[ -n "$dyn_index" ] && damage "a segment left at its old offset" "program header $dyn_index .*offset" \
	phdr "$dyn_index" offset "$dyn_in"
[ -n "$sec_index" ] && damage "a wrong sh_offset" "section header $sec_index: offset" \
	shdr "$sec_index" offset 0x10
[ -n "$rw_index" ] && damage "a PT_LOAD moved less than one before it" "not monotone" \
	phdr "$rw_index" offset "$rw_in"
head -c -1 "$w/good" >"$w/short"
if "$PHDR_DUMP" --bytemap "$w/in" "$w/short" >/dev/null 2>"$w/err"; then
	fail "bytemap misses a truncated output"
else
	pass "bytemap catches a truncated output: $(head -1 "$w/err")"
fi
cp "$w/short" "$w/bad"
check_output_rejects "a truncated output"
finish
