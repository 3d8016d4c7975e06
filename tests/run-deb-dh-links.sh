#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-links.sh: dh_elfpmd rewrites the hard-linked, set-user-ID
# program in place, by hand in a copy of the noelfpmd build's tree
# (run-deb-build.sh; deb-lib.sh, deb_hand_tree): it comes out aligned, its
# other name is still a hard link of it, its mode 4754 is kept.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

dh_elfpmd_run plain --
[ "$rc" -eq 0 ] || fail "dh_elfpmd: exit $rc: $(head -5 "$work/plain.out")"
if text_aligned "$tree/usr/bin/$pkg"; then
	pass "$pkg aligned: $(describe_text "$tree/usr/bin/$pkg")"
else
	fail "$pkg not aligned: $(describe_text "$tree/usr/bin/$pkg")"
fi
read -r ino1 n1 m1 < <(stat -c '%i %h %a' "$tree/usr/bin/$pkg")
read -r ino2 n2 < <(stat -c '%i %h' "$tree/usr/bin/$pkg-link")
[ "$ino1" = "$ino2" ] && [ "$n1" = 2 ] && pass "$pkg-link is still a hard link of $pkg" \
	|| fail "hard link lost: inodes $ino1 $ino2, links $n1 $n2"
check "$pkg keeps mode 4754" test "$m1" = 4754
finish
