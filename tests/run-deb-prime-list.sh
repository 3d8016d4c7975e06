#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-prime-list.sh: the aligned build's package (run-deb-build.sh)
# carries the prime list usr/lib/elfpmd/prime.d/PACKAGE:ARCH.list, which
# names exactly its regular ELF files with whole PMD chunks of text (found
# in dpkg-deb -c and counted by phdr-dump, not by elfpmd), -rw-r--r--
# root/root and in DEBIAN/md5sums; the noelfpmd build's package has none.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

deb_want_prime
check "the package's ELF files with whole chunks: $(tr '\n' ' ' < "$work/want-prime.list")" \
	test "$(wc -l < "$work/want-prime.list")" -eq 2
if [ -f "$A/x/$list_path" ] && cmp -s "$A/x/$list_path" "$work/want-prime.list"; then
	pass "aligned: $list_path names exactly those"
else
	fail "aligned: $list_path: $( [ -f "$A/x/$list_path" ] && tr '\n' ' ' < "$A/x/$list_path" || echo missing)"
fi
check "aligned: the list is -rw-r--r-- root/root in the .deb" grep -q "^-rw-r--r-- root/root .* \./$list_path\$" "$A/contents"
check "aligned: the list is in DEBIAN/md5sums" grep -q " $list_path\$" "$A/control/md5sums"
check "noelfpmd: no prime list" test ! -e "$B/x/usr/lib/elfpmd"
finish
