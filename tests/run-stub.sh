#!/bin/bash
# The committed stub machine code (src/stub_x86_64.h) is what
# tools/gen-stub.sh makes from stub/: regenerate it and compare byte for byte,
# so the reviewed source is the code that ships.  Another compiler or linker
# may emit other bytes for the same source, so the comparison is made only
# with the versions the header records; elsewhere the test is skipped (77).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

top=$TESTS_SRCDIR/..
header=$top/src/stub_x86_64.h
cc=${CC_STUB:-gcc}
if [ "$(uname -m)" != x86_64 ] || ! have "$cc" || ! have ld || ! have objcopy || ! have nm; then
	skip "the x86-64 stub needs $cc, ld, objcopy and nm for x86-64 to regenerate"
	finish
fi
made_cc=$(sed -n 's/^   Compiler: //p' "$header")
made_ld=$(sed -n 's/^   Linker: //p' "$header")
this_cc=$("$cc" --version 2> /dev/null | head -n 1)
this_ld=$(ld --version 2> /dev/null | head -n 1)
if [ -z "$made_cc" ] || [ -z "$made_ld" ]; then
	fail "src/stub_x86_64.h does not say which compiler and linker made it (regenerate it with tools/gen-stub.sh)"
	finish
fi
if [ "$made_cc" != "$this_cc" ] || [ "$made_ld" != "$this_ld" ]; then
	skip "src/stub_x86_64.h was made with '$made_cc' and '$made_ld', here are '$this_cc' and '$this_ld': other versions may emit other bytes, so it is not regenerated and compared"
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/stub_x86_64.h
if sh "$top/tools/gen-stub.sh" "$out" > /dev/null; then
	pass "tools/gen-stub.sh builds the stub"
	if cmp -s "$out" "$header"; then
		pass "src/stub_x86_64.h is what stub/ generates"
	else
		fail "src/stub_x86_64.h differs from a fresh tools/gen-stub.sh (regenerate and commit it)"
		diff "$out" "$header" | head -10 | sed 's/^/      /'
	fi
else
	fail "tools/gen-stub.sh fails"
fi
# The generated code must not depend on where it is loaded: no absolute
# addresses means the same bytes whatever the link address; gen-stub.sh
# refuses relocations, and this checks the entry point is the first byte.
grep -q '^#define STUB_X86_64_ENTRY 0x0*$' "$header" \
	&& pass "the stub's entry point is its first byte" \
	|| fail "the stub's entry point moved: $(grep ENTRY "$header")"

# The skip itself: with a compiler that reports another version (the same
# compiler behind a wrapper), this test must skip with exit 77, not fail.
if [ -z "${RUN_STUB_INNER:-}" ]; then
	cc_path=$(command -v "$cc")
	printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "gcc (another build) 0.0.0"; exit 0; fi\nexec "%s" "$@"\n' \
		"$cc_path" > "$work/cc"
	chmod +x "$work/cc"
	RUN_STUB_INNER=1 CC_STUB=$work/cc bash "$TESTS_SRCDIR/run-stub.sh" > "$work/inner.log" 2>&1
	rc=$?
	if [ "$rc" -eq 77 ] && grep -q "^SKIP: .*'gcc (another build) 0.0.0'" "$work/inner.log"; then
		pass "another compiler version skips the comparison (exit 77, with the reason)"
	else
		fail "another compiler version: exit $rc, expected 77 and a SKIP naming it"
		sed 's/^/      /' "$work/inner.log"
	fi
fi
finish
