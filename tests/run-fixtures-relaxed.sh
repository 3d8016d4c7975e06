#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-relaxed.sh: the fixtures (lib.sh: ALIGN_FIXTURES) rewritten in
# place with the default (relaxed) rule still run and print exactly what the
# originals print; eu-elflint --gnu-ld finds no more to complain about than
# in the originals; only p_align fields changed, each PT_LOAD's new p_align
# the one tests/phdr-dump, an independent reader, predicts for the rule; the
# fixtures that GNU ld lays out congruently really are aligned.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

relaxed () {
	check_original
	if [ "$prog" != "$file" ] && $can_run; then
		if LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH=$w/orig "$O/$prog" | grep -qF "$w/orig/$file"
		then pass "$name: $prog loads $file from the work directory"
		else fail "$name: $prog does not load $w/orig/$file"; fi
	fi
	relaxed_rewrite || return
	same_run "$w/relaxed" "rewritten (relaxed)"
	check_elflint "$r" relaxed
	check_phdrs "$r" relaxed
	check_changed relaxed "$must_relaxed" "$r"
	if cmp -s "$w/orig/$file" "$r"; then
		note "$name: relaxed rule left the file as it was"
	fi
}
for_each_align_fixture relaxed
test_finish
