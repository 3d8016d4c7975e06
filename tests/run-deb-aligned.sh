#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-aligned.sh: the program and the library in the .deb of the
# aligned build of run-deb-build.sh have their text PT_LOAD aligned
# (phdr-dump: p_align 2 MiB, p_offset congruent with p_vaddr), those of the
# noelfpmd build not (which also shows that the check can fail), and
# eu-elflint --gnu-ld finds no more to say of them than of the noelfpmd
# build's.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

have_elflint=false
have eu-elflint && have_elflint=true || skip "eu-elflint not found (package elfutils): lint not checked"
for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
	if text_aligned "$A/x/$f"; then
		pass "aligned: $f: text $(describe_text "$A/x/$f")"
	else
		fail "aligned: $f: text not aligned: $(describe_text "$A/x/$f")"
	fi
	if text_aligned "$B/x/$f"; then
		fail "noelfpmd: $f: text aligned all the same: $(describe_text "$B/x/$f")"
	else
		pass "noelfpmd: $f: text not aligned: $(describe_text "$B/x/$f")"
	fi
	$have_elflint && elflint_no_worse "aligned: $f" "$A/x/$f" "$B/x/$f" "noelfpmd build"
done
finish
