#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-demangle.sh: elfpmd map -C shows C++ functions by their demangled
# names (from the symbol table, and from DWARF's linkage names), as c++filt
# (binutils, which shares no code with elfpmd) gives them; without -C the
# mangled names stay; --hot finds a function by its mangled name under -C
# too; a build without a demangler refuses -C as a usage error.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

work=$TESTS_BUILDDIR/map-demangle-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
have g++ || skip_all "g++ not found: no C++ program to map"
have c++filt || skip_all "c++filt not found (Debian: package binutils)"
cat > "$work/cx.cc" <<'CC'
namespace ns { __attribute__ ((noinline)) int twice (int x) { return 2 * x; } }
int main (int argc, char **) { return ns::twice (argc) - 2 * argc; }
CC
g++ -O2 -o "$work/cx" "$work/cx.cc" && g++ -O2 -g -o "$work/cx-g" "$work/cx.cc" \
	|| hard_error "cannot build the C++ program"

"$ELFPMD" map -C "$work/cx" > "$work/c.out" 2> "$work/c.err"
st=$?
if [ $st -eq 64 ] && grep -q "built without a demangler" "$work/c.err"; then
	pass "-C refused as a usage error by a build without a demangler: $(head -1 "$work/c.err")"
	finish
fi
mangled=_ZN2ns5twiceEi
want=$(c++filt "$mangled")
check "c++filt demangles $mangled to '$want'" test "$want" = "ns::twice(int)"
holds "-C, names from the symbol table: '$want', not $mangled" \
	'[ $st -eq 0 ] && grep -qF "$want (" "$work/c.out" && ! grep -q "$mangled" "$work/c.out"'
"$ELFPMD" map "$work/cx" > "$work/plain.out" 2>&1
check "without -C: $mangled as it is" grep -q "$mangled (" "$work/plain.out"
"$ELFPMD" map -C --json "$work/cx" > "$work/c.json" 2>&1
check "-C --json: the demangled name" grep -qF "\"name\":\"$want\"" "$work/c.json"
"$ELFPMD" map -C "$work/cx-g" > "$work/g.out" 2>&1
holds "-C, names from DWARF (the linkage name demangled): '$want'" \
	'grep -q "^names: DWARF in " "$work/g.out" && grep -qF "$want (" "$work/g.out"'
echo "$mangled 5" > "$work/hot.txt"
"$ELFPMD" map -C --hot="$work/hot.txt" "$work/cx" > "$work/hot.out" 2>&1
holds "-C --hot: the mangled name is found (weight 5, none unresolved)" \
	'grep -q "^hot: 1 lines, total weight 5, .* unresolved 0 lines" "$work/hot.out"'

rm -rf "$work"
finish
