#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-links.sh: the package built with the hook (run-rpm-build.sh)
# keeps the test package's links and script: the program's hard link is
# one inode with two links once extracted, and one inode for both names in
# the package's header; the symbolic links are unchanged; the script is the
# opt-out build's, byte for byte.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
rpm_need

h=$RPM_BUILT/x-hook/usr/bin
check "hard link: one inode, 2 links, after extraction" \
	test "$(stat -c '%i %h' "$h/elfpmd-pkgtest")" = "$(stat -c '%i 2' "$h/elfpmd-pkgtest-link")"
inodes () { rpm -qp --qf '[%{FILEINODES} %{FILENAMES}\n]' "$1" | awk '$2 ~ /^\/usr\/bin\/elfpmd-pkgtest(-link)?$/ { print $1 }' | sort -u | wc -l; }
check "hard link: one inode for both names in the package's header" test "$(inodes "$hook_rpm")" = 1
check "symbolic links unchanged" \
	test "$(readlink "$h/elfpmd-pkgtest-alias") $(readlink "$RPM_BUILT/x-hook/usr/lib64/libelfpmd-pkgtest.so")" = \
		"elfpmd-pkgtest libelfpmd-pkgtest.so.1"
check "the script is the unhooked build's, byte for byte" \
	cmp -s "$h/elfpmd-pkgtest-script" "$RPM_BUILT/x-optout/usr/bin/elfpmd-pkgtest-script"
finish
