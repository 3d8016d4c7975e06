#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-strip.sh: what doc/integration.md says of strip, eu-strip
# and dwz after elfpmd: on the sample program linked by GNU ld and, where
# clang and lld are there, by lld (whose layout elfpmd pads), aligned by
# elfpmd with its debug info, each of them keeps the alignment, and the
# program runs.  (Not dwz on lld's: clang's DWARF 5 is beyond dwz 0.15.)
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
buildsys_ref
L=pipeline
P=$O/pipeline

pipeline_linkers
for ld in $linkers; do
	W=$P/$ld
	mkdir -p "$W"
	pipeline_link "$ld" "$W/prog.g" || continue
	cp "$W/prog.g" "$W/prog.orig"
	"$ELFPMD" -q "$W/prog.g" || fail "$L: $ld: elfpmd failed"
	for tool in strip eu-strip dwz; do
		[ "$tool" = dwz ] && [ "$ld" = lld ] && continue
		if ! have $tool; then skip "$L: $tool missing"; continue; fi
		cp "$W/prog.g" "$W/prog.$tool"
		if ! $tool "$W/prog.$tool" >"$W/$tool.log" 2>&1; then fail "$L: $ld: $tool failed: $(head -1 "$W/$tool.log")"; continue; fi
		aligned "$L: $ld, $tool after elfpmd" "$W/prog.$tool" "$W/prog.orig"
		runs "$L: $ld, $tool after elfpmd" "$EXPECT_C" "$REF" "$W/prog.$tool"
	done
done
finish
