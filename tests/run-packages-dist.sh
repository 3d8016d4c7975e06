#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-dist.sh: the tarball of elfpmd's packages, as a release makes
# it (doc/release.md): configure in a scratch build directory and make
# dist (packages-lib.sh, packages_built dist) succeed; the tarball holds
# debian/control, elfpmd.spec at its top (for rpmbuild -tb) and NEWS; and
# debian/changelog's version is the tarball's with a Debian revision.  The
# other run-packages-*.sh scripts build and check the packages made from
# it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-parsechangelog

packages_built dist || { fail "configure && make dist: $(tail -3 "$DIST.out")"; finish; }
pass "make dist: $(basename "$tarball") ($(cat "$DIST/kib") KiB)"
check "the tarball holds debian/control, elfpmd.spec at its top and NEWS" \
	sh -c "tar tzf '$tarball' | grep -qx 'elfpmd-$version/debian/control' && tar tzf '$tarball' | grep -qx 'elfpmd-$version/elfpmd.spec' && tar tzf '$tarball' | grep -qx 'elfpmd-$version/NEWS'"
check "debian/changelog's version $deb_version is the tarball's $version with a Debian revision" \
	test "${deb_version%-*}" = "$version"
finish
