#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-holes.sh: each ELF file of the aligned build's .deb
# (run-deb-build.sh) is the noelfpmd build's file with holes: phdr-dump
# --bytemap finds every byte of the one in the other, but for the CRC of
# .gnu_debuglink (zeroed in both copies first: the debug file dh_strip
# makes of a rewritten file describes its layout, so it is another file
# than the noelfpmd build's, with another CRC).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
have readelf || skip_all "readelf not found (Debian: package binutils)"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

# no_debuglink FILE NAME: a copy of FILE (its name printed) with its
# .gnu_debuglink zeroed: the debug file dh_strip makes of a rewritten file
# describes its layout, so it is another file than the noelfpmd build's,
# with another CRC, and named by another build-id.
no_debuglink () {
	local out=$work/nodebuglink.$2 off size
	cp "$1" "$out" || return 1
	read -r off size < <(readelf -SW "$out" | awk '$2 == ".gnu_debuglink" { print $5, $6; exit }')
	[ -n "$off" ] && head -c $(( 0x$size )) /dev/zero | dd of="$out" bs=1 seek=$(( 0x$off )) conv=notrunc status=none
	echo "$out"
}

for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
	if "$PHDR_DUMP" --bytemap "$(no_debuglink "$B/x/$f" b)" "$(no_debuglink "$A/x/$f" a)" > "$work/bytemap.out" 2>&1; then
		pass "aligned: $f is the noelfpmd build's with holes: $(head -1 "$work/bytemap.out")"
	else
		fail "aligned: $f is not the noelfpmd build's with holes"
		head -5 "$work/bytemap.out" | sed 's/^/      /'
	fi
done
finish
