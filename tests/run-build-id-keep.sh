#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-build-id-keep.sh: --build-id=keep rewrites a file and keeps its
# build-id, the text report saying so; a file elfpmd leaves unchanged keeps
# its build-id under the default too: one it aligned before (a second run)
# and one with nothing to align.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/build-id-lib.sh"

bid_start
bid_prog "$W/prog"
old=$(build_ids "$W/prog")

"$ELFPMD" -v --build-id=keep -o "$W/k" "$W/prog" > "$W/k.txt" || fail "elfpmd --build-id=keep failed"
check "--build-id=keep: the file is rewritten (text aligned)" \
	grep -q 'bytemap ok:.*, build-id kept$' <("$PHDR_DUMP" --bytemap "$W/prog" "$W/k")
holds "--build-id=keep: the build-id stays ($old)" '[ "$(build_ids "$W/k")" = "$old" ]'
check "--build-id=keep: the report says it is kept" grep -q "build-id $old kept (--build-id=keep" "$W/k.txt"

"$ELFPMD" -q -o "$W/a" "$W/prog" || fail "elfpmd failed on the program"
cp "$W/a" "$W/a2"
"$ELFPMD" -v "$W/a2" > "$W/a2.txt" || fail "elfpmd failed on its own output"
check "a second run leaves the rewritten file as it was" cmp -s "$W/a" "$W/a2"
check "and says its build-id is kept: the file does not change" \
	grep -q "build-id $(build_ids "$W/a") kept: the file does not change" "$W/a2.txt"

echo 'int main (void) { return 0; }' > "$W/small.c"
cc -O2 -Wl,--build-id -o "$W/small" "$W/small.c" || hard_error "cannot build a small program"
cp "$W/small" "$W/small.orig"
"$ELFPMD" -q "$W/small" || fail "elfpmd failed on a small program"
check "a program with nothing to align is left as it was, build-id and all" cmp -s "$W/small" "$W/small.orig"
finish
