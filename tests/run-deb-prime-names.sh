#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-prime-names.sh: names are bytes: "caf\xe9" (not UTF-8) and "café"
# (UTF-8), two copies of the program, come back from elfpmd's JSON as two
# names, each its exact bytes in the prime list dh_elfpmd writes, with no
# warning (before file_hex, the first was reported as "café", a file
# dh_elfpmd was not given, and left out).  By hand in a copy of the
# noelfpmd build's tree (run-deb-build.sh; deb-lib.sh, deb_hand_tree).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree
deb_want_prime

latin1=$(printf 'caf\351') utf8=$(printf 'caf\303\251')
cp "$tree/usr/bin/$pkg" "$tree/usr/bin/$latin1" && cp "$tree/usr/bin/$pkg" "$tree/usr/bin/$utf8" \
	|| hard_error "cannot copy $pkg to two new names"
dh_elfpmd_run names --
{ cat "$work/want-prime.list"; printf '/usr/bin/%s\n' "$latin1" "$utf8"; } | LC_ALL=C sort > "$work/want-names.list"
if [ "$rc" -eq 0 ] && ! grep -q 'not given' "$work/names.out" \
	&& LC_ALL=C sort "$tree/$list_path" | cmp -s - "$work/want-names.list"; then
	pass "names: caf\\xe9 and café both in the prime list, byte for byte, no warning"
else
	fail "names: exit $rc, list $(od -c "$tree/$list_path" | head -5 | tr '\n' ' '); $(head -3 "$work/names.out")"
fi
finish
