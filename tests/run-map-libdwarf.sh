#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-libdwarf.sh: elfpmd map reads the same DWARF names whichever
# libdwarf API it was built with.  This build and ELFPMD_OTHER_LIBDWARF, an
# elfpmd built against the other API (tools/setup.sh check builds one with
# Debian 13's libdwarf 0.11 in _build-dwarf0), map a program of a C and a
# C++ compilation unit (a function in a namespace, a member defined outside
# its class), with its DWARF in the file and in a debug file found by build
# ID; their reports must be the same byte for byte and name the units from
# DWARF.  Skipped (77) without ELFPMD_OTHER_LIBDWARF.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

other=${ELFPMD_OTHER_LIBDWARF:-}
[ -n "$other" ] || skip_all "no elfpmd built against the other libdwarf API: ELFPMD_OTHER_LIBDWARF is not set (tools/setup.sh check sets it)"
[ -x "$other" ] || hard_error "ELFPMD_OTHER_LIBDWARF=$other is not an executable file"
# api ELFPMD: the libdwarf API the build of ELFPMD uses (configure's LIBDWARF_API).
api () { sed -n 's/^#define LIBDWARF_API "\(.*\)"$/\1/p' "$(dirname "$1")/../config.h" 2>/dev/null; }
mine=$(api "$ELFPMD") theirs=$(api "$other")
[ -n "$mine" ] && [ -n "$theirs" ] || skip_all "a build without libdwarf: '$mine', '$theirs'"
holds "the two builds use different libdwarf APIs: $mine; $theirs" '[ "${mine%% *}" != "${theirs%% *}" ]'
for t in gcc g++ objcopy strip readelf; do
	have "$t" || skip_all "$t not found"
done

w=$TESTS_BUILDDIR/map-libdwarf-work
rm -rf "$w"
mkdir -p "$w" && cd "$w" || hard_error "cannot create $w"
block='#define BLOCK(name, size) __attribute__ ((naked, noinline)) void name (void) { __asm__ (".fill " #size ", 1, 0xcc\n\tret"); }'
printf '%s\nBLOCK (lead, 0x100000)\nint twice (int x) { return 2 * x; }\nint main (int argc, char **argv) { return twice (argc) - 2 * argc; }\n' "$block" >a.c
printf '%s\nnamespace ns { BLOCK (inb, 0x180000) }\nstruct K { static void cross (void); };\nBLOCK (K::cross, 0x180000)\n' "$block" >b.cc
{ gcc -g -O2 -c a.c && g++ -g -O2 -c b.cc && g++ -no-pie -Wl,--build-id -o prog a.o b.o; } 2>build.log \
	|| skip_all "cannot build the fixture: $(tail -1 build.log)"
id=$(readelf -n prog | awk '/Build ID/ { print $3 }')
mkdir -p "root/.build-id/${id:0:2}" && objcopy --only-keep-debug prog "root/.build-id/${id:0:2}/${id:2}.debug" \
	&& cp prog prog-bid && strip --strip-all prog-bid || hard_error "cannot make the debug file of prog"
export ELFPMD_DEBUG_ROOT=$w/root

n=0
for args in "prog" "--json prog" "-C prog" "-C prog-bid"; do
	n=$((n + 1))
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" map $args >mine.$n 2>&1
	# shellcheck disable=SC2086
	"$other" map $args >theirs.$n 2>&1
	check "map $args: the same report from both builds" cmp mine.$n theirs.$n
done
holds "the text report names the units from DWARF" 'grep -q "^names: DWARF in prog " mine.1 && grep -q "CUs: a\.c (.*b\.cc (" mine.1'
holds "-C names the C++ functions from DWARF" 'grep -q "K::cross() (" mine.3 && grep -q "ns::inb() (" mine.3'
check "the stripped file's names come from its debug file, found by build ID" \
	grep -q "^names: DWARF in $w/root/.build-id/${id:0:2}/${id:2}.debug (build-id)" mine.4
note "$(sed -n 2p mine.4)"
finish
