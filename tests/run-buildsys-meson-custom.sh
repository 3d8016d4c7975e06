#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-meson-custom.sh: the Meson recipe with a custom_target
# (tests/buildsys/meson-custom, shown in doc/integration.md): the build
# runs elfpmd once, in the build directory, writing an aligned copy of the
# program (eu-elflint no worse than the same sources linked without
# elfpmd) next to its unaligned input, and leaves the library alone (a
# custom_target is a copy, not something to link); the copy runs; a second
# build runs no elfpmd, a touched source runs it again; meson install
# installs the aligned copy, which runs (Meson strips the build tree's
# RUNPATH from the executables it installs, not from a custom_target's
# output, as the doc says: noted).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have meson && have ninja || skip_all "meson: $(have meson || echo meson)$(have ninja || echo ' ninja') not installed"
buildsys_ref
L=meson-custom
project meson-custom src meson-custom
P=$O/meson-custom
B=$P/b

n0=$(calls)
step $L "$P/setup.log" env PATH="$O/bin:$PATH" meson setup --prefix=/usr "$B" "$P" \
	&& step $L "$P/build.log" ninja -C "$B" || finish
# meson runs the command in the build directory, with relative names.
called_on "$L: build" "$n0" prog prog-unaligned
aligned "$L" "$B/prog" "$REF/prog"
unaligned "$L" "$B/prog-unaligned" "the input of the copy"
unaligned "$L" "$B/libbig.so.1.0.0" "a custom_target is a copy, not something to link"
runs "$L" "$EXPECT_C" "" "$B/prog"
n1=$(calls)
step $L "$P/rebuild.log" ninja -C "$B" && no_calls "$L" "$n1" "a second build"
touch "$P/prog.c"
n1=$(calls)
if step $L "$P/rebuild2.log" ninja -C "$B"; then
	called_on "$L: prog.c touched, rebuild" "$n1" prog prog-unaligned
	aligned "$L: prog.c touched" "$B/prog" "$REF/prog"
fi
if step $L "$P/install.log" env DESTDIR="$P/dest" meson install -C "$B"; then
	if locate ip prog "$P/dest" && locate il libbig.so.1.0.0 "$P/dest"; then
		aligned "$L: installed" "$ip" "$REF/prog"
		runs "$L: installed" "$EXPECT_C" "$(dirname "$il")" "$ip"
	else fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; fi
	note "$L: installed prog's RUNPATH: $(readelf -d "$ip" 2>/dev/null | sed -n 's/.*(RUNPATH).*: \[\(.*\)\]/\1/p')"
fi
finish
