#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-strip.sh: GNU strip, eu-strip and objcopy after elfpmd --madvise keep a
# working file, for the shapes whose program header table had no free slot
# (the table grows in place; it no longer moves into the stub's segment,
# which GNU strip breaks):
#   - a shared object whose table is followed by a PT_NOTE and a .gnu.hash
#     larger than 64 KiB (libgrpc, librustc_driver): both move into the
#     stub's segment;
#   - a program whose section header table follows the program header table
#     inside the first PT_LOAD (the Go linker's layout: terraform): the
#     section headers are written anew after the stub, the table grows over
#     their old place;
#   - where nothing can make room, no stub, with the reason, unless
#     --move-table.
# Each rewrite, then each of strip, strip -g, eu-strip and objcopy run over
# it, runs as the original (same output), still carries the stub (a second
# elfpmd run finds it) and passes eu-elflint where the original does.
# Copies of this machine's libgrpc, librustc_driver and terraform are
# checked the same way when they are installed.  x86-64 (the fixtures are
# x86-64 assembly).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 assembly"
for t in cc ld strip objcopy readelf; do
	have $t || skip_all "needs $t"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
W=$work

# A helper that dlopens each library it is given (RTLD_NOW) and calls the
# function named after it, if any, printing what it returns.
cat >"$W/dl.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int
main (int argc, char **argv)
{
  unsetenv ("LD_PRELOAD");
  for (int i = 1; i + 1 < argc; i += 2)
    {
      void *h = dlopen (argv[i], RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
	{
	  printf ("dlopen: %s\n", dlerror ());
	  return 1;
	}
      if (argv[i + 1][0] != '-')
	{
	  int (*f) (void) = (int (*) (void)) dlsym (h, argv[i + 1]);
	  if (f == NULL)
	    {
	      printf ("dlsym %s: not found\n", argv[i + 1]);
	      return 1;
	    }
	  printf ("%s() = %d\n", argv[i + 1], f ());
	}
      else
	printf ("loaded\n");
    }
  return 0;
}
EOF
cc -O2 -o "$W/dl" "$W/dl.c" -ldl || hard_error "cannot build the dlopen helper"

# The library: 4 MiB of text (whole chunks for the stub) and 12,000
# exported functions, each returning its number: a .gnu.hash of about
# 100 KiB right after the build-id note, which follows the table.
{
	echo '	.text'
	for ((i = 0; i < 12000; i++)); do
		echo "	.globl f$i; .type f$i, @function; f$i: mov \$$i, %eax; ret"
	done
	echo '	.section .text.big, "ax", @progbits'
	echo '	.p2align 12'
	echo '	.fill 4 << 20, 1, 0xc3'
	echo '	.section .note.GNU-stack, "", @progbits'
} >"$W/lib.S"
cc -shared -nostdlib -Wl,--build-id -Wl,--hash-style=gnu -o "$W/libhash.so" "$W/lib.S" ||
	hard_error "cannot build the library fixture"

# The Go-like program: a static program whose section header table is
# moved (by hand, below) into the free bytes after its program header table.
cat >"$W/go.S" <<'EOF'
	.text
	.globl _start
_start:
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$len, %edx
	mov	$1, %eax
	syscall
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .rodata
msg:	.ascii "go-shaped program ran\n"
	len = . - msg
	.section .text.big, "ax", @progbits
	.p2align 12
	.fill 4 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
cc -c -o "$W/go.o" "$W/go.S" && ld -static -z noseparate-code -o "$W/go" "$W/go.o" ||
	hard_error "cannot build the Go-like fixture"
# Move the section header table to right after the program header table
# (ELF64 little-endian: e_phoff 32, e_shoff 40, e_phnum 56, e_shnum 60).
python3 - "$W/go" <<'EOF' || hard_error "cannot lay out the Go-like fixture"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
phoff, shoff = struct.unpack_from("<QQ", b, 32)
phnum, shnum = struct.unpack_from("<H", b, 56)[0], struct.unpack_from("<H", b, 60)[0]
at = phoff + phnum * 56
size = shnum * 64
# the bytes there must be free: before the first section with contents
first = min(struct.unpack_from("<Q", b, shoff + i * 64 + 24)[0]
            for i in range(1, shnum)
            if struct.unpack_from("<I", b, shoff + i * 64 + 4)[0] != 8)
if at + size > first or any(b[at:at + size]):
    sys.exit("no room after the program header table")
b[at:at + size] = b[shoff:shoff + size]
struct.pack_into("<Q", b, 40, at)
del b[shoff:shoff + size]
open(p, "wb").write(b)
EOF

# The cases: NAME KIND FILE [FUNCTION]; KIND lib (run through dl) or prog.
cases=("libhash lib $W/libhash.so f11999" "go prog $W/go")
for g in /usr/lib/x86_64-linux-gnu/libgrpc.so.*.*.* /usr/lib/x86_64-linux-gnu/librustc_driver-*.so; do
	[ -f "$g" ] || continue
	b=${g##*/}
	cp "$g" "$W/$b"
	cases+=("${b%%.so*} lib $W/$b -")
done
tf=$(command -v terraform 2>/dev/null)
if [ -n "$tf" ]; then
	cp "$tf" "$W/terraform"
	cases+=("terraform prog $W/terraform")
else
	skip "terraform is not installed: the real Go program is not checked (the fixture is)"
fi

# run_case KIND FILE FUNCTION OUT: run the program (its output, then the
# exit status) or dlopen the library.
run_case () {
	local kind=$1 file=$2 fn=$3 out=$4 dir=${2%/*}
	if [ "$kind" = lib ]; then
		(cd "$dir" && HOME=$W timeout -k 5 60 "$W/dl" "$file" "$fn") >"$out" 2>&1
	else
		(cd "$dir" && HOME=$W timeout -k 5 60 "$file" version) >"$out" 2>&1
	fi
	echo "exit status $?" >>"$out"
}

for c in "${cases[@]}"; do
	read -r name kind file fn <<<"$c"
	d=$W/$name.d
	mkdir -p "$d"
	run_case "$kind" "$file" "$fn" "$d/orig.out"
	if ! grep -q '^exit status 0$' "$d/orig.out"; then
		skip "$name: the original does not run here ($(head -1 "$d/orig.out"))"
		continue
	fi
	if ! "$ELFPMD" --json --madvise -o "$d/rw" "$file" >"$d/report.json" 2>"$d/err"; then
		fail "$name: elfpmd --madvise failed: $(head -1 "$d/err")"
		continue
	fi
	check "$name: the stub is injected and the table grew in place (not moved)" \
		grep -q '"stub":{"injected":true,.*"table_moved":false,"table_grown":true' "$d/report.json"
	if [ "$name" = libhash ]; then
		moved=$(grep -o '"moved_bytes":[0-9]*' "$d/report.json" | cut -d: -f2)
		holds "$name: the PT_NOTE and the .gnu.hash moved ($moved bytes, more than 64 KiB)" \
			'grep -q "\"moved\":\[\"PT_NOTE\",\".gnu.hash\"\]" "$d/report.json" && [ "${moved:-0}" -gt 65536 ]'
	fi
	if [ -x "$PHDR_DUMP" ]; then
		check "$name: phdr-dump --bytemap accepts the rewrite" "$PHDR_DUMP" --bytemap "$file" "$d/rw"
	fi
	for tool in none strip strip-g eu-strip objcopy; do
		t=$d/$tool
		mkdir -p "$t"
		cp "$d/rw" "$t/${file##*/}"
		f=$t/${file##*/}
		case $tool in
		none) ;;
		strip) strip "$f" 2>"$t/err" ;;
		strip-g) strip -g "$f" 2>"$t/err" ;;
		eu-strip) if ! have eu-strip; then skip "$name: eu-strip not found"; continue; fi
			eu-strip "$f" 2>"$t/err" ;;
		objcopy) objcopy "$f" "$f.new" 2>"$t/err" && mv "$f.new" "$f" ;;
		esac
		if [ $? -ne 0 ]; then
			fail "$name: $tool fails on the rewrite: $(head -1 "$t/err")"
			continue
		fi
		if [ -s "$t/err" ]; then
			fail "$name: $tool warns: $(head -1 "$t/err")"
		fi
		run_case "$kind" "$f" "$fn" "$t/out"
		if cmp -s "$d/orig.out" "$t/out"; then
			pass "$name: after ${tool/none/elfpmd alone}, runs as the original ($(head -1 "$t/out"))"
		else
			fail "$name: after ${tool/none/elfpmd alone}, the output differs: $(head -2 "$t/out" | tr '\n' ' ')"
		fi
		"$ELFPMD" -n --json --madvise "$f" >"$t/again.json" 2>&1
		check "$name: after ${tool/none/elfpmd alone}, a second run finds the stub" \
			grep -q '"stub":{"injected":false,"present":true' "$t/again.json"
	done
	if have eu-elflint && eu-elflint --gnu-ld -q "$file" >/dev/null 2>&1; then
		check "$name: eu-elflint accepts the rewrite" eu-elflint --gnu-ld -q "$d/rw"
	fi
done

# Where nothing can make room (no section headers: the bytes after the
# table are unknown), no stub unless --move-table, and the report says why.
cp "$W/go" "$W/go-noshdr"
python3 - "$W/go-noshdr" <<'EOF' || hard_error "cannot make the fixture without section headers"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
phoff = struct.unpack_from("<Q", b, 32)[0]
phnum = struct.unpack_from("<H", b, 56)[0]
at = phoff + phnum * 56
b[at:at + 8] = b"\x01" * 8           # bytes nothing accounts for
struct.pack_into("<Q", b, 40, 0)     # e_shoff
struct.pack_into("<HHH", b, 58, 64, 0, 0)  # e_shentsize, e_shnum, e_shstrndx
open(p, "wb").write(b)
EOF
"$ELFPMD" --madvise -o "$W/go-noshdr.rw" "$W/go-noshdr" >"$W/noshdr.out" 2>&1
st=$?
holds "no room and no --move-table: exit 0, no stub, the reason names --move-table" \
	'[ $st -eq 0 ] && grep -q "no room for one more program header.*--move-table" "$W/noshdr.out"'
"$ELFPMD" -q --madvise --move-table -o "$W/go-noshdr.mv" "$W/go-noshdr" 2>"$W/mv.err"
check "with --move-table the table moves" \
	sh -c "'$ELFPMD' -n --json --madvise '$W/go-noshdr.mv' | grep -q '\"present\":true'"
run_case prog "$W/go-noshdr.mv" - "$W/mv.out"
check "and the program still runs" grep -q "^go-shaped program ran" "$W/mv.out"
finish
