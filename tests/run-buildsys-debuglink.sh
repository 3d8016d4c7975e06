#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-debuglink.sh: what doc/integration.md says of elfpmd after
# debug-info extraction, on the sample program linked by GNU ld and, where
# clang and lld are there, by lld (whose layout elfpmd pads): with the
# debug info in a separate file (objcopy --only-keep-debug, --strip-debug,
# --add-gnu-debuglink), elfpmd aligns the program, gives it a new build-id
# of the same length (the old one with --build-id=keep), keeps
# .gnu_debuglink (name and CRC), gdb finds main's line in the separate
# debug file by it, and the program runs.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
buildsys_ref
have objcopy || skip_all "pipeline: objcopy missing: debug-info extraction not checked"
L=pipeline
P=$O/pipeline

# section FILE NAME: the bytes of section NAME of FILE, in hex.
section () { objcopy --dump-section "$2=$P/section.bin" "$1" "$P/section.out" 2>/dev/null && od -An -tx1 "$P/section.bin" | tr -d ' \n'; }
pipeline_linkers
for ld in $linkers; do
	W=$P/$ld
	mkdir -p "$W"
	pipeline_link "$ld" "$W/prog" || continue
	cp "$W/prog" "$W/prog.orig"
	unaligned "$L: $ld" "$W/prog.orig" "linked without elfpmd"
	objcopy --only-keep-debug "$W/prog" "$W/prog.debug" && objcopy --strip-debug "$W/prog" \
		&& objcopy --add-gnu-debuglink="$W/prog.debug" "$W/prog" || { fail "$L: $ld: objcopy failed"; continue; }
	id=$(section "$W/prog" .note.gnu.build-id)
	link=$(section "$W/prog" .gnu_debuglink)
	"$ELFPMD" -q --build-id=keep -o "$W/prog.keep" "$W/prog" || fail "$L: $ld: elfpmd --build-id=keep failed"
	"$ELFPMD" -q "$W/prog" || fail "$L: $ld: elfpmd failed"
	aligned "$L: $ld, debug info split off" "$W/prog" "$W/prog.orig"
	new=$(section "$W/prog" .note.gnu.build-id)
	# (the note's header, 16 bytes, is 32 hexadecimal digits)
	[ -n "$id" ] && [ "$new" != "$id" ] && [ ${#new} -eq ${#id} ] && [ "${new:0:32}" = "${id:0:32}" ] \
		&& pass "$L: $ld: elfpmd gives a new build-id of the same length" || fail "$L: $ld: build-id note '$id' -> '$new'"
	[ -n "$id" ] && [ "$id" = "$(section "$W/prog.keep" .note.gnu.build-id)" ] \
		&& pass "$L: $ld: elfpmd --build-id=keep keeps the build-id note" \
		|| fail "$L: $ld: --build-id=keep: build-id note '$id' -> '$(section "$W/prog.keep" .note.gnu.build-id)'"
	[ -n "$link" ] && [ "$link" = "$(section "$W/prog" .gnu_debuglink)" ] \
		&& pass "$L: $ld: elfpmd keeps .gnu_debuglink (name and CRC)" || fail "$L: $ld: .gnu_debuglink '$link' -> '$(section "$W/prog" .gnu_debuglink)'"
	if have gdb; then
		gdb -nx -batch -ex 'info line main' "$W/prog" >"$W/gdb.out" 2>&1
		grep -q 'Line [0-9]* of ".*prog\.c"' "$W/gdb.out" && pass "$L: $ld: gdb finds main's line in the separate debug file" \
			|| fail "$L: $ld: gdb: $(tail -1 "$W/gdb.out")"
	fi
	runs "$L: $ld, debug info split off" "$EXPECT_C" "$REF" "$W/prog"
done
finish
