#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-not-elf.sh: regular files that are not ELF, or hardly (empty,
# text, a script, three or four bytes of magic, an ELF identification or
# header alone, headers of 0xff or zeros, garbage, an object file, an ar
# archive, a gzipped program): elfpmd in place, -n --json and -o refuse
# each cleanly, as mal_case checks, and print valid JSON.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
RCS=$WORK/rcs.special
X=$WORK/special
mkdir -p "$X"
printf '' >"$X/empty"
printf 'hello, world\n' >"$X/text"
printf '#!/bin/sh\necho hi\n' >"$X/script"
printf '\177EL' >"$X/magic3"
printf '\177ELF' >"$X/magic4"
head -c 16 "$S/pie" >"$X/ident-only"
head -c 63 "$S/pie" >"$X/ehdr64-minus-1"
head -c 64 "$S/pie" >"$X/ehdr64-only"
{ printf '\177ELF\002\001\001'; head -c 4089 /dev/zero | tr '\0' '\377'; } >"$X/elf-ff"
{ printf '\177ELF'; head -c 4092 /dev/zero; } >"$X/elf-zeros"
yes 'garbage 0123456789abcdef' | head -c 65536 >"$X/garbage"
$CC -c -o "$X/object.o" "$TESTS_SRCDIR/fixtures/malhello.c" 2>/dev/null
[ -f "$X/object.o" ] && (cd "$X" && ar rc archive.a object.o 2>/dev/null)
gzip -c "$S/pie" >"$X/gzipped"

sid=100000
for f in "$X"/*; do
	[ -f "$f" ] || continue
	sid=$((sid + 1))
	if mal_case "$sid" "special: ${f##*/}" "$f" "$WORK/sc" --no-sync; then
		pass "special: ${f##*/}"
	else
		fail "special: ${f##*/}"
	fi
done
cat "$FAILS" | sed 's/^/      /'
mal_check_json
malformed_finish
