#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-ctest.sh: in the switch build of run-deb-switch-build.sh,
# ctest ran the program and the library aligned and with the startup stub
# (the copies the package's test keeps in tested/), in the
# switch-noelfpmd build unaligned; after the tests the build tree's files
# (in obj-TRIPLET, out of the source tree) are as built again, the stash
# gone.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
deb_need_switch

b=$(ls -d "$S/tree"/obj-*/ 2>/dev/null | head -1)
if [ -n "$b" ] && ! text_aligned "$b/$pkg" && ! text_aligned "$b/lib$pkg.so.1" && [ ! -e "$S/tree/debian/.debhelper/elfpmd/buildtree" ]; then
	pass "switch: after the tests the build tree's files are as built again, the stash gone"
else
	fail "switch: after the tests: $b/$pkg $(describe_text "$b/$pkg"); $(ls "$S/tree/debian/.debhelper/elfpmd" 2>&1)"
fi
for b in $pkg lib$pkg.so.1; do
	if text_aligned "$S/tested/$b" && has_stub "$S/tested/$b"; then
		pass "switch: ctest ran $b aligned, with the stub ($(describe_text "$S/tested/$b"))"
	else
		fail "switch: ctest ran $b: $(describe_text "$S/tested/$b"), stub: $("$ELFPMD" -n --json --madvise "$S/tested/$b" 2>&1 | grep -o '"stub":{[^}]*}')"
	fi
	check "switch-noelfpmd: ctest ran $b unaligned" eval '! text_aligned "$SB/tested/$b"'
done
finish
