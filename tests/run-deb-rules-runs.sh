#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-runs.sh: what elfpmd was given in the builds of
# run-deb-rules-build.sh: with each debian/rules, one elfpmd run, on the
# program and the library; with noelfpmd (divert: the cdbs build's), none.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
deb_need rules

# holds_names LIST NAME...: the NUL-terminated LIST has a name ending in
# each /NAME.
holds_names () {
	local list=$1 n
	shift
	[ -f "$list" ] || return 1
	for n in "$@"; do
		tr '\0' '\n' < "$list" | grep -q -- "/$n\$" || return 1
	done
}
for v in $rules_variants; do
	rules_pair "$v"
	check "$v: one elfpmd run" test "$(wc -l < "$A/elfpmd.args" 2>/dev/null)" = 1
	check "$v: elfpmd was given the program and the library" \
		holds_names "$A/elfpmd.list" "usr/bin/$pkg" "usr/lib/lib$pkg.so.1"
	check "$v-noelfpmd: no elfpmd run" test ! -e "$B/elfpmd.args"
done
finish
