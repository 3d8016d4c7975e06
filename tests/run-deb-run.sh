#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-run.sh: the program of the aligned build's .deb
# (run-deb-build.sh), with its library, prints what the noelfpmd build's
# prints and exits 0.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

run_prog "$A/x" > "$work/a.run"
run_prog "$B/x" > "$work/b.run"
if grep -qE "^$pkg: ok [0-9]+\$" "$work/b.run" && grep -qx 'exit status 0' "$work/b.run"; then
	pass "noelfpmd: the program runs: $(head -1 "$work/b.run")"
	cmp -s "$work/a.run" "$work/b.run" && pass "aligned: the program prints the same and exits 0" \
		|| fail "aligned: the program prints $(tr '\n' ' ' < "$work/a.run")"
else
	skip "the unrewritten program does not run here: $(tr '\n' ' ' < "$work/b.run")"
fi
finish
