#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-tested.sh: the test package's own tests (its make check, which
# keeps a copy of each file it ran in tested/) ran the rewritten program
# and library in the aligned build of run-deb-build.sh
# (dh_elfpmd_buildtree rewrites the build tree before dh_auto_test), the
# files as built in the noelfpmd build.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

for f in $pkg lib$pkg.so.1; do
	if text_aligned "$A/tested/$f" && ! text_aligned "$B/tested/$f"; then
		pass "aligned: the package's tests ran $f aligned ($(describe_text "$A/tested/$f")), the noelfpmd build's not"
	else
		fail "aligned: the tests ran $f: $(describe_text "$A/tested/$f"); noelfpmd: $(describe_text "$B/tested/$f")"
	fi
done
finish
