#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-build.sh: dpkg-buildpackage builds tests/pkg/upstream (a PIE and a
# shared library with 4.5 MiB of text each, a hard link, a symlink, a
# script) with the elfpmd add-on, from the source tree (deb-lib.sh,
# deb_built make), twice in the same directory: with the add-on
# (DEB_BUILD_OPTIONS=parallel=2) and with noelfpmd.  Both builds succeed
# and leave the source's own prebuilt ELF files alone (testdata/old.so, as
# old as a tarball's file, and testdata/tracked.so, new but tracked by
# git), which dh_elfpmd_buildtree must not take for the build's.  The
# other run-deb-*.sh scripts look at these builds.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"

deb_built make
for name in aligned noelfpmd; do
	deb_report_build "$name" || break
done
finish
