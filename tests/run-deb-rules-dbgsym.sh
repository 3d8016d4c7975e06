#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-dbgsym.sh: in each build of run-deb-rules-build.sh with
# elfpmd, the program and the library have another build-id than the
# unaligned build's (elfpmd derives a new one), and that build-id names a debug file (in the -dbgsym package, or in the
# package itself for the debian/rules without debhelper) with that
# build-id whose text PT_LOAD has the same p_align and p_vaddr as the
# shipped file's: it was made from the rewritten file.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
deb_need rules

for v in $rules_variants; do
	rules_pair "$v"
	for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
		id=$(build_id "$A/x/$f")
		if [ -z "$id" ]; then
			fail "$v: $f has no build-id note"
			continue
		fi
		check "$v: $f has another build-id than the unaligned build's ($id)" test "$id" != "$(build_id "$B/x/$f")"
		dbgdir=$A/dbg
		[ "$v" = plain ] && dbgdir=$A/x
		d=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ ! -f "$dbgdir/$d" ]; then
			fail "$v: $f: no $d in the ${dbgdir##*/} package"
		elif [ "$(build_id "$dbgdir/$d")" != "$id" ]; then
			fail "$v: $f: $d has build-id $(build_id "$dbgdir/$d")"
		elif [ "$(text_load "$dbgdir/$d" | cut -d' ' -f1,3)" != "$(text_load "$A/x/$f" | cut -d' ' -f1,3)" ]; then
			fail "$v: $f: $d's text is not the shipped file's: $(describe_text "$dbgdir/$d"), shipped $(describe_text "$A/x/$f")"
		else
			pass "$v: $f: $d has its build-id and its text's p_align and p_vaddr ($(describe_text "$dbgdir/$d"))"
		fi
	done
done
finish
