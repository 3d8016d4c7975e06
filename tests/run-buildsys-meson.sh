#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-meson.sh: the Meson recipe with an install script
# (tests/buildsys/meson, shown in doc/integration.md): find_program finds
# the elfpmd on PATH; building runs no elfpmd and leaves the build tree's
# program unaligned (it runs); meson install aligns the installed program
# and library (eu-elflint no worse than the same sources linked without
# elfpmd), which run, and so does a second install of only the runtime
# files (the script's install_tag) over the aligned ones; a second build
# runs no elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have meson && have ninja || skip_all "meson: $(have meson || echo meson)$(have ninja || echo ' ninja') not installed"
buildsys_ref
L=meson
project meson src meson
P=$O/meson
B=$P/b

n0=$(calls)
step $L "$P/setup.log" env PATH="$O/bin:$PATH" meson setup --prefix=/usr "$B" "$P" \
	&& step $L "$P/build.log" ninja -C "$B" || finish
grep -q "Program elfpmd found: YES ($SPY)" "$P/setup.log" \
	&& pass "$L: find_program found the elfpmd on PATH" || fail "$L: find_program did not find $SPY (see $P/setup.log)"
no_calls "$L" "$n0" "building"
unaligned "$L" "$B/prog" "the install script aligns the installed copy"
runs "$L" "$EXPECT_C" "" "$B/prog"
# Installed twice: the second time only the runtime files (the script's
# install_tag), copied again over the aligned ones.
for round in 1 2; do
	n1=$(calls)
	tags=()
	[ $round = 2 ] && tags=(--tags runtime)
	step $L "$P/install$round.log" env DESTDIR="$P/dest" meson install -C "$B" "${tags[@]}" || break
	if ! locate ip prog "$P/dest" || ! locate il libbig.so.1.0.0 "$P/dest"; then
		fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; break
	fi
	called_on "$L: install $round" "$n1" "$ip" "$il"
	aligned "$L: installed ($round)" "$ip" "$REF/prog"
	aligned "$L: installed ($round)" "$il" "$REF/libbig.so"
	runs "$L: installed ($round)" "$EXPECT_C" "$(dirname "$il")" "$ip"
done
n1=$(calls)
step $L "$P/rebuild.log" ninja -C "$B" && no_calls "$L" "$n1" "a second build"
finish
