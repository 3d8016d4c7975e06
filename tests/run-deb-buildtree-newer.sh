#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-buildtree-newer.sh: dh_elfpmd_buildtree takes for the build's
# the files newer than debian/changelog, to the nanosecond, as a build
# started within the second after dch makes them: in a copy of the
# noelfpmd build's source tree (run-deb-build.sh; deb-lib.sh,
# deb_hand_tree), debian/changelog written at T.3, the program at T.7 is
# the build's, the library at T.1 is not (a comparison in whole seconds
# took neither); dh_elfpmd_buildtree_restore then puts the files back as
# built.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

built_sig () { for f in "$src/$pkg" "$src/lib$pkg.so.1"; do stat -c '%i %s %Y' "$f"; md5sum < "$f"; done; }
sig_built=$(built_sig)
for f in debian/changelog $pkg lib$pkg.so.1; do touch -r "$src/$f" "$work/time.${f##*/}"; done
t=$(date +%s)
touch -d "@$t.3" "$src/debian/changelog" && touch -d "@$t.7" "$src/$pkg" && touch -d "@$t.1" "$src/lib$pkg.so.1"
reset_log
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree && pkg_env timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-second.out" 2>&1
check "dh_elfpmd_buildtree: newer than debian/changelog to the nanosecond (the program at T.7, not the library at T.1, changelog at T.3)" \
	test "$?.$(logged_names | tr '\n' ' ')" = "0../$pkg "
for f in debian/changelog $pkg lib$pkg.so.1; do touch -r "$work/time.${f##*/}" "$src/$f"; done
check "dh_elfpmd_buildtree_restore: the files as built again" test "$(built_sig)" = "$sig_built"
finish
