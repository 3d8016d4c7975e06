#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# make-corpus.sh -- build the seed corpus of tests/fuzz/fuzz_elfpmd into DIR.
#
#   sh tests/fuzz/make-corpus.sh DIR
#
# Small ELF files (a few hundred KiB at most), linked the ways elfpmd meets
# them: gcc PIE, -no-pie, -static-pie, a shared object, -z noseparate-code,
# -z max-page-size=64K, clang + lld PIE and shared object (text not congruent
# with its offset: padding), lld -z separate-code, lld -z max-page-size=64K,
# -m32 (when gcc-multilib is there), a file without section headers
# (llvm-objcopy --strip-sections), a relocatable object, a shared object
# with a text relocation (-z notext), big-endian and
# other machines linked by lld from assembler-only sources (aarch64, ppc64,
# mips64, riscv64, arm), and a strip -s copy of most of them.
#
# Each seed has 160 KiB of text (0xc3, ret), so that the harness's
# --pmd-size=64K and 16K runs find whole chunks to align, pad and give a
# stub; the default 2 MiB PMD finds none (larger seeds would slow the fuzzer
# down more than they teach it).  Nothing here runs the files.
#
# A seed the toolchain cannot build is skipped with a note; the script fails
# only when no seed at all could be built.  GCC, CLANG, STRIP, LLVM_OBJCOPY
# name the tools (defaults: gcc, clang, strip, llvm-objcopy or a versioned
# llvm-objcopy-NN).  With ELFPMD naming the tool, elfpmd's own outputs of
# a few seeds are added (see the end).  The seeds are deterministic for a
# given toolchain.

set -u
export LC_ALL=C

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 64; }
out=$1
GCC=${GCC:-gcc}
CLANG=${CLANG:-clang}
STRIP=${STRIP:-strip}
if [ -z "${LLVM_OBJCOPY:-}" ]; then
	for v in llvm-objcopy llvm-objcopy-19 llvm-objcopy-18 llvm-objcopy-17 llvm-objcopy-16 \
		llvm-objcopy-15 llvm-objcopy-14; do
		if command -v "$v" > /dev/null 2>&1; then LLVM_OBJCOPY=$v; break; fi
	done
fi
LLVM_OBJCOPY=${LLVM_OBJCOPY:-llvm-objcopy}

mkdir -p "$out" || exit 1
src=$(mktemp -d "${TMPDIR:-/tmp}/elfpmd-corpus.XXXXXX") || exit 1
trap 'rm -rf "$src"' EXIT

# The sources: a program and a library around 160 KiB of x86 text, and a
# freestanding entry point for the links without libc.
cat > "$src/text.S" <<'EOF'
	.section .note.GNU-stack,"",@progbits
	.text
	.globl	seed_text
	.hidden	seed_text
	.type	seed_text, @function
	.p2align 12
seed_text:
	.fill	0x28000, 1, 0xc3
	.size	seed_text, . - seed_text
EOF
cat > "$src/main.c" <<'EOF'
#include <stdio.h>
extern char seed_text[];
static const char *const greeting = "elfpmd seed";
int counter = 3;
int
main (int argc, char **argv)
{
  ((void (*) (void)) (seed_text + argc)) ();
  printf ("%s %d %s\n", greeting, counter + argc, argv[0]);
  return 0;
}
EOF
cat > "$src/lib.c" <<'EOF'
extern char seed_text[];
int seed_counter = 7;
int
seed_call (int x)
{
  ((void (*) (void)) (seed_text + x)) ();
  return x + seed_counter;
}
EOF
cat > "$src/start.S" <<'EOF'
	.section .note.GNU-stack,"",@progbits
	.text
	.globl	_start
_start:
	call	seed_text
	hlt
EOF
# An absolute address in the text: a text relocation in a shared object.
cat > "$src/textrel.S" <<'EOF'
	.section .note.GNU-stack,"",@progbits
	.text
	.globl	seed_textrel
seed_textrel:
	movabs	$seed_counter, %rax
	ret
EOF
# Directives only: assembles for any machine.
cat > "$src/any.S" <<'EOF'
	.text
	.globl	_start
_start:
	.fill	0x28000, 1, 0
	.section .rodata
	.globl	seed_ro
seed_ro:
	.fill	0x100, 1, 1
	.data
	.globl	seed_data
seed_data:
	.fill	0x40, 1, 2
EOF

built=0
# seed NAME COMMAND...: run COMMAND (which writes $out/NAME), keep a strip -s
# copy NAME.s beside it, and count it; on failure note it and go on.
seed () {
	name=$1
	shift
	if "$@" > "$src/log" 2>&1 && [ -s "$out/$name" ]; then
		built=$((built + 1))
		if "$STRIP" -s -o "$out/$name.s" "$out/$name" > /dev/null 2>&1 \
			|| "$LLVM_OBJCOPY" --strip-all "$out/$name" "$out/$name.s" > /dev/null 2>&1; then
			cmp -s "$out/$name" "$out/$name.s" && rm -f "$out/$name.s"
		else
			rm -f "$out/$name.s"
		fi
	else
		rm -f "$out/$name"
		echo "make-corpus: skipped $name: $(head -n 1 "$src/log")"
	fi
}

# seed_plain NAME COMMAND...: the same without the stripped copy.
seed_plain () {
	name=$1
	shift
	if "$@" > "$src/log" 2>&1 && [ -s "$out/$name" ]; then
		built=$((built + 1))
	else
		rm -f "$out/$name"
		echo "make-corpus: skipped $name: $(head -n 1 "$src/log")"
	fi
}

g="$GCC -O1 -w"
c="$CLANG -O1 -w"
m="$src/main.c $src/text.S"
l="$src/lib.c $src/text.S"

seed gcc-pie $g -fPIE -pie -o "$out/gcc-pie" $m
seed gcc-nopie $g -fno-PIE -no-pie -o "$out/gcc-nopie" $m
seed gcc-shared $g -fPIC -shared -Wl,-soname,libseed.so -o "$out/gcc-shared" $l
seed gcc-noseparate $g -fPIE -pie -Wl,-z,noseparate-code -o "$out/gcc-noseparate" $m
seed gcc-maxpage64k $g -fPIE -pie -Wl,-z,max-page-size=0x10000 -o "$out/gcc-maxpage64k" $m
seed gcc-shared-noseparate $g -fPIC -shared -Wl,-z,noseparate-code -o "$out/gcc-shared-noseparate" $l
# -static-pie without libc (glibc's would make the seed ten times larger).
seed gcc-static-pie $g -fPIE -static-pie -nostdlib -o "$out/gcc-static-pie" "$src/start.S" "$src/text.S"
seed gcc-static $g -fno-PIE -static -nostdlib -o "$out/gcc-static" "$src/start.S" "$src/text.S"
seed gcc-m32-pie $g -m32 -fPIE -pie -o "$out/gcc-m32-pie" $m
seed gcc-m32-nopie $g -m32 -fno-PIE -no-pie -o "$out/gcc-m32-nopie" $m
seed gcc-m32-shared $g -m32 -fPIC -shared -o "$out/gcc-m32-shared" $l
seed lld-pie $c -fuse-ld=lld -fPIE -pie -o "$out/lld-pie" $m
seed lld-shared $c -fuse-ld=lld -fPIC -shared -o "$out/lld-shared" $l
seed lld-separate $c -fuse-ld=lld -fPIE -pie -Wl,-z,separate-code -o "$out/lld-separate" $m
seed lld-maxpage64k $c -fuse-ld=lld -fPIE -pie -Wl,-z,max-page-size=0x10000 -o "$out/lld-maxpage64k" $m
seed lld-norosegment $c -fuse-ld=lld -fPIE -pie -Wl,--no-rosegment -o "$out/lld-norosegment" $m
seed lld-m32-pie $c -m32 -fuse-ld=lld -fPIE -pie -o "$out/lld-m32-pie" $m
seed_plain lld-nosections "$LLVM_OBJCOPY" --strip-sections "$out/lld-pie" "$out/lld-nosections"
# A text relocation (DT_TEXTREL): --madvise refuses it.
seed gcc-textrel $g -fPIC -shared -Wl,-z,notext -o "$out/gcc-textrel" "$src/lib.c" "$src/text.S" \
	"$src/textrel.S"
seed_plain gcc-object $g -fPIE -c -o "$out/gcc-object" "$src/main.c"

# Other machines, big-endian ones included: linked by lld, no libc.
for t in aarch64-linux-gnu powerpc64-linux-gnu mips64-linux-gnuabi64 riscv64-linux-gnu arm-linux-gnueabihf; do
	seed "lld-${t%%-*}" $CLANG --target=$t -fuse-ld=lld -nostdlib -static -Wl,--build-id=none \
		-o "$out/lld-${t%%-*}" "$src/any.S"
done
seed lld-aarch64-pie $CLANG --target=aarch64-linux-gnu -fuse-ld=lld -nostdlib -static-pie \
	-Wl,--build-id=none -o "$out/lld-aarch64-pie" "$src/any.S"

# With ELFPMD (the tool) in the environment, also elfpmd's own outputs of a
# few seeds: aligned, padded, with the stub (--pmd-size=64K), so that the
# fuzzer starts from files that have the stub and holes already.
if [ -n "${ELFPMD:-}" ] && [ -x "$ELFPMD" ]; then
	for s in gcc-pie lld-pie gcc-shared lld-shared gcc-nopie; do
		[ -f "$out/$s" ] || continue
		seed_plain "$s.aligned" "$ELFPMD" -q --no-sync --pmd-size=64K -o "$out/$s.aligned" "$out/$s"
		seed_plain "$s.stub" "$ELFPMD" -q --no-sync --pmd-size=64K --madvise -o "$out/$s.stub" "$out/$s"
	done
fi

echo "make-corpus: $built seeds in $out ($(ls "$out" | wc -l) files)"
[ "$built" -gt 0 ]
