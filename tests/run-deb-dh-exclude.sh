#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-exclude.sh: dh_elfpmd -X with one name of the hard-linked
# program, -- --madvise, DEB_BUILD_OPTIONS=parallel=3, by hand in a copy of
# the noelfpmd build's tree (run-deb-build.sh; deb-lib.sh, deb_hand_tree):
# elfpmd runs with -j 3 --madvise on the library alone (the hard link
# stays whole: neither of the program's names is touched), which comes
# out aligned, with the startup stub, and is the original with holes and
# the stub (phdr-dump --bytemap).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

sig_prog=$(file_signature "$tree/usr/bin/$pkg")
sig_link=$(file_signature "$tree/usr/bin/$pkg-link")
dh_elfpmd_run exclude DEB_BUILD_OPTIONS=parallel=3 -- -X"$pkg-link" -- --madvise
check "-X$pkg-link -- --madvise: exit 0" test "$rc" -eq 0
check "-X$pkg-link -- --madvise: elfpmd run with -j 3 --madvise" test "$(logged_args)" = "$elfpmd_args -j 3 --madvise"
check "-X$pkg-link: only the library given (the hard link stays whole)" test "$(logged_names)" = "debian/$pkg/usr/lib/lib$pkg.so.1"
check "-X$pkg-link: $pkg untouched" test "$sig_prog" = "$(file_signature "$tree/usr/bin/$pkg")"
check "-X$pkg-link: $pkg-link untouched" test "$sig_link" = "$(file_signature "$tree/usr/bin/$pkg-link")"
if text_aligned "$tree/usr/lib/lib$pkg.so.1" && has_stub "$tree/usr/lib/lib$pkg.so.1"; then
	pass "-- --madvise: the library is aligned and has the stub"
else
	fail "-- --madvise: library $(describe_text "$tree/usr/lib/lib$pkg.so.1"), stub: $("$ELFPMD" -n --json --madvise "$tree/usr/lib/lib$pkg.so.1" | grep -o '"stub":{[^}]*}')"
fi
"$PHDR_DUMP" --bytemap "$orig/usr/lib/lib$pkg.so.1" "$tree/usr/lib/lib$pkg.so.1" > "$work/bytemap.out" 2>&1 \
	&& pass "-- --madvise: the library is the original with holes and the stub" \
	|| fail "-- --madvise: bytemap: $(head -3 "$work/bytemap.out")"
finish
