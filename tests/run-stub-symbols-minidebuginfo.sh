#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols-minidebuginfo.sh: the --madvise rewrite of a stripped
# file gets the stub's MiniDebugInfo, checked with objcopy, xz and readelf,
# not elfpmd's code: a section .gnu_debugdata holding one xz stream of a
# small ELF file whose symbol table names the stub's functions
# (elfpmd.stub_main, elfpmd.populate_range...), local symbols inside a
# section .elfpmd.stub at the address and of the size of the rewrite's.
# (A file that has a symbol table gets the MiniDebugInfo too, and the
# symbols in that table: tests/run-stub-symtab.sh.)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_symbols_start
cp rw rw.before
stub_symbols rw >syms
if [ -s mini.xz ]; then
	pass "the rewrite has a .gnu_debugdata section"
else
	fail "the rewrite has no .gnu_debugdata section"
fi
check "it holds one valid xz stream" xz -t mini.xz
check "objcopy left the rewrite as it was" cmp -s rw rw.before
n=$(wc -l <syms)
check "its symbol table names the stub's functions ($n symbols)" test "$n" -ge 20
for f in stub_entry stub_main populate_range repair_range guard_neighbours stub_params; do
	check "elfpmd.$f is among them" grep -q " elfpmd\.$f\$" syms
done
# The stub's section, in the rewrite and in the MiniDebugInfo: the same
# address and size; every symbol local, inside it.
stub_sec () { readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *\([0-9]*\)\] \.elfpmd\.stub *[A-Z]* *\([0-9a-f]*\) *[0-9a-f]* *\([0-9a-f]*\).*/\1 \2 \3/p'; }
read -r _ addr size < <(stub_sec rw)
read -r mini_index mini_addr mini_size < <(stub_sec mini)
check "the MiniDebugInfo's .elfpmd.stub is the rewrite's (0x$addr, 0x$size)" \
	test -n "$addr" -a "$addr" = "$mini_addr" -a "$size" = "$mini_size"
lo=$((0x${addr:-0}))
hi=$((lo + 0x${size:-0}))
bad=$(while read -r value sz type bind ndx name; do
	v=$((0x$value))
	if [ "$bind" != LOCAL ] || [ "$ndx" != "$mini_index" ] || [ "$v" -lt "$lo" ] || [ $((v + sz)) -gt "$hi" ] ||
		{ [ "$type" != FUNC ] && [ "$name" != elfpmd.stub_params ]; }; then
		echo "$name"
	fi
done <syms)
check "every one is local, inside .elfpmd.stub${bad:+ (not: $bad)}" test -z "$bad"
test_finish
