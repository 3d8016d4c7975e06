#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dbgsym.sh: the -dbgsym package of the aligned build
# (run-deb-build.sh) matches the rewritten binaries: each has another
# build-id than the noelfpmd build's (elfpmd derives a new one), the
# -dbgsym package has its
# .build-id/XX/YYYY.debug file with that build-id, and its Build-Ids field
# lists it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
have readelf || have eu-readelf || skip_all "neither readelf nor eu-readelf: build-ids not checked"
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

[ -d "$A/dbg" ] || { fail "aligned: no $pkg-dbgsym package: $(ls "$A")"; finish; }
for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
	id=$(build_id "$A/x/$f")
	if [ -z "$id" ]; then
		fail "aligned: $f has no build-id note"
		continue
	fi
	check "aligned: $f has another build-id than the noelfpmd build's ($id)" test "$id" != "$(build_id "$B/x/$f")"
	d=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -f "$A/dbg/$d" ] && [ "$(build_id "$A/dbg/$d")" = "$id" ]; then
		pass "aligned: $f: the -dbgsym package has $d with that build-id"
	else
		fail "aligned: $f: no $d with build-id $id in the -dbgsym package"
	fi
	check "aligned: $f: the -dbgsym package's Build-Ids lists $id" grep -qw "$id" "$A/build-ids"
done
finish
