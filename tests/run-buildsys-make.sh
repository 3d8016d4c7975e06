#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-make.sh: the recipe for a plain Makefile
# (tests/buildsys/make, shown in doc/integration.md: elfpmd in the link
# rule, .DELETE_ON_ERROR): the build runs elfpmd on the program and the
# library, which come out aligned (eu-elflint no worse than the same
# sources linked without elfpmd) and run; a second make runs no elfpmd,
# elfpmd again says "already aligned"; a failing elfpmd fails make and
# deletes its target, so that the next make links it again and aligns it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have make || skip_all "make: not installed"
buildsys_ref
L='make'
project make src make
P=$O/make

n0=$(calls)
step $L "$P/build.log" make -C "$P" ELFPMD="$SPY" || finish
called_on "$L: build" "$n0" prog libbig.so
aligned "$L" "$P/prog" "$REF/prog"
aligned "$L" "$P/libbig.so" "$REF/libbig.so"
runs "$L" "$EXPECT_C" "" "$P/prog"
n1=$(calls)
step $L "$P/rebuild.log" make -C "$P" ELFPMD="$SPY" && no_calls "$L" "$n1" "a second make"
already_aligned "$L" "$P/prog"
touch "$P/prog.c"
if make -C "$P" ELFPMD=false >"$P/fail.log" 2>&1; then fail "$L: make with ELFPMD=false succeeded"
elif [ -e "$P/prog" ]; then fail "$L: make with ELFPMD=false kept the unaligned prog"
else pass "$L: a failing elfpmd fails make and deletes prog"; fi
n1=$(calls)
if step $L "$P/rebuild2.log" make -C "$P" ELFPMD="$SPY"; then
	called_on "$L: make again" "$n1" prog
	aligned "$L: make again" "$P/prog" "$REF/prog"
fi
finish
