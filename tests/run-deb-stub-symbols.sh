#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-stub-symbols.sh: in a Debian package built with the add-on as a
# distribution turns it on (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS
# elfpmd=madvise, then elfpmd=madvise=copy), the stub's functions have
# names after the whole dh sequence: dh_elfpmd runs before dh_strip, on
# files that have a symbol table, so elfpmd puts the stub's symbols into
# that table (which dh_strip copies into the -dbgsym's debug file) and
# gives the file its MiniDebugInfo (.gnu_debugdata, which dh_strip's strip
# keeps).  For the program and the library of tests/pkg/upstream:
#   - the .deb's file has .elfpmd.stub and .gnu_debugdata, no .symtab; the
#     -dbgsym's debug file (found by build ID) names the stub's symbols in
#     its .symtab;
#   - gdb names the start of .elfpmd.stub (elfpmd.stub_entry) and a place
#     inside elfpmd.populate_range, in x/i and info symbol: from the .deb's
#     file alone, with the debug file (debug-file-directory), and from the
#     debug file alone (the .deb's file without .gnu_debugdata: the debug
#     file's .symtab), info symbol with the right offsets in each (the
#     stub's section has the same index in the stripped file and in the
#     debug file); the same file with neither is the control, unnamed;
#   - a crash inside the stub (an illegal instruction over the start of
#     elfpmd.populate_range in a copy of the program, run under gdb, which
#     writes a core at the fault): eu-stack names the crashing frame from
#     the core with the .deb's file alone, with the debug file, and with the
#     debug file alone; skipped where the stub does not populate on this
#     kernel (the function is not reached).
# Packages are built as tests/run-deb.sh builds them (tests/deb-lib.sh).
# x86-64 hosts (the crash is an x86-64 instruction).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "Debian packages built with debhelper"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the stub's names in packages are checked on x86-64 hosts"
for t in dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb dh make cc readelf objcopy gdb; do
	have "$t" || skip_all "$t not found"
done

# The work directory is kept when something failed, for a look at the logs.
scratch_dir

# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools

pkg=elfpmd-pkgtest
src=$work/build/$pkg-1.0
# make_source: a fresh source package whose rules are a plain "dh $@": the
# add-on comes from DH_EXTRA_ADDONS, as a distribution's switch brings it.
make_source () {
	rm -rf "$work/build"
	deb_switch_source "$src" run-deb-stub-symbols.sh
}
make_source || hard_error "cannot create the source package in $src"
(cd "$src" && dpkg-checkbuilddeps) >"$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' <"$work/builddeps.out")"

# build NAME DEB_BUILD_OPTIONS: build the package into $work/NAME, unpack
# the .deb into $work/NAME/x and the -dbgsym into $work/NAME/dbg.
build () {
	local out=$work/$1 deb dbg
	make_source || return 1
	mkdir -p "$out"
	rm -f "$work/elfpmd.args" "$work/elfpmd.list"
	if ! deb_switch_build "$src" "$out.log" "$2"; then
		fail "$1: dpkg-buildpackage failed (DEB_BUILD_OPTIONS=$2)"
		tail -15 "$out.log" | sed 's/^/      /'
		return 1
	fi
	deb=$(ls "$work/build/${pkg}_"*.deb 2>/dev/null | head -1)
	dbg=$(ls "$work/build/$pkg-dbgsym_"*.deb "$work/build/$pkg-dbgsym_"*.ddeb 2>/dev/null | head -1)
	if [ -z "$deb" ] || [ -z "$dbg" ]; then
		fail "$1: no .deb or no -dbgsym package: $(ls "$work/build")"
		return 1
	fi
	dpkg-deb -x "$deb" "$out/x" && dpkg-deb -x "$dbg" "$out/dbg" || { fail "$1: cannot unpack"; return 1; }
	pass "$1: dpkg-buildpackage -b with DH_EXTRA_ADDONS=elfpmd DEB_BUILD_OPTIONS=\"$2\""
	grep -E '^   dh_[a-z_]+( |$)' "$out.log" | awk '{ print $1 }' >"$out.ran"
	check "$1: dh_elfpmd ran right before dh_strip" \
		test "$(awk 'prev == "dh_elfpmd" { print; exit } { prev = $1 }' "$out.ran")" = dh_strip
	check "$1: elfpmd ran with --${2##*elfpmd=}" grep -qE -- "--${2##*elfpmd=}( |\$)" "$work/elfpmd.args"
}

# sections FILE: the names of FILE's sections, one a line.
sections () { readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'; }
# symval FILE NAME: the value (hex) of symbol NAME in FILE's .symtab.
symval () { readelf -sW "$1" 2>/dev/null | awk -v n="$2" '$8 == n { print $2; exit }'; }
# stub_addr FILE: the address (hex) of FILE's .elfpmd.stub.
stub_addr () { readelf -SW "$1" 2>/dev/null | awk '$2 == ".elfpmd.stub" { print $4; exit }'; }
# gdb_names FILE DEBUGDIR ADDR PR: what gdb says of ADDR and of PR + 4 in
# FILE (not run), DEBUGDIR its debug-file-directory: x/i's <SYMBOL+OFFSET>
# and the symbol info symbol names, a line each; info symbol's whole lines
# (" of FILE" cut) into $work/info.
gdb_names () {
	timeout 120 gdb -q -batch -nx -ex "set debug-file-directory $2" -ex "file $1" \
		-ex "x/i 0x$3" -ex "info symbol 0x$3" -ex "x/i 0x$4 + 4" -ex "info symbol 0x$4 + 4" \
		>"$work/gdb.out" 2>&1
	grep ' in section ' "$work/gdb.out" | sed 's/ of .*//' >"$work/info"
	paste -d' ' <(grep -o '^ *0x[0-9a-f]* <[^>]*>' "$work/gdb.out" | awk '{ print $2 }') \
		<(awk '{ print $1 }' "$work/info")
}
want="<elfpmd.stub_entry> elfpmd.stub_entry
<elfpmd.populate_range+4> elfpmd.populate_range"
# exact_info: info symbol said the offsets too ($work/info, gdb_names):
# gdb 13 reads a debug file's symbol's section index in the stripped
# file's sections, right only where the stub's section comes before the
# non-loaded ones that strip removes (doc/design.md, "The stub's
# symbols").
exact_info () {
	[ "$(cat "$work/info")" = "elfpmd.stub_entry in section .elfpmd.stub
elfpmd.populate_range + 4 in section .elfpmd.stub" ]
}

# check_names NAME: the checks of the header for the build NAME.
check_names () {
	local d=$work/$1 f file id debug addr pr lib
	lib=$(cd "$d/x" && ls usr/lib/lib$pkg.so.1 usr/lib/*/lib$pkg.so.1 2>/dev/null | head -1)
	mkdir -p "$work/nodebug"
	for f in "usr/bin/$pkg" "$lib"; do
		file=$d/x/$f
		sections "$file" >"$work/secs"
		holds "$1: $f: .elfpmd.stub and .gnu_debugdata, no .symtab" \
			'grep -qx .elfpmd.stub "$work/secs" && grep -qx .gnu_debugdata "$work/secs" && ! grep -qx .symtab "$work/secs"'
		id=$(build_id "$file")
		debug=$d/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -z "$id" ] || [ ! -f "$debug" ]; then
			fail "$1: $f: no debug file for build ID '$id' in the -dbgsym package"
			continue
		fi
		n=$(readelf -sW "$debug" 2>/dev/null | awk '$8 ~ /^elfpmd\./' | wc -l)
		check "$1: $f: its debug file's .symtab names the stub's symbols ($n)" test "$n" -ge 20
		addr=$(stub_addr "$file")
		pr=$(symval "$debug" elfpmd.populate_range)
		if [ -z "$addr" ] || [ -z "$pr" ]; then
			fail "$1: $f: no .elfpmd.stub address ($addr) or elfpmd.populate_range ($pr)"
			continue
		fi
		objcopy --remove-section .gnu_debugdata "$file" "$work/bare" || hard_error "objcopy failed on $file"
		holds "$1: $f: gdb names the stub from the .deb's file alone (x/i, info symbol)" \
			'[ "$(gdb_names "$file" "$work/nodebug" "$addr" "$pr")" = "$want" ] && exact_info'
		holds "$1: $f: gdb names the stub with the -dbgsym's debug file (x/i, info symbol)" \
			'[ "$(gdb_names "$file" "$d/dbg/usr/lib/debug" "$addr" "$pr")" = "$want" ] && exact_info'
		holds "$1: $f: gdb names the stub from the debug file alone (without .gnu_debugdata)" \
			'[ "$(gdb_names "$work/bare" "$d/dbg/usr/lib/debug" "$addr" "$pr")" = "$want" ] && exact_info'
		check "$1: $f: (without either, gdb does not name it)" \
			test -z "$(gdb_names "$work/bare" "$work/nodebug" "$addr" "$pr" | tr -d ' ')"
	done
	LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 60 "$d/x/usr/bin/$pkg" >"$work/run.out" 2>&1
	check "$1: the program runs: $(head -1 "$work/run.out")" grep -qE "^$pkg: ok [0-9]+\$" "$work/run.out"
	stack_names "$1" "$d" "$lib"
}

# stack_names NAME DIR LIB: the crash inside the stub of the program of
# DIR, its core read by eu-stack.
stack_names () {
	local d=$2 prog=$2/x/usr/bin/$pkg id debug pr off va fo
	if ! have eu-stack; then
		skip "$1: eu-stack not found (Debian: package elfutils)"
		return
	fi
	id=$(build_id "$prog")
	debug=$d/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	pr=$(symval "$debug" elfpmd.populate_range)
	read -r off va < <(readelf -lW "$prog" | awk '$1 == "LOAD" { off = $2; va = $3 } END { print off, va }')
	fo=$((0x$pr - va + off))
	cp "$prog" "$work/crash" && printf '\017\013' | dd of="$work/crash" bs=1 seek="$fo" conv=notrunc status=none
	objcopy --remove-section .gnu_debugdata "$work/crash" "$work/crash.bare" || hard_error "objcopy failed"
	rm -f "$work/core"
	LD_LIBRARY_PATH=$d/x/$(dirname "$3") timeout 120 gdb -q -batch -nx -ex run \
		-ex "generate-core-file $work/core" "$work/crash" >"$work/gdb-crash.log" 2>&1
	if ! grep -q 'SIGILL' "$work/gdb-crash.log"; then
		skip "$1: the crash was not reached: the stub does not populate on this kernel"
		return
	fi
	if [ ! -s "$work/core" ]; then
		fail "$1: gdb wrote no core: $(tail -2 "$work/gdb-crash.log" | tr '\n' ' ')"
		return
	fi
	# frame EXE [DEBUGINFO-PATH]: eu-stack's frame #0 of the core.
	frame () {
		eu-stack --core="$work/core" -e "$1" ${2:+--debuginfo-path="$2"} 2>/dev/null |
			awk '$1 == "#0" { print $3; exit }'
	}
	check "$1: eu-stack names the crashing frame from the .deb's file alone" \
		test "$(frame "$work/crash")" = elfpmd.populate_range
	check "$1: eu-stack names it with the debug file" \
		test "$(frame "$work/crash" "$d/dbg/usr/lib/debug")" = elfpmd.populate_range
	check "$1: eu-stack names it from the debug file alone (without .gnu_debugdata)" \
		test "$(frame "$work/crash.bare" "$d/dbg/usr/lib/debug")" = elfpmd.populate_range
	check "$1: (without either, eu-stack does not name it)" \
		test -z "$(frame "$work/crash.bare" "$work/nodebug")"
}

for mode in madvise madvise=copy; do
	name=${mode/=/-}
	build "$name" "parallel=2 elfpmd=$mode" && check_names "$name"
done
finish
