#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-table-overlap.sh: a section header table laid over the ELF
# header or the program header table (e_shoff 8 with the count taken from the
# first entry, whose sh_size is e_shoff itself, among them) is refused: the
# rewritten program headers would change "section headers" behind the
# writer's back; the file is left alone.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}
[ -x "$MUTATE" ] || skip_all "no tests/mutate ($MUTATE)"
for spec in e_shoff=8,e_shnum=0 e_shoff=64 e_shoff=0x48,e_shnum=1; do
	f=$WORK/tables-$spec
	"$MUTATE" set 0 "$CLI/sample" "$f" "$spec" > /dev/null || { fail "mutate set $spec"; continue; }
	sig=$(file_signature "$f")
	"$ELFPMD" -q "$f" 2> "$WORK/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] \
		&& grep -q "^elfpmd: $f: section header table \[.*) overlaps the \(ELF header\|program header table\)" "$WORK/err"; then
		pass "$spec: refused ($(sed "s|^elfpmd: $f: ||" "$WORK/err"))"
	else
		fail "$spec: exit $rc, stderr $(cat "$WORK/err")"
	fi
	check "$spec: left alone" test "$sig" = "$(file_signature "$f")"
done
test_finish
