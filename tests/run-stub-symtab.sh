#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symtab.sh: a file that has a symbol table (not stripped yet, as
# a package build's files are when dh_strip or find-debuginfo comes after
# elfpmd) gets the stub's symbols in that table, and its MiniDebugInfo
# too.  In .symtab: the names of the MiniDebugInfo (elfpmd.stub_main...),
# with its values and sizes, appended as global hidden symbols of section
# .elfpmd.stub, each inside it; every symbol of the input keeps its index
# and fields, sh_info stays; eu-elflint --gnu-ld accepts the file.  A file
# linked with --emit-relocs (relocation sections naming .symtab indices)
# keeps its relocations as they were.  Then what packaging does: objcopy
# --only-keep-debug and eu-strip -f put the symbols into the debug file;
# strip keeps .gnu_debugdata (eu-strip moves it into its debug file); gdb
# names the start of .elfpmd.stub and a place inside elfpmd.populate_range
# from the stripped file alone, and from the debug file alone (found by
# build ID) once .gnu_debugdata is removed; the stub's section header
# comes right after the input's last loaded section's, so that it has the
# same index in the stripped file and in the debug file.  Checked with readelf, objcopy,
# xz and gdb, not elfpmd's code.  x86-64 hosts (the fixture is built here).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the stub's symbols are checked on x86-64 hosts"
if ! have cc || ! have readelf || ! have objcopy || ! have strip || ! have xz; then
	skip_all "needs cc, readelf, objcopy, strip and xz"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A PIE with 4 MiB of text beside main: whole chunks for the stub.
bigtext_asm "$work/big.S"
cat >"$work/main.c" <<'EOF'
static int helper (int x) { return x + 6; }
int main (void) { return helper (1); }
EOF
cc -O2 -fPIE -pie -o "$work/full" "$work/main.c" "$work/big.S" || hard_error "cannot build the fixture"
cc -O2 -fPIE -pie -Wl,--emit-relocs -o "$work/relocs" "$work/main.c" "$work/big.S" \
	|| hard_error "cannot build the --emit-relocs fixture"

# syms FILE: "NAME VALUE SIZE TYPE BIND VIS NDX" of FILE's .symtab, one a
# line, in table order (readelf -sW: Num Value Size Type Bind Vis Ndx Name).
syms () {
	readelf -sW "$1" 2>/dev/null |
		awk '/^Symbol table/ { on = ($3 == "'"'"'.symtab'"'"'") ; next } on && $1 ~ /^[0-9]+:$/ { print $8, $2, $3, $4, $5, $6, $7 }'
}
# symtab_info FILE: .symtab's sh_info (the first global's index).
symtab_info () { readelf -SW "$1" | awk '$2 == ".symtab" { print $(NF - 1) }'; }
# stub_sec FILE: "INDEX ADDRESS SIZE" (hex) of .elfpmd.stub.
stub_sec () { readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *\([0-9]*\)\] \.elfpmd\.stub *[A-Z]* *\([0-9a-f]*\) *[0-9a-f]* *\([0-9a-f]*\).*/\1 \2 \3/p'; }

for f in full relocs; do
	"$ELFPMD" -q --madvise -o "$work/$f.rw" "$work/$f" || hard_error "elfpmd --madvise failed on $f"
	"$work/$f.rw"
	check "$f: the rewrite runs as the original (exit 7)" test $? = 7
	syms "$work/$f" >"$work/$f.syms-in"
	syms "$work/$f.rw" >"$work/$f.syms-out"
	n_in=$(wc -l <"$work/$f.syms-in")
	holds "$f: the input's $n_in symbols keep their index and fields" \
		'[ "$n_in" -gt 10 ] && head -n "$n_in" "$work/$f.syms-out" | cmp -s - "$work/$f.syms-in"'
	check "$f: sh_info of .symtab stays $(symtab_info "$work/$f")" \
		test "$(symtab_info "$work/$f")" = "$(symtab_info "$work/$f.rw")"
	tail -n +$((n_in + 1)) "$work/$f.syms-out" >"$work/$f.added"
	n=$(wc -l <"$work/$f.added")
	check "$f: $n symbols appended" test "$n" -ge 20
	read -r index addr size < <(stub_sec "$work/$f.rw")
	lo=$((0x${addr:-0}))
	hi=$((lo + 0x${size:-0}))
	bad=$(while read -r name value sz type bind vis ndx; do
		v=$((0x$value))
		if [ "${name#elfpmd.}" = "$name" ] || [ "$bind" != GLOBAL ] || [ "$vis" != HIDDEN ] ||
			[ "$ndx" != "$index" ] || [ "$v" -lt "$lo" ] || [ $((v + sz)) -gt "$hi" ] ||
			{ [ "$type" != FUNC ] && [ "$name" != elfpmd.stub_params ]; }; then
			echo "$name"
		fi
	done <"$work/$f.added")
	check "$f: each an elfpmd.* symbol, global and hidden, inside .elfpmd.stub${bad:+ (not: $bad)}" test -z "$bad"
	for s in stub_entry stub_main populate_range repair_range stub_params; do
		check "$f: elfpmd.$s is among them" grep -q "^elfpmd\.$s " "$work/$f.added"
	done
	# The same names, values and sizes as the MiniDebugInfo's.
	if objcopy --dump-section .gnu_debugdata="$work/$f.xz" "$work/$f.rw" "$work/scratch" 2>/dev/null; then
		pass "$f: the rewrite has the stub's MiniDebugInfo too"
		xz -dc "$work/$f.xz" >"$work/$f.mini" 2>/dev/null
		syms "$work/$f.mini" | awk '$1 ~ /^elfpmd\./ { print $1, $2, $3, $4 }' >"$work/$f.mini-syms"
		awk '{ print $1, $2, $3, $4 }' "$work/$f.added" >"$work/$f.added4"
		check "$f: .symtab and the MiniDebugInfo name the same symbols at the same places" \
			cmp -s "$work/$f.mini-syms" "$work/$f.added4"
	else
		fail "$f: the rewrite has no .gnu_debugdata"
	fi
	if have eu-elflint; then
		check "$f: eu-elflint --gnu-ld accepts the rewrite" eu-elflint --gnu-ld -q "$work/$f.rw"
	fi
done
"$ELFPMD" -n --json --madvise "$work/full" >"$work/json"
check "the report counts the symbols" grep -q '"symbols":[1-9]' "$work/json"
"$ELFPMD" -n --madvise "$work/full" >"$work/text"
check "the report says where they go" grep -q "in the symbol table and in a new .gnu_debugdata" "$work/text"

# --emit-relocs: the relocation sections name .symtab indices, which did
# not change.
rels () { readelf -rW "$1" 2>/dev/null | grep -v '^Relocation section' | awk 'NF >= 5 { print $1, $3, $5 }'; }
holds "relocs: the relocation sections read the same (names through unchanged indices)" \
	'[ "$(rels "$work/relocs" | wc -l)" -gt 10 ] && [ "$(rels "$work/relocs")" = "$(rels "$work/relocs.rw")" ]'

# What packaging does with it.
rw=$work/full.rw
objcopy --only-keep-debug "$rw" "$work/keep.debug" && strip -o "$work/stripped" "$rw" ||
	hard_error "objcopy --only-keep-debug or strip failed"
check "objcopy --only-keep-debug: the debug file names the stub's symbols" \
	test "$(syms "$work/keep.debug" | grep -c '^elfpmd\.')" = "$n"
check "strip: no symbol table left, .gnu_debugdata kept" \
	test "$(readelf -SW "$work/stripped" | grep -c ' SYMTAB ')" = 0 -a \
	"$(readelf -SW "$work/stripped" | grep -c '\.gnu_debugdata')" = 1
"$work/stripped"
check "strip: the program runs (exit 7)" test $? = 7
# gdb takes a debug file's symbol's section by its index in the stripped
# file: the stub's section keeps its index in both, its header right
# after the input's last loaded section's, before the ones strip removes.
stub_index () { readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \.elfpmd\.stub .*/\1/p'; }
last_loaded () { readelf -SW "$1" | awk '/^ *\[ *[0-9]+\]/ { sub(/^ *\[ */, ""); i = $1 + 0; if ($0 ~ / [WAXMSILOGTE]*A[WAXMSILOGTE]* /) last = i } END { print last }'; }
check "the stub's section is the last loaded one ($(stub_index "$rw") of $(last_loaded "$rw")), after the input's ($(last_loaded "$work/full"))" \
	test "$(stub_index "$rw")" = "$(last_loaded "$rw")" -a "$(stub_index "$rw")" = $(($(last_loaded "$work/full") + 1))
check "its index is the same in the stripped file ($(stub_index "$work/stripped")) and the debug file ($(stub_index "$work/keep.debug"))" \
	test -n "$(stub_index "$rw")" -a "$(stub_index "$work/stripped")" = "$(stub_index "$work/keep.debug")"
if have eu-strip; then
	eu-strip -f "$work/eu.debug" -o "$work/eu.stripped" "$rw"
	check "eu-strip -f: the debug file names the stub's symbols" \
		test "$(syms "$work/eu.debug" | grep -c '^elfpmd\.')" = "$n"
	"$work/eu.stripped"
	check "eu-strip: the program runs (exit 7)" test $? = 7
	[ "$(readelf -SW "$work/eu.stripped" | grep -c '\.gnu_debugdata')" = 0 ] &&
		note "eu-strip moved .gnu_debugdata into its debug file, as it does a debug section"
fi

if have gdb; then
	# gdb_names FILE DEBUGDIR: what gdb's info symbol says of the start of
	# .elfpmd.stub and of 4 bytes into elfpmd.populate_range, with
	# DEBUGDIR as its debug-file-directory.
	pr=$(awk '$1 == "elfpmd.populate_range" { print $2 }' "$work/full.added")
	read -r _ addr _ < <(stub_sec "$rw")
	gdb_names () {
		gdb -q -batch -nx -ex "set debug-file-directory $2" -ex "file $1" \
			-ex "info symbol 0x$addr" -ex "info symbol 0x$pr + 4" 2>&1 | grep ' in section '
	}
	want="elfpmd.stub_entry in section .elfpmd.stub
elfpmd.populate_range + 4 in section .elfpmd.stub"
	mkdir -p "$work/nodebug" "$work/debug"
	names=$(gdb_names "$work/stripped" "$work/nodebug" | sed 's/ of .*//')
	check "gdb names the stub from the stripped file alone (its .gnu_debugdata)" test "$names" = "$want"
	# The debug file alone: found by build ID, the stripped file without
	# its MiniDebugInfo.
	id=$(readelf -n "$rw" | awk '/Build ID:/ { print $NF; exit }')
	objcopy --remove-section .gnu_debugdata "$work/stripped" "$work/bare" || hard_error "objcopy failed"
	mkdir -p "$work/debug/.build-id/${id:0:2}" && cp "$work/keep.debug" "$work/debug/.build-id/${id:0:2}/${id:2}.debug"
	names=$(gdb_names "$work/bare" "$work/debug" | sed 's/ of .*//')
	check "gdb names the stub from the debug file alone (its .symtab)" test "$names" = "$want"
	names=$(gdb_names "$work/bare" "$work/nodebug" | sed 's/ of .*//')
	check "(without either, gdb does not name it)" test -z "$names"
fi
finish
