#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-stash-link.sh: in the aligned package build of run-deb-build.sh,
# dh_elfpmd_buildtree keeps a hard link of each file of the build tree it
# rewrites (its stash, put back by dh_elfpmd_buildtree_restore), and tells
# elfpmd so (--known-links), so that elfpmd does not warn about a hard link
# keeping the old contents (it did, once per file, before): two elfpmd
# runs, the build tree's with -p and --known-links, then the package's.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
deb_need make
A=$DEB_BUILT/aligned

check "aligned: two elfpmd runs (build tree with -p and the stash as --known-links, package) with $elfpmd_args -j 2" \
	test "$(cat "$A/elfpmd.args" 2>/dev/null)" = "$elfpmd_args -j 2 -p --known-links=debian/.debhelper/elfpmd/buildtree"$'\n'"$elfpmd_args -j 2"
check "aligned: the build log has no warning about a hard link keeping the old contents" \
	sh -c "! grep -q 'hard link.*keep.*the old contents' '$A.log'"
finish
