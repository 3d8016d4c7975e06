#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-build-args.sh: what elfpmd was given in the package builds of
# run-deb-build.sh: with the add-on, the build tree's program and library
# (not the source's prebuilt files, not debian/), then the package's three
# names of its two ELF files (symlinks, the script and debug files left
# out), sorted and NUL-terminated, the command shown by DH_VERBOSE; with
# noelfpmd, no elfpmd run at all.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

printf '%s\n' "./$pkg" "./lib$pkg.so.1" "debian/$pkg/usr/bin/$pkg" "debian/$pkg/usr/bin/$pkg-link" "debian/$pkg/usr/lib/lib$pkg.so.1" > "$work/want-build.list"
if [ -f "$A/elfpmd.list" ] && tr '\0' '\n' < "$A/elfpmd.list" | cmp -s - "$work/want-build.list"; then
	pass "aligned: elfpmd was given the build tree's two ELF files, then the package's three names of two, sorted, NUL-terminated"
else
	fail "aligned: elfpmd was given: $( [ -f "$A/elfpmd.list" ] && tr '\0' ' ' < "$A/elfpmd.list")"
fi
grep -qF -- "| $DEB_BUILT/bin/elfpmd-logged $elfpmd_args -j 2" "$A.log" \
	&& pass "aligned: DH_VERBOSE shows the elfpmd command" || fail "aligned: no elfpmd command line in $A.log"
check "noelfpmd: dh_elfpmd did not run elfpmd" test ! -e "$B/elfpmd.args"
finish
