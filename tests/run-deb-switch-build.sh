#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-build.sh: a distribution's switch on a package of the
# shape of x265 and cppcheck: tests/pkg/upstream built by CMake out of the
# source tree (tests/pkg/upstream/CMakeLists.txt: a shared library and a
# program linked with it, an RPATH to the build tree that cmake's install
# removes, editing the rewritten file), tested by ctest, debian/rules a
# plain "dh $@ --buildsystem=cmake", the add-on turned on only as a
# distribution does: DH_EXTRA_ADDONS=elfpmd, options in DEB_BUILD_OPTIONS
# (elfpmd=madvise).  dpkg-buildpackage builds it so (switch) and with
# noelfpmd (switch-noelfpmd) (deb-lib.sh, deb_built cmake); both builds
# succeed and leave the source's prebuilt ELF files alone.  The other
# run-deb-switch-*.sh scripts look at these builds.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"

deb_built cmake
for name in switch switch-noelfpmd; do
	deb_report_build "$name" || break
done
finish
