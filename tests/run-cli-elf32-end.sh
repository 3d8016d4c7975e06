#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-elf32-end.sh: a 32-bit segment may end exactly at 2^32 (qemu's
# openbios-ppc does): not a wrap; one byte more is.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}
[ -x "$MUTATE" ] || skip_all "no tests/mutate ($MUTATE): the ELF32 end of the address space is not tested"
printf 'void _start(void);\nvoid _start(void) { for (;;) { } }\n' > "$WORK/free.c"
cc -m32 -O1 -nostdlib -static -ffreestanding -fno-pic -o "$WORK/m32" "$WORK/free.c" 2>/dev/null \
	|| skip_all "no cc -m32: the ELF32 end of the address space is not tested"
last=$(( $("$PHDR_DUMP" "$WORK/m32" | grep -c ' LOAD ') - 1 ))
for memsz in 0x1000 0x1001; do
	"$MUTATE" set 0 "$WORK/m32" "$WORK/m32-$memsz" \
		"phdr[PT_LOAD:$last].p_vaddr=0xfffff000,phdr[PT_LOAD:$last].p_paddr=0xfffff000,phdr[PT_LOAD:$last].p_memsz=$memsz" \
		> /dev/null || { fail "mutate set p_memsz=$memsz"; continue; }
	"$ELFPMD" -n "$WORK/m32-$memsz" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	if [ $memsz = 0x1000 ]; then
		[ "$rc" -eq 0 ] && pass "ELF32 PT_LOAD ending at 2^32: accepted" \
			|| fail "ELF32 PT_LOAD ending at 2^32: exit $rc, $(cat "$WORK/err")"
	else
		[ "$rc" -eq 1 ] && grep -q "wraps around the address space" "$WORK/err" \
			&& pass "ELF32 PT_LOAD ending one byte past 2^32: refused ($(sed 's/^[^:]*: [^:]*: //' "$WORK/err"))" \
			|| fail "ELF32 PT_LOAD ending one byte past 2^32: exit $rc, $(cat "$WORK/err")"
	fi
done
test_finish
