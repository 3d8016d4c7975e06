#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-deb-build.sh: dpkg-buildpackage -b in the unpacked tarball
# of run-packages-dist.sh (debian/ is in it; nocheck) makes elfpmd,
# elfpmd-dbgsym and dh-elfpmd (packages-lib.sh, packages_built deb).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-buildpackage dh dpkg

if packages_built deb; then
	pass "dpkg-buildpackage -b: $(cd "$BUILT/src" && ls ./*.deb | tr '\n' ' ')($(cat "$BUILT/seconds") s)"
else
	fail "dpkg-buildpackage -b failed: $(tail -5 "$BUILT/build.log" 2>/dev/null || tail -5 "$BUILT.out")"
fi
finish
