#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-bolt-madvise.sh: --madvise (the startup stub, with the
# padding) on the shared objects in BOLT's layout: elfpmd exits 0, the
# program runs as before (what does not depend on the program header
# table, which --madvise may repurpose), and where this kernel and file
# system map file text with PMD pages (Linux 6.16 on ext4, 5.18 on xfs, THP
# not "never") every whole 2 MiB chunk of the text is PMD-mapped.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

# big_lines OUT: the lines of a fixture run that do not depend on the
# program header table.
big_lines () { grep -E '^(big text|stub in|segment bytes|unwinding|exit status)' "$1"; }

# kernel_at_least MAJOR MINOR: the running kernel is that or later.
kernel_at_least () {
	local r
	r=$(uname -r)
	[ "${r%%.*}" -gt "$1" ] || { [ "${r%%.*}" -eq "$1" ] && r=${r#*.} && [ "${r%%[!0-9]*}" -ge "$2" ]; }
}

# bolt_coverage FILE: the whole chunks of FILE's text (the rewritten
# library) are PMD-mapped while the program runs.
bolt_coverage () {
	local lib=$1 fs ideal kb want
	fs=$(df -PT "$(dirname "$lib")" | awk 'NR == 2 { print $2 }')
	if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null \
		|| ! { [ "$fs" = ext4 ] && kernel_at_least 6 16 || [ "$fs" = xfs ] && kernel_at_least 5 18; }; then
		skip "$name: text PMD-mapped with --madvise: needs THP and large folios for $fs on $(uname -r)"
		return
	fi
	ideal=$(ideal_chunks "$lib")
	want=$((ideal * 2048))
	FIXTURE_SMAPS=$w/madvise.smaps run_fixture "$w/madvise" "$w/madvise-cov.out"
	kb=$(pmd_kb "$w/madvise.smaps" "$lib" 2>/dev/null)
	if [ "$ideal" -gt 0 ] && [ "${kb:-0}" -ge "$want" ]; then
		pass "$name: with --madvise all $ideal whole chunks of text are PMD-mapped ($kb kB)"
	else
		fail "$name: with --madvise ${kb:-0} kB of the text PMD-mapped, $want kB ideal ($ideal chunks)"
	fi
}

with_stub () {
	check_original
	mkdir -p "$w/madvise"
	cp -p "$orig" "$w/madvise/$file"
	if ! "$ELFPMD" -q --madvise "$w/madvise/$file" >"$w/madvise.log" 2>&1; then
		fail "$name: --madvise exited non-zero: $(head -3 "$w/madvise.log")"
		return
	fi
	pass "$name: --madvise exits 0"
	$can_run || return 0
	run_fixture "$w/madvise" "$w/madvise.out"
	if [ -n "$(big_lines "$w/madvise.out")" ] && cmp -s <(big_lines "$w/orig.out") <(big_lines "$w/madvise.out"); then
		pass "$name: with --madvise the program runs as before ($(tail -1 "$w/madvise.out"))"
	else
		fail "$name: with --madvise the program runs differently"
		diff "$w/orig.out" "$w/madvise.out" | head -20 | sed 's/^/      /'
	fi
	bolt_coverage "$w/madvise/$file"
}
for_each_bolt_fixture dso with_stub
finish
