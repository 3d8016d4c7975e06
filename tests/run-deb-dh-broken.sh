#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-broken.sh: a file elfpmd fails on (a truncated library), by
# hand in a copy of the noelfpmd build's tree (run-deb-build.sh;
# deb-lib.sh, deb_hand_tree): with noelfpmd dh_elfpmd does nothing;
# otherwise a warning names the file and elfpmd's reason, the file is left
# as it was, the others are rewritten, and the build goes on (exit 0);
# with strictness asked for (dh_elfpmd --strict, or strict in
# DEB_BUILD_OPTIONS's elfpmd=) the build fails, the file named.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

head -c 8192 "$orig/usr/lib/lib$pkg.so.1" > "$tree/usr/lib/libbroken.so.1"
sig_broken=$(file_signature "$tree/usr/lib/libbroken.so.1")
dh_elfpmd_run noelfpmd DEB_BUILD_OPTIONS="parallel=2 noelfpmd" --
check "noelfpmd: exit 0 with a broken file" test "$rc" -eq 0
check "noelfpmd: elfpmd not run" test ! -e "$work/elfpmd.args"
dh_elfpmd_run broken --
if [ "$rc" -eq 0 ] && grep -q "dh_elfpmd: warning: debian/$pkg/usr/lib/libbroken.so.1: elfpmd failed: .*; left as it was" "$work/broken.out"; then
	pass "a truncated library: a warning naming it and its reason, exit 0: $(grep 'warning: .*libbroken' "$work/broken.out")"
else
	fail "a truncated library: exit $rc: $(head -5 "$work/broken.out")"
fi
check "a truncated library: left as it was" test "$sig_broken" = "$(file_signature "$tree/usr/lib/libbroken.so.1")"
check "a truncated library: the program rewritten all the same" text_aligned "$tree/usr/bin/$pkg"
for how in "--strict" "DEB_BUILD_OPTIONS=elfpmd=strict"; do
	case $how in --*) dh_elfpmd_run strict -- "$how" ;; *) dh_elfpmd_run strict "$how" -- ;; esac
	if [ "$rc" -ne 0 ] && grep -q "warning: .*libbroken.so.1: elfpmd failed" "$work/strict.out" \
		&& grep -q "dh_elfpmd: error: 1 file(s) not rewritten as asked (strict" "$work/strict.out"; then
		pass "a truncated library with $how: the build fails (exit $rc), the file named"
	else
		fail "a truncated library with $how: exit $rc: $(head -5 "$work/strict.out")"
	fi
done
finish
