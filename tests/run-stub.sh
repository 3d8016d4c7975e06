#!/bin/bash
# The committed stub machine code (src/stub_x86_64.h) is what
# tools/gen-stub.sh makes from stub/: regenerate it and compare byte for byte,
# so the reviewed source is the code that ships.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

top=$TESTS_SRCDIR/..
if [ "$(uname -m)" != x86_64 ] || ! have gcc || ! have ld || ! have objcopy || ! have nm; then
	skip "the x86-64 stub needs gcc, ld, objcopy and nm for x86-64 to regenerate"
	finish
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if sh "$top/tools/gen-stub.sh" "$out" > /dev/null; then
	pass "tools/gen-stub.sh builds the stub"
	if cmp -s "$out" "$top/src/stub_x86_64.h"; then
		pass "src/stub_x86_64.h is what stub/ generates"
	else
		fail "src/stub_x86_64.h differs from a fresh tools/gen-stub.sh (regenerate and commit it)"
		diff "$out" "$top/src/stub_x86_64.h" | head -10 | sed 's/^/      /'
	fi
else
	fail "tools/gen-stub.sh fails"
fi
# The generated code must not depend on where it is loaded: no absolute
# addresses means the same bytes whatever the link address; gen-stub.sh
# refuses relocations, and this checks the entry point is the first byte.
grep -q '^#define STUB_X86_64_ENTRY 0x0*$' "$top/src/stub_x86_64.h" \
	&& pass "the stub's entry point is its first byte" \
	|| fail "the stub's entry point moved: $(grep ENTRY "$top/src/stub_x86_64.h")"
finish
