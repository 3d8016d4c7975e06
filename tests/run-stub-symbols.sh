#!/bin/bash
# run-stub-symbols.sh: a crash inside the stub can be attributed.  With
# --stub-symbols, a file without a symbol table (stripped, as distributions
# ship them) gets one that names the stub's functions (elfpmd.stub_main, elfpmd.populate_range...),
# local symbols inside .elfpmd.stub; eu-elflint accepts it; a crash forced in
# the stub (an illegal instruction written over the start of
# elfpmd.populate_range in a copy of the rewrite) shows those names in gdb's
# backtrace, where the rewrite without them shows "??"; GNU strip and eu-strip
# drop them and the program still runs; a file that has a symbol table keeps
# exactly its own; without --stub-symbols nothing is added (file(1) still says
# "stripped").  x86-64 only (the crash is an x86-64 instruction).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the stub's symbols are checked on x86-64 hosts"
if ! have cc || ! have readelf; then skip_all "needs cc and readelf"; fi
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
cc -O2 -fPIE -pie -o "$work/full" "$work/main.c" "$work/big.S" || hard_error "cannot build the fixture"
cp "$work/full" "$work/stripped"
strip "$work/stripped"

"$ELFPMD" -q --madvise -o "$work/plain" "$work/stripped" || hard_error "elfpmd --madvise failed on the fixture"
check "without --stub-symbols no symbol table is added" \
	test "$(readelf -SW "$work/plain" | grep -c ' SYMTAB ')" = 0
if have file; then
	check "file(1) still calls it stripped" sh -c "file '$work/plain' | grep -q ', stripped'"
fi
"$ELFPMD" -q --madvise --stub-symbols -o "$work/rw" "$work/stripped" ||
	hard_error "elfpmd --madvise --stub-symbols failed on the fixture"
"$ELFPMD" -n --json --madvise --stub-symbols "$work/stripped" >"$work/json"
"$ELFPMD" --stub-symbols "$work/stripped" 2>/dev/null
check "--stub-symbols without --madvise is a usage error (64)" test $? = 64
check "the report counts the symbols" grep -q '"symbols":[1-9]' "$work/json"
"$work/rw"
check "the rewrite runs as the original (exit 7)" test $? = 7

# Independently of elfpmd: the stub's section, and the symbols readelf lists.
symtabs=$(readelf -SW "$work/rw" | grep -c ' SYMTAB ')
check "the stripped file gets one symbol table" test "$symtabs" = 1
readelf -sW "$work/rw" | awk '/Symbol table .\.symtab./ { on = 1; next } on && $8 ~ /^elfpmd\./ { print $2, $3, $4, $5, $7, $8 }' \
	>"$work/syms"
n=$(wc -l <"$work/syms")
check "it names the stub's functions ($n symbols)" test "$n" -ge 20
for f in stub_entry stub_main populate_range repair_range guard_neighbours stub_params; do
	check "elfpmd.$f is among them" grep -q " elfpmd\.$f\$" "$work/syms"
done
stub_index=$(readelf -SW "$work/rw" | sed -n 's/^ *\[ *\([0-9]*\)\] \.elfpmd\.stub .*/\1/p')
stub_line=$(readelf -SW "$work/rw" | sed -n 's/^ *\[ *[0-9]*\] \.elfpmd\.stub *PROGBITS *\([0-9a-f]*\) *[0-9a-f]* *\([0-9a-f]*\).*/\1 \2/p')
lo=$((0x${stub_line% *}))
hi=$((lo + 0x${stub_line#* }))
bad=$(while read -r value size type bind ndx name; do
	v=$((0x$value))
	if [ "$bind" != LOCAL ] || [ "$ndx" != "$stub_index" ] || [ "$v" -lt "$lo" ] || [ $((v + size)) -gt "$hi" ] ||
		{ [ "$type" != FUNC ] && [ "$name" != elfpmd.stub_params ]; }; then
		echo "$name"
	fi
done <"$work/syms")
check "every one is local, inside .elfpmd.stub [$lo, $hi)${bad:+ (not: $bad)}" test -z "$bad"
if have eu-elflint; then
	check "eu-elflint accepts the rewrite" eu-elflint --gnu-ld -q "$work/rw"
fi

# A crash forced in the stub: ud2 over the start of elfpmd.populate_range,
# which stub_main calls at every start here (Linux 6.18, THP madvise) --
# where the running kernel gives the stub nothing to do, the crash is not
# reached, and the test says so.
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
	# The same crash without the symbols: what gdb showed before.
	have objcopy && objcopy --strip-all "$work/crash" "$work/crash.nosym" 2>/dev/null &&
		gdb -q -batch -nx -ex run -ex bt "$work/crash.nosym" 2>&1 | grep -q '^#0 .* in ?? ()' &&
		note "without them (objcopy --strip-all): gdb shows ?? ()"
fi

for tool in strip eu-strip; do
	have "$tool" || continue
	"$tool" -o "$work/rw.$tool" "$work/rw" 2>"$work/$tool.log"
	"$work/rw.$tool"
	rc=$?
	left=$(readelf -sW "$work/rw.$tool" | grep -c 'elfpmd\.')
	check "$tool drops the stub's symbols ($left left) and the program still runs (exit $rc)" \
		test "$rc" = 7 -a "$left" = 0
done

# A file with its own symbol table keeps it, and only it.
"$ELFPMD" -q --madvise --stub-symbols -o "$work/rw.full" "$work/full" || hard_error "elfpmd --madvise failed on the unstripped fixture"
"$work/rw.full"
check "the unstripped rewrite runs (exit 7)" test $? = 7
check "it keeps one symbol table, its own, without the stub's names" \
	test "$(readelf -SW "$work/rw.full" | grep -c ' SYMTAB ')" = 1 -a \
	"$(readelf -sW "$work/rw.full" | grep -c ' elfpmd\.')" = 0
check "its symbols are the input's" \
	test "$(readelf -sW "$work/full" | awk '/\.symtab/ { on = 1 } on' | md5sum)" = \
	"$(readelf -sW "$work/rw.full" | awk '/\.symtab/ { on = 1 } on' | md5sum)"
finish
