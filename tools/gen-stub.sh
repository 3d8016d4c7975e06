#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Regenerate src/inject/generated/stub_ARCH.h, the machine code of one architecture's startup
# stub, from the runtime's sources stub/*.c, stub/ARCH-entry.S and
# stub/ARCH-syscall.h, linked into one position-independent blob.
#
#   sh tools/gen-stub.sh [ARCH] [OUTPUT]
#
# ARCH is x86_64 (the default), aarch64 or riscv64; OUTPUT defaults to
# src/inject/generated/stub_ARCH.h.  (An OUTPUT alone, the script's older form, means x86_64.)
#
# The generated header is committed, so building elfpmd needs no toolchain
# for the stub's architecture; tests/run-stub.sh checks that this script
# reproduces it byte for byte, with the compiler and linker versions this
# records in it (others may emit other bytes).  Needs, for x86_64, gcc (or
# CC_STUB), ld (or LD_STUB), objcopy, nm and readelf; for the others the
# Debian cross tools (aarch64-linux-gnu-gcc, ...-ld and so on: packages
# gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu), or CC_STUB and LD_STUB.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-x86_64} in
x86_64 | aarch64 | riscv64) arch=${1:-x86_64}; [ $# -gt 0 ] && shift ;;
-*) echo "gen-stub: unknown option $1 (usage: gen-stub.sh [x86_64|aarch64|riscv64] [OUTPUT])" >&2; exit 2 ;;
*) arch=x86_64 ;;
esac
out=${1:-$top/src/inject/generated/stub_$arch.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Not -fno-plt but on x86-64, where the linker turns the GOT loads it
# makes into direct calls: elsewhere a compiler-made call to memset would
# go through a GOT entry holding an absolute address.
common="-Os -fPIC -ffreestanding -fno-builtin -nostdlib -fno-stack-protector
	-fno-asynchronous-unwind-tables -fno-unwind-tables"
case $arch in
x86_64)
	tools=
	flags="-Os -fPIC -fno-plt -ffreestanding -fno-builtin -nostdlib -fno-stack-protector
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fcf-protection=branch
	-fno-tree-loop-distribute-patterns -mgeneral-regs-only -fvisibility=hidden
	-fno-jump-tables -Wall -Wextra -Werror"
	sflags=
	ldflags=
	# x86_64-entry.S: %rbp and nine registers pushed, up to 8 bytes
	# to align %rsp, the call's return address.
	entry_stack=96
	NAME=X86_64 ;;
aarch64)
	# -mcmodel=tiny: every address is formed by adr or a PC-relative
	# literal load, never by adrp, whose result depends on the 4 KiB page
	# the code lies in (elfpmd places the stub at any 16-byte boundary).
	# -mbranch-protection=standard: BTI landing pads and PAC-signed
	# return addresses inside the C part (NOPs on CPUs without them).
	tools=aarch64-linux-gnu-
	flags="$common -mcmodel=tiny -mbranch-protection=standard
	-fno-tree-loop-distribute-patterns -mgeneral-regs-only -fvisibility=hidden
	-fno-jump-tables -Wall -Wextra -Werror"
	sflags=
	ldflags=
	# aarch64-entry.S: the 160-byte frame of saved registers.
	entry_stack=160
	NAME=AARCH64 ;;
riscv64)
	# rv64imac, lp64: no floating-point register is ever touched (the
	# stub saves only the integer registers).  No linker relaxation: it
	# could make addresses relative to gp, which belongs to the program.
	tools=riscv64-linux-gnu-
	flags="$common -march=rv64imac -mabi=lp64 -mno-relax -mcmodel=medany
	-fno-tree-loop-distribute-patterns -fvisibility=hidden
	-fno-jump-tables -Wall -Wextra -Werror"
	sflags="-march=rv64imac -mabi=lp64 -mno-relax"
	ldflags=--no-relax
	# riscv64-entry.S: the 144-byte frame of saved registers.
	entry_stack=144
	NAME=RISCV64 ;;
esac
cc=${CC_STUB:-${tools}gcc}
ld=${LD_STUB:-${tools}ld}
# Each part of the runtime on its own (in the C locale's order of names, so
# that the blob does not depend on the shell's), then the entry point
# first in the link.  gcc writes each file's call graph with the stack
# frame of every function (-fcallgraph-info=su, which changes no code).
objects=
for c in $(cd "$top/stub" && LC_ALL=C ls -- *.c); do
	# shellcheck disable=SC2086
	$cc $flags -fcallgraph-info=su -DSYSCALL_H="\"$arch-syscall.h\"" -c "$top/stub/$c" \
		-o "$tmp/${c%.c}.o"
	objects="$objects $tmp/${c%.c}.o"
done
# The deepest stack the stub can use: the entry's frame, then the deepest
# chain of calls from stub_main.  More than STUB_STACK_MAX (stub/runtime.h)
# and it could overflow a library initialiser's 16 KiB thread stack.
stack=$(awk -v root=stub_main -f "$top/tools/stack-depth.awk" "$tmp"/*.ci) || {
	echo "gen-stub: $arch: the stub's stack use cannot be bounded (above)" >&2
	exit 1
}
stack_max=$(sed -n 's/^#define STUB_STACK_MAX \([0-9]*\).*/\1/p' "$top/stub/runtime.h")
stack_bytes=$((entry_stack + ${stack%% *}))
stack_path=${stack#* }
if [ -z "$stack_max" ] || [ "$stack_bytes" -gt "$stack_max" ]; then
	echo "gen-stub: $arch: the stub needs $stack_bytes bytes of stack ($entry_stack for the entry, then $stack_path), more than STUB_STACK_MAX ($stack_max)" >&2
	exit 1
fi
# shellcheck disable=SC2086
$cc $sflags -c "$top/stub/$arch-entry.S" -o "$tmp/entry.o"
# shellcheck disable=SC2086
$ld -static -nostdlib -T "$top/stub/stub.ld" --no-dynamic-linker -z noexecstack $ldflags \
	-o "$tmp/stub.elf" "$tmp/entry.o" $objects
if ${tools}readelf -r "$tmp/stub.elf" | grep -q 'R_[A-Z0-9]*_'; then
	echo "gen-stub: the stub needs relocations; it must be position-independent" >&2
	exit 1
fi
# Nothing but the blob is loaded: a GOT would hold absolute addresses.
others=$(${tools}objdump -h "$tmp/stub.elf" | awk '$1 ~ /^[0-9]+$/ { name = $2 } /ALLOC/ && name != ".stub" { print name }')
if [ -n "$others" ]; then
	echo "gen-stub: the stub has loaded sections besides .stub (a GOT?):" $others >&2
	exit 1
fi
if [ "$arch" = aarch64 ] && ${tools}objdump -d "$tmp/stub.elf" | grep -q '[[:space:]]adrp[[:space:]]'; then
	echo "gen-stub: the stub uses adrp, which works only at its link address modulo 4 KiB" >&2
	exit 1
fi
${tools}objcopy -O binary -j .stub "$tmp/stub.elf" "$tmp/stub.bin"
entry=$(${tools}nm "$tmp/stub.elf" | awk '$3 == "stub_entry" { print $1 }')
params=$(${tools}nm "$tmp/stub.elf" | awk '$3 == "stub_params" { print $1 }')
size=$(stat -c %s "$tmp/stub.bin")
# The blob's functions (and its parameters), for the symbol table elfpmd
# gives a file that has none, so that a debugger names a frame in the stub:
# "NAME", offset, size, 1 for a function or 0 for the parameters.  Not the
# compiler's numbered statics (prefix.0) nor the mapping symbols of arm64
# and riscv64 ($x, $d).
symbols=$(${tools}nm -S -n --defined-only "$tmp/stub.elf" | awk -v psize=$((size - 0x$params)) '
	$NF == "stub_params" { printf "  { \"stub_params\", 0x%s, %d, 0 },\n", $1, psize; next }
	NF == 4 && $3 ~ /^[tT]$/ && $4 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ { printf "  { \"%s\", 0x%s, 0x%s, 1 },\n", $4, $1, $2 }')
nsymbols=$(printf '%s\n' "$symbols" | grep -c '{')
cc_version=$($cc --version | head -n 1)
ld_version=$($ld --version | head -n 1)
lower=$(echo "$NAME" | tr 'A-Z' 'a-z')
{
	echo "/* SPDX-License-Identifier: 0BSD (what elfpmd puts into converted files: COPYING)"
	echo "   Copyright (C) 2026 The elfpmd authors  */"
	echo "/* Generated by tools/gen-stub.sh from the C files of stub/ and stub/$arch-entry.S;"
	echo "   do not edit.  The source says what the stub does (stub/main.c)."
	echo "   Compiler: $cc_version"
	echo "   Linker: $ld_version"
	echo "   Stack: at most $stack_bytes bytes ($entry_stack for the entry, then $stack_path)."
	echo "   (tests/run-stub.sh compares a fresh one only where both are the same.)  */"
	echo "#define STUB_${NAME}_ENTRY 0x$entry"
	echo "#define STUB_${NAME}_PARAMS 0x$params"
	echo "#define STUB_${NAME}_SIZE $size"
	echo "static const unsigned char stub_${lower}_code[STUB_${NAME}_SIZE] = {"
	od -An -v -tx1 "$tmp/stub.bin" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1, /g; s/^/  /; s/, $/,/'
	echo "};"
	echo "#define STUB_${NAME}_NSYMBOLS $nsymbols"
	echo "static const struct stub_symbol stub_${lower}_symbols[STUB_${NAME}_NSYMBOLS] = {"
	printf '%s\n' "$symbols"
	echo "};"
} > "$out"
echo "gen-stub: $arch: $size bytes, entry 0x$entry, parameters at 0x$params, stack $stack_bytes bytes -> $out"
