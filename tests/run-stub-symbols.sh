#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols.sh: a crash inside the stub can be attributed.  A file
# without a symbol table (stripped, as distributions ship them) gets the
# stub's MiniDebugInfo: a section .gnu_debugdata holding an xz stream of a
# small ELF file whose symbol table names the stub's functions
# (elfpmd.stub_main, elfpmd.populate_range...), local symbols inside a
# section named .elfpmd.stub at the stub's address.  Checked with xz and
# readelf, not elfpmd's code; file(1) still calls the file stripped (lintian
# would report a symbol table); eu-elflint accepts it; a crash forced in the
# stub (an illegal instruction written over the start of
# elfpmd.populate_range in a copy of the rewrite) shows those names in gdb's
# backtrace, without a warning; strip and eu-strip keep the program running.
# (A file that has a symbol table gets the MiniDebugInfo too, and the
# symbols in that table: tests/run-stub-symtab.sh.)  x86-64 only (the crash
# is an x86-64 instruction).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the stub's symbols are checked on x86-64 hosts"
if ! have cc || ! have readelf || ! have objcopy || ! have xz; then
	skip_all "needs cc, readelf, objcopy and xz"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A PIE with 4 MiB of text beside main: whole chunks for the stub.
cat >"$work/big.S" <<'EOF'
	.section .text.big, "ax", @progbits
	.p2align 12
big_text:
	.fill	4 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
echo 'int main (void) { return 7; }' >"$work/main.c"
cc -O2 -fPIE -pie -o "$work/stripped" "$work/main.c" "$work/big.S" || hard_error "cannot build the fixture"
strip "$work/stripped"

"$ELFPMD" -q --madvise -o "$work/rw" "$work/stripped" || hard_error "elfpmd --madvise failed on the fixture"
"$work/rw"
check "the rewrite runs as the original (exit 7)" test $? = 7
"$ELFPMD" -n --json --madvise "$work/stripped" >"$work/json"
check "the report counts the symbols" grep -q '"symbols":[1-9]' "$work/json"
check "no symbol table in the file itself" test "$(readelf -SW "$work/rw" | grep -c ' SYMTAB ')" = 0
if have file; then
	check "file(1) still calls it stripped" sh -c "file '$work/rw' | grep -q ', stripped'"
fi
if objcopy --dump-section .gnu_debugdata="$work/mini.xz" "$work/rw" 2>/dev/null; then
	pass "the rewrite has a .gnu_debugdata section"
else
	fail "the rewrite has no .gnu_debugdata section"
fi
check "it holds one valid xz stream" xz -t "$work/mini.xz"
xz -dc "$work/mini.xz" >"$work/mini" 2>/dev/null
readelf -sW "$work/mini" 2>/dev/null |
	awk '/Symbol table .\.symtab./ { on = 1; next } on && $8 ~ /^elfpmd\./ { print $2, $3, $4, $5, $7, $8 }' >"$work/syms"
n=$(wc -l <"$work/syms")
check "its symbol table names the stub's functions ($n symbols)" test "$n" -ge 20
for f in stub_entry stub_main populate_range repair_range guard_neighbours stub_params; do
	check "elfpmd.$f is among them" grep -q " elfpmd\.$f\$" "$work/syms"
done
# The stub's section, in the rewrite and in the MiniDebugInfo: the same
# address and size; every symbol local, inside it.
stub_sec () { readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *\([0-9]*\)\] \.elfpmd\.stub *[A-Z]* *\([0-9a-f]*\) *[0-9a-f]* *\([0-9a-f]*\).*/\1 \2 \3/p'; }
read -r _ addr size < <(stub_sec "$work/rw")
read -r mini_index mini_addr mini_size < <(stub_sec "$work/mini")
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
done <"$work/syms")
check "every one is local, inside .elfpmd.stub${bad:+ (not: $bad)}" test -z "$bad"
if have eu-elflint; then
	check "eu-elflint accepts the rewrite" eu-elflint --gnu-ld -q "$work/rw"
fi

# A crash forced in the stub: ud2 over the start of elfpmd.populate_range,
# which stub_main calls at every start where the kernel lets the stub
# populate (Linux 5.18+ on ext4 6.16+ or xfs); elsewhere it is not reached,
# and the test says so.
pr=$(awk '$6 == "elfpmd.populate_range" { print $1 }' "$work/syms")
seg=$(readelf -lW "$work/rw" | awk '$1 == "LOAD" { off = $2; va = $3 } END { print off, va }')
file_off=$((0x$pr - ${seg#* } + ${seg% *}))
cp "$work/rw" "$work/crash"
printf '\017\013' | dd of="$work/crash" bs=1 seek="$file_off" conv=notrunc status=none
{ "$work/crash"; } 2>/dev/null
rc=$?
if [ "$rc" != 132 ]; then
	skip "the forced crash was not reached (exit $rc): the stub does not populate on this kernel"
elif ! have gdb; then
	skip "gdb is not installed"
else
	gdb -q -batch -nx -ex run -ex bt "$work/crash" >"$work/gdb.log" 2>&1
	if grep -q '^#0 .* in elfpmd\.populate_range ()' "$work/gdb.log" &&
		grep -q '^#1 .* in elfpmd\.stub_main ()' "$work/gdb.log"; then
		pass "gdb names the crashing frame elfpmd.populate_range, called from elfpmd.stub_main"
	else
		fail "gdb does not name the stub's frames"
		sed 's/^/      /' "$work/gdb.log"
	fi
	check "gdb has no warning about the MiniDebugInfo" sh -c "! grep -qi 'warning.*gnu_debugdata' '$work/gdb.log'"
	# The same crash without it: what gdb showed before.
	objcopy --remove-section .gnu_debugdata "$work/crash" "$work/crash.bare" 2>/dev/null &&
		gdb -q -batch -nx -ex run -ex bt "$work/crash.bare" 2>&1 | grep -q '^#0 .* in ?? ()' &&
		note "without it: gdb shows ?? ()"
fi

for tool in strip eu-strip; do
	have "$tool" || continue
	"$tool" -o "$work/rw.$tool" "$work/rw" 2>"$work/$tool.log"
	"$work/rw.$tool"
	check "$tool: the program still runs (exit $?)" test "$?" = 7
done
finish
