#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-aligned.sh: in the .deb of each build of
# run-deb-rules-build.sh with elfpmd, the program's and the library's text
# PT_LOAD, read with tests/phdr-dump, has p_align 2 MiB and p_offset
# congruent with p_vaddr; with noelfpmd not (divert has no such build of
# its own); eu-elflint --gnu-ld finds no more than in the unaligned build.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
deb_need rules

have_elflint=false
have eu-elflint && have_elflint=true || skip "eu-elflint not found (package elfutils): lint not checked"
for v in $rules_variants; do
	rules_pair "$v"
	for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
		if text_aligned "$A/x/$f"; then
			pass "$v: $f: text $(describe_text "$A/x/$f")"
		else
			fail "$v: $f: text not aligned: $(describe_text "$A/x/$f")"
		fi
		if [ "$v" != divert ]; then
			if text_aligned "$B/x/$f"; then
				fail "$v-noelfpmd: $f: text aligned all the same: $(describe_text "$B/x/$f")"
			else
				pass "$v-noelfpmd: $f: text not aligned: $(describe_text "$B/x/$f")"
			fi
		fi
		$have_elflint && elflint_no_worse "$v: $f" "$A/x/$f" "$B/x/$f" "unaligned build"
	done
done
finish
