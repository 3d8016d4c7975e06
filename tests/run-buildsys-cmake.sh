#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-cmake.sh: the CMake recipe (tests/buildsys/cmake, shown in
# doc/integration.md): a POST_BUILD command on each target runs elfpmd on
# the program and the library as they are linked, which come out aligned
# (eu-elflint no worse than the same sources linked without elfpmd) and
# run; a second build without changes runs no elfpmd and leaves them
# aligned, and elfpmd again on one says "already aligned" and leaves it
# alone; a touched source runs it again on what was relinked; cmake
# --install --strip copies the aligned files without running elfpmd, and
# they stay aligned and run.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have cmake || skip_all "cmake: not installed"
buildsys_ref
L=cmake
project cmake src cmake
P=$O/cmake
B=$P/b
gen=()
have ninja && gen=(-G Ninja)

n0=$(calls)
step $L "$P/configure.log" cmake "${gen[@]}" -S "$P" -B "$B" -DCMAKE_INSTALL_PREFIX=/usr -DELFPMD="$SPY" \
	&& step $L "$P/build.log" cmake --build "$B" || finish
called_on "$L: build" "$n0" "$B/prog" "$B/libbig.so.1.0.0"
aligned "$L" "$B/prog" "$REF/prog"
aligned "$L" "$B/libbig.so.1.0.0" "$REF/libbig.so"
runs "$L" "$EXPECT_C" "" "$B/prog"
n1=$(calls)
step $L "$P/rebuild.log" cmake --build "$B" && no_calls "$L" "$n1" "a second build"
aligned "$L: after a second build" "$B/prog" "$REF/prog"
already_aligned "$L" "$B/prog"
touch "$P/prog.c"
n1=$(calls)
if step $L "$P/rebuild2.log" cmake --build "$B"; then
	called_on "$L: prog.c touched, rebuild" "$n1" "$B/prog"
	aligned "$L: prog.c touched" "$B/prog" "$REF/prog"
	runs "$L: prog.c touched" "$EXPECT_C" "" "$B/prog"
fi
n1=$(calls)
if step $L "$P/install.log" env DESTDIR="$P/dest" cmake --install "$B" --strip; then
	no_calls "$L: install" "$n1" "installing"
	if locate ip prog "$P/dest" && locate il libbig.so.1.0.0 "$P/dest"; then
		aligned "$L: installed, stripped" "$ip" "$REF/prog"
		aligned "$L: installed, stripped" "$il" "$REF/libbig.so"
		runs "$L: installed" "$EXPECT_C" "$(dirname "$il")" "$ip"
	else fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; fi
fi
finish
