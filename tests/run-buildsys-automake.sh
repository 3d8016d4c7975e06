#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-automake.sh: the Automake recipe (tests/buildsys/automake,
# shown in doc/integration.md: libtool, an install-exec-hook on the
# installed files): building runs no elfpmd (the build tree's prog is
# libtool's wrapper script, and runs); make install, then install-strip
# over it, each copy the build's unaligned files (libtool relinks libbig)
# and the hook runs elfpmd on the installed program and library, which
# come out aligned (eu-elflint no worse than the same sources linked
# without elfpmd) and run; a second build runs no elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have autoreconf && have automake && have libtoolize || skip_all "automake: autoreconf, automake or libtoolize not installed"
buildsys_ref
L=automake
project automake src automake
P=$O/automake
B=$P/b

n0=$(calls)
step $L "$P/autoreconf.log" in_dir "$P" autoreconf -fi && mkdir -p "$B" \
	&& step $L "$P/configure.log" in_dir "$B" ../configure --prefix=/usr ELFPMD="$SPY" \
	&& step $L "$P/build.log" make -C "$B" -j2 || finish
no_calls "$L" "$n0" "building"
head -c 4 "$B/prog" | grep -q 'ELF' && fail "$L: the build tree's prog is an ELF file, not libtool's wrapper script" \
	|| pass "$L: the build tree's prog is libtool's wrapper script"
runs "$L" "$EXPECT_C" "" "$B/prog"
for target in install install-strip; do
	n1=$(calls)
	step $L "$P/$target.log" make -C "$B" "$target" DESTDIR="$P/dest" || break
	grep -q '^libtool: relink:' "$P/$target.log" && pass "$L: $target: libtool relinked libbig" \
		|| fail "$L: $target: no 'libtool: relink:' in $P/$target.log"
	called_on "$L: $target" "$n1" "$P/dest/usr/bin/prog" "$P/dest/usr/lib/libbig.so"
	aligned "$L: $target" "$P/dest/usr/bin/prog" "$REF/prog"
	if locate il 'libbig.so.*.*.*' "$P/dest/usr/lib"; then aligned "$L: $target" "$il" "$REF/libbig.so"
	else fail "$L: $target: no libbig.so.*.*.* under $P/dest/usr/lib"; fi
	runs "$L: $target" "$EXPECT_C" "$P/dest/usr/lib" "$P/dest/usr/bin/prog"
done
n1=$(calls)
step $L "$P/rebuild.log" make -C "$B" && no_calls "$L" "$n1" "a second build"
finish
