#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# The committed stub machine code (src/inject/generated/stub_x86_64.h, src/inject/generated/stub_aarch64.h,
# src/inject/generated/stub_riscv64.h) is what tools/gen-stub.sh makes from stub/:
# regenerate each and compare byte for byte, so the reviewed source is the
# code that ships.  Another compiler or linker may emit other bytes for the
# same source, so the comparison is made only with the versions the header
# records; elsewhere that architecture is skipped (77 when all are).  The
# cross-built ones need the Debian cross toolchains (aarch64-linux-gnu-gcc,
# riscv64-linux-gnu-gcc and their binutils).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

top=$TESTS_SRCDIR/..
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# compare ARCH CC LD TOOLS_PREFIX: regenerate src/inject/generated/stub_ARCH.h with CC and
# LD and compare it with the committed one.
compare () {
	local arch=$1 cc=$2 ld=$3 tools=$4 header=$top/src/inject/generated/stub_$1.h upper
	upper=$(echo "$arch" | tr 'a-z' 'A-Z')
	if ! have "$cc" || ! have "$ld" || ! have "${tools}objcopy" || ! have "${tools}nm"; then
		skip "$arch: the stub needs $cc, $ld, ${tools}objcopy and ${tools}nm to regenerate"
		return
	fi
	local made_cc made_ld this_cc this_ld
	made_cc=$(sed -n 's/^   Compiler: //p' "$header")
	made_ld=$(sed -n 's/^   Linker: //p' "$header")
	this_cc=$("$cc" --version 2> /dev/null | head -n 1)
	this_ld=$("$ld" --version 2> /dev/null | head -n 1)
	if [ -z "$made_cc" ] || [ -z "$made_ld" ]; then
		fail "src/inject/generated/stub_$arch.h does not say which compiler and linker made it (regenerate it with tools/gen-stub.sh $arch)"
		return
	fi
	if [ "$made_cc" != "$this_cc" ] || [ "$made_ld" != "$this_ld" ]; then
		skip "src/inject/generated/stub_$arch.h was made with '$made_cc' and '$made_ld', here are '$this_cc' and '$this_ld': other versions may emit other bytes, so it is not regenerated and compared"
		return
	fi
	local out=$work/stub_$arch.h
	if sh "$top/tools/gen-stub.sh" "$arch" "$out" > /dev/null; then
		pass "tools/gen-stub.sh $arch builds the stub"
		if cmp -s "$out" "$header"; then
			pass "src/inject/generated/stub_$arch.h is what stub/ generates"
		else
			fail "src/inject/generated/stub_$arch.h differs from a fresh tools/gen-stub.sh $arch (regenerate and commit it)"
			diff "$out" "$header" | head -10 | sed 's/^/      /'
		fi
	else
		fail "tools/gen-stub.sh $arch fails"
	fi
	# The generated code must not depend on where it is loaded: no
	# absolute addresses means the same bytes whatever the link address;
	# gen-stub.sh refuses relocations, and this checks the entry point is
	# the first byte.
	grep -q "^#define STUB_${upper}_ENTRY 0x0*\$" "$header" \
		&& pass "$arch: the stub's entry point is its first byte" \
		|| fail "$arch: the stub's entry point moved: $(grep ENTRY "$header")"
}

if [ "$(uname -m)" = x86_64 ]; then
	compare x86_64 "${CC_STUB:-gcc}" "${LD_STUB:-ld}" ""
else
	skip "x86_64: regenerated on x86-64 hosts only"
fi
for arch in aarch64 riscv64; do
	[ -f "$top/src/inject/generated/stub_$arch.h" ] || continue
	compare "$arch" "${CC_STUB:-$arch-linux-gnu-gcc}" "${LD_STUB:-$arch-linux-gnu-ld}" "$arch-linux-gnu-"
done

# The stub's stack: tools/gen-stub.sh refuses a stub whose deepest call path
# (the entry's frame, then the C frames gcc's -fcallgraph-info=su reports)
# needs more than STUB_STACK_MAX bytes (stub/runtime.h: a library's
# initialiser may run on a 16 KiB thread stack).  Checked with whatever
# version of each architecture's compiler is here, not only the recorded
# one; then with a frame of 4 KiB added to one function, which it must
# refuse.
stack_check () {
	local arch=$1 cc=$2 ld=$3 tools=$4 log=$work/stack_$1.log
	if ! have "$cc" || ! have "$ld" || ! have "${tools}objcopy" || ! have "${tools}nm"; then
		skip "$arch stack: no $cc here"
		return
	fi
	if CC_STUB=$cc LD_STUB=$ld sh "$top/tools/gen-stub.sh" "$arch" "$work/stack_$arch.h" >"$log" 2>&1; then
		pass "$arch: $(sed -n 's/^   Stack: //p' "$work/stack_$arch.h")"
	else
		fail "$arch: the stub's stack is not bounded by STUB_STACK_MAX: $(grep stack "$log" | head -3)"
	fi
}
for arch in x86_64 aarch64 riscv64; do
	[ -z "${RUN_STUB_INNER:-}" ] || break
	if [ "$arch" = x86_64 ]; then
		[ "$(uname -m)" = x86_64 ] || continue
		stack_check x86_64 "${CC_STUB:-gcc}" "${LD_STUB:-ld}" ""
	else
		stack_check "$arch" "${CC_STUB:-$arch-linux-gnu-gcc}" "${LD_STUB:-$arch-linux-gnu-ld}" "$arch-linux-gnu-"
	fi
done
if [ -z "${RUN_STUB_INNER:-}" ] && [ "$(uname -m)" = x86_64 ] && have gcc; then
	mkdir -p "$work/big/stub" "$work/big/tools" "$work/big/src"
	cp "$top"/stub/* "$work/big/stub/"
	cp "$top"/tools/gen-stub.sh "$top"/tools/stack-depth.awk "$work/big/tools/"
	# A 4 KiB buffer in the frame of sleep_1ms, which lock_file calls.
	sed -i 's/^sleep_1ms (void)$/&\n{\n  char pad[4096];\n  __asm__ volatile ("" : : "r" (pad) : "memory");\n  sleep_1ms_real ();\n}\n\nvoid\nsleep_1ms_real (void)/' \
		"$work/big/stub/lock.c"
	sed -i 's/^HIDDEN void sleep_1ms (void);$/&\nHIDDEN void sleep_1ms_real (void);/' "$work/big/stub/runtime.h"
	if sh "$work/big/tools/gen-stub.sh" x86_64 "$work/big/stub.h" >"$work/big.log" 2>&1; then
		fail "a 4 KiB frame in sleep_1ms: tools/gen-stub.sh still makes the stub ($(sed -n 's/^   Stack: //p' "$work/big/stub.h"))"
	elif grep -q 'more than STUB_STACK_MAX' "$work/big.log"; then
		pass "a 4 KiB frame in sleep_1ms: tools/gen-stub.sh refuses it ($(grep -o 'needs [0-9]* bytes' "$work/big.log"))"
	else
		fail "a 4 KiB frame in sleep_1ms: tools/gen-stub.sh failed otherwise: $(tail -3 "$work/big.log")"
	fi
fi

# The skip itself: with a compiler that reports another version (the same
# compiler behind a wrapper), this test must skip with exit 77, not fail.
if [ -z "${RUN_STUB_INNER:-}" ] && [ "$(uname -m)" = x86_64 ] && have gcc; then
	cc_path=$(command -v gcc)
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
