#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-debug-hostile.sh: a separate debug file's program headers are
# not checked against the end of the file, so hostile ones must lead to a skip
# or a clean error, never to a read or a check of what they point to: old
# objcopy's text PT_LOAD with its p_filesz past the end, offsets near 2^64, a
# PT_DYNAMIC, PT_INTERP, PT_NOTE or PT_GNU_EH_FRAME far outside the file; and
# PT_LOADs that break the rules every file must keep (unsorted, p_filesz
# above p_memsz) fail cleanly.  The file is left alone.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}
[ -x "$MUTATE" ] || skip_all "no tests/mutate ($MUTATE)"
have objcopy || skip_all "no objcopy"
objcopy --only-keep-debug "$CLI/sample" "$WORK/sample.debug" || hard_error "objcopy --only-keep-debug sample"
n=0
for spec in 'phdr[PT_LOAD:1].p_offset=0x1000,phdr[PT_LOAD:1].p_filesz=0x400000' \
	    'phdr[PT_LOAD:1].p_offset=0xfffffffffffff000,phdr[PT_LOAD:1].p_filesz=0x100' \
	    'phdr[PT_LOAD].p_offset=0x7ffffffffffff000' \
	    'phdr[PT_LOAD:3].p_offset=0xffffffffffffffff' \
	    'phdr[PT_DYNAMIC].p_offset=0xffffffffffffff00,phdr[PT_DYNAMIC].p_filesz=0x1000' \
	    'phdr[PT_INTERP].p_offset=0xfffffffffffffff0,phdr[PT_INTERP].p_filesz=0xffffffff' \
	    'phdr[PT_NOTE].p_offset=0x100000,phdr[PT_NOTE].p_filesz=0x100000' \
	    'phdr[PT_GNU_EH_FRAME].p_offset=0xfffffffffffffff0,phdr[PT_GNU_EH_FRAME].p_filesz=0x20' \
	    'phdr[PT_LOAD:1].p_vaddr=0' \
	    'phdr[PT_LOAD].p_filesz=0xffffffffffffffff' \
	    'e_phoff=0xfffffffffffffff0'; do
	n=$((n + 1))
	f=$WORK/hostile-debug-$n
	"$MUTATE" set 0 "$WORK/sample.debug" "$f" "$spec" > /dev/null || { fail "mutate set $spec"; continue; }
	sig=$(file_signature "$f")
	"$ELFPMD" -n --json "$f" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q '"status":"skipped"' "$WORK/out"; then
		pass "debug file with $spec: skipped"
	elif [ "$rc" -eq 1 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] && grep -q "^elfpmd: $f: " "$WORK/err" \
		&& ! grep -q 'internal error' "$WORK/err"; then
		pass "debug file with $spec: refused ($(sed "s|^elfpmd: $f: ||" "$WORK/err"))"
	else
		fail "debug file with $spec: exit $rc, stdout $(cat "$WORK/out"), stderr $(cat "$WORK/err")"
	fi
	"$ELFPMD" -q "$f" 2> /dev/null
	rm -f "$WORK/skip.out"
	"$ELFPMD" -q -o "$WORK/skip.out" "$f" 2> /dev/null
	got=$?
	{ [ "$got" -eq 0 ] && cmp -s "$f" "$WORK/skip.out"; } || { [ "$got" -eq 1 ] && [ ! -e "$WORK/skip.out" ]; } \
		|| fail "debug file with $spec: -o exit $got"
	check "debug file with $spec: left alone" test "$sig" = "$(file_signature "$f")"
done
test_finish
