#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-dbgsym.sh: the -dbgsym package of the switch build
# (run-deb-switch-build.sh, with the startup stub) describes the stubbed
# files: each file's debug file (found by its build-id) has the stub's
# section, as NOBITS, and eu-unstrip joins the file and its debug file.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
have readelf || skip_all "readelf not found (Debian: package binutils)"
scratch_dir
deb_need_switch

for f in usr/bin/$pkg "$lib"; do
	id=$(build_id "$S/x/$f")
	d=$S/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -z "$id" ] || [ ! -f "$d" ]; then
		fail "switch: $f: no debug file for build-id '$id' in the -dbgsym package"
		continue
	fi
	check "switch: $f: its debug file has the stub's section (NOBITS)" \
		eval "readelf -SW '$d' | grep -q '\.elfpmd\.stub *NOBITS'"
	if have eu-unstrip; then
		if eu-unstrip -o "$work/unstripped" "$S/x/$f" "$d" > "$work/unstrip.out" 2>&1; then
			pass "switch: eu-unstrip joins $f and its debug file"
		else
			fail "switch: eu-unstrip $f: $(head -2 "$work/unstrip.out")"
		fi
	fi
done
finish
