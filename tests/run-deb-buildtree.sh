#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-buildtree.sh: dh_elfpmd_buildtree and dh_elfpmd_buildtree_restore
# by hand, in a copy of the noelfpmd build's source tree (run-deb-build.sh;
# deb-lib.sh, deb_hand_tree), where the build's program and library are:
# with nocheck nothing happens; a run rewrites the two files the build made
# (not the source's prebuilt ones, not debian/), keeps their modification
# times (elfpmd -p) and stashes them as built; a second run (as after tests
# that failed) puts them back first and keeps one stash; the restore puts
# back the very files (the same bytes, times and inodes), also with
# noelfpmd, and removes the stash; without a stash it does nothing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

stash=$src/debian/.debhelper/elfpmd/buildtree
rm -rf "$src/tested"    # (the copies the build's make check made)
built_sig () { for f in "$src/$pkg" "$src/lib$pkg.so.1"; do stat -c '%i %s %Y' "$f"; md5sum < "$f"; done; }
sig_built=$(built_sig)
(cd "$src" && pkg_env DEB_BUILD_OPTIONS=nocheck timeout 120 dh_elfpmd_buildtree) > "$work/tree-nocheck.out" 2>&1
check "dh_elfpmd_buildtree with nocheck: exit 0, nothing run, no stash" \
	test "$?.$(logged_args)" = 0. -a ! -e "$stash.list"
reset_log
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree) > "$work/tree1.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(logged_names | tr '\n' ' ')" = "./$pkg ./lib$pkg.so.1 " ] && text_aligned "$src/$pkg" && text_aligned "$src/lib$pkg.so.1"; then
	pass "dh_elfpmd_buildtree: the build's program and library rewritten (not testdata/*.so, not debian/)"
else
	fail "dh_elfpmd_buildtree: exit $rc, given: $(logged_names | tr '\n' ' '): $(head -3 "$work/tree1.out")"
fi
check "dh_elfpmd_buildtree: elfpmd -p kept the files' modification times" \
	test "$(stat -c %Y "$src/$pkg" "$src/lib$pkg.so.1")" = "$(printf '%s\n' "$sig_built" | awk 'NR % 2 == 1 { print $3 }')"
check "dh_elfpmd_buildtree: the stash lists two files" test "$(tr -cd '\0' < "$stash.list" | wc -c)" -eq 4
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree) > "$work/tree2.out" 2>&1
check "dh_elfpmd_buildtree again: exit 0, one stash of two files, still aligned" \
	test "$?.$(ls "$stash" | wc -l).$(text_aligned "$src/$pkg" && echo aligned)" = 0.2.aligned
(cd "$src" && pkg_env DEB_BUILD_OPTIONS=noelfpmd timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-restore.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(built_sig)" = "$sig_built" ] && [ ! -e "$stash" ] && [ ! -e "$stash.list" ]; then
	pass "dh_elfpmd_buildtree_restore (with noelfpmd): the files as built are back (inodes, sizes, times, bytes), the stash gone"
else
	fail "dh_elfpmd_buildtree_restore: exit $rc: $(built_sig | tr '\n' ' ') vs $(printf '%s' "$sig_built" | tr '\n' ' '); $(head -3 "$work/tree-restore.out")"
fi
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-restore2.out" 2>&1
check "dh_elfpmd_buildtree_restore without a stash: exit 0, nothing changed" test "$?.$(built_sig)" = "0.$sig_built"
finish
