#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-links.sh: the aligned build's .deb (run-deb-build.sh) keeps the
# package's links and script: the program's hard link is still one (one
# inode, two links, unpacked; an 'h' entry in the .deb), the symbolic links
# to the program and to the library are unchanged, the script is the one
# make install wrote.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned

read -r ino1 n1 < <(stat -c '%i %h' "$A/x/usr/bin/$pkg")
read -r ino2 n2 < <(stat -c '%i %h' "$A/x/usr/bin/$pkg-link")
[ "$ino1" = "$ino2" ] && [ "$n1" = 2 ] && pass "aligned: $pkg-link is still a hard link of $pkg (inode $ino1, 2 links)" \
	|| fail "aligned: hard link lost: inodes $ino1 $ino2, links $n1 $n2"
grep -q "^h.* \./usr/bin/$pkg-link link to \./usr/bin/$pkg\$" "$A/contents" \
	&& pass "aligned: the .deb stores $pkg-link as a hard link" || fail "aligned: no hard link in $(grep "$pkg-link" "$A/contents")"
check "aligned: $pkg-alias is still a symlink to $pkg" test "$(readlink "$A/x/usr/bin/$pkg-alias")" = "$pkg"
check "aligned: lib$pkg.so is still a symlink" test "$(readlink "$A/x/usr/lib/lib$pkg.so")" = "lib$pkg.so.1"
printf '#!/bin/sh\nexec elfpmd-pkgtest "$@"\n' > "$work/want.script"
check "aligned: the script is unchanged" cmp -s "$work/want.script" "$A/x/usr/bin/$pkg-script"
finish
