#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-build-order.sh: where the add-on's commands ran in the package
# builds of run-deb-build.sh (their DH_VERBOSE logs): dh_elfpmd right
# before dh_strip, dh_elfpmd_buildtree right before dh_auto_test and
# dh_elfpmd_buildtree_restore right after it; with noelfpmd, dh_elfpmd runs
# all the same (and does nothing: run-deb-build-args.sh).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

grep -E '^   dh_[a-z_]+( |$)' "$A.log" > "$work/ran"
check "aligned: dh_elfpmd ran right before dh_strip" test "$(next_after dh_elfpmd "$work/ran")" = dh_strip
check "aligned: dh_elfpmd_buildtree ran right before dh_auto_test, dh_elfpmd_buildtree_restore right after" \
	test "$(next_after dh_elfpmd_buildtree "$work/ran") $(next_after dh_auto_test "$work/ran")" = "dh_auto_test dh_elfpmd_buildtree_restore"
check "noelfpmd: dh_elfpmd ran" grep -qE '^   dh_elfpmd( |$)' "$B.log"
finish
