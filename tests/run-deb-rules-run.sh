#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-run.sh: the program of each build of run-deb-rules-build.sh
# with elfpmd, with its library, prints what the unaligned cdbs build's
# prints and exits 0.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
scratch_dir
deb_need rules

ref=$work/cdbs-noelfpmd.run
run_prog "$DEB_BUILT/cdbs-noelfpmd/x" > "$ref"
for v in $rules_variants; do
	rules_pair "$v"
	run_prog "$A/x" > "$work/$v.run"
	run_prog "$B/x" > "$work/${B##*/}.run"
	if grep -qE "^$pkg: ok [0-9]+\$" "$work/${B##*/}.run" && grep -qx 'exit status 0' "$work/${B##*/}.run"; then
		check "$v: the program prints what the unaligned build's prints, exits 0" cmp -s "$work/$v.run" "$ref"
	else
		skip "$v: the unaligned program does not run here: $(tr '\n' ' ' < "$work/${B##*/}.run")"
	fi
done
finish
