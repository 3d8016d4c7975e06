#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-other-machine.sh: --madvise on a file of a machine elfpmd has
# no startup stub for (an i386 shared object, assembled by cc -m32 without a
# C library) aligns it as without --madvise, byte for byte, and says so:
# the report of the file alone names the machine (exit 0), its JSON has
# "injected": false and "no_stub_for_machine": true, and a batch run counts
# it on its one stub line.  An x86-64 object refused the stub for another
# reason has "no_stub_for_machine": false.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

w=$TESTS_BUILDDIR/madvise-other-machine-work
rm -rf "$w" && mkdir -p "$w" || hard_error "cannot create $w"
trap '[ "$n_fail" -eq 0 ] && rm -rf "$w" || echo "      (kept $w)"' EXIT
text=$TESTS_SRCDIR/pkg/upstream/bigtext.S

have cc || skip_all "no C compiler (cc)"
cc -m32 -nostdlib -shared -DNAME=text32 -o "$w/lib32.so" "$text" > "$w/cc.log" 2>&1 \
	|| skip_all "cc -m32 cannot assemble and link an i386 object here: $(head -1 "$w/cc.log")"

"$ELFPMD" -q --madvise -o "$w/madvise.so" "$w/lib32.so" && "$ELFPMD" -q -o "$w/plain.so" "$w/lib32.so" \
	|| hard_error "elfpmd failed on $w/lib32.so"
check "i386: --madvise writes the very bytes of a plain alignment" cmp -s "$w/madvise.so" "$w/plain.so"

"$ELFPMD" -n --madvise "$w/lib32.so" > "$w/alone.out" 2>&1
rc=$?
holds "i386 alone: exit 0, the report says no stub and why ($(grep -o 'startup stub:.*' "$w/alone.out"))" \
	'[ $rc -eq 0 ] && grep -q "startup stub: not injected: no startup stub for i386" "$w/alone.out"'

"$ELFPMD" -n --json --madvise "$w/lib32.so" > "$w/alone.json"
check "i386 JSON: injected false, no_stub_for_machine true, the reason" \
	grep -q '"stub":{"injected":false,"present":false,"no_stub_for_machine":true,"reason":"no startup stub for i386' "$w/alone.json"

printf '%s\0' "$w/lib32.so" | "$ELFPMD" -n -q --madvise --files-from=- -0 > "$w/batch.out" 2>&1
rc=$?
holds "i386 batch: exit 0, one stub line counting it ($(grep 'startup stub' "$w/batch.out"))" \
	'[ $rc -eq 0 ] && [ "$(grep -c "startup stub" "$w/batch.out")" -eq 1 ] \
		&& grep -q "startup stub: 0 would be injected, 1 would not be (1: no startup stub for i386" "$w/batch.out"'

# x86-64, which has a stub, refused for want of a whole chunk of text.
if [ "$(uname -m)" = x86_64 ] && echo 'int f (void) { return 1; }' > "$w/small.c" \
	&& cc -shared -fPIC -o "$w/small.so" "$w/small.c" 2> /dev/null; then
	"$ELFPMD" -n --json --madvise "$w/small.so" > "$w/small.json"
	check "x86-64 refused for another reason: no_stub_for_machine false" \
		grep -q '"stub":{"injected":false,"present":false,"no_stub_for_machine":false,' "$w/small.json"
else
	skip "not an x86-64 host with cc: the contrast with a machine that has a stub not checked"
fi

finish
