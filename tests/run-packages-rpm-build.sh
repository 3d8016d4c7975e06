#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-rpm-build.sh: rpmbuild -tb on the tarball of
# run-packages-dist.sh (elfpmd.spec at its top; --without check) makes
# elfpmd's rpm (packages-lib.sh, packages_built rpm).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require rpmbuild rpm

if packages_built rpm; then
	pass "rpmbuild -tb $(basename "$tarball"): $(cd "$BUILT/top/RPMS" && ls ./*/*.rpm | tr '\n' ' ')($(cat "$BUILT/seconds") s)"
else
	fail "rpmbuild -tb failed: $(tail -5 "$BUILT/build.log" 2>/dev/null || tail -5 "$BUILT.out")"
fi
finish
