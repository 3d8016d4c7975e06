#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-errors.sh: a script named outside a batch run is an error, as it
# always was; a directory that cannot be walked is a failure, so is a missing
# list; exit status 2 for a FILE named alone for a machine without a PMD
# size when nothing failed, 1 when something did; usage errors (64).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
tree=$WORK/tree
batch_tree "$tree"
"$ELFPMD" -q "$tree/usr/bin/script" 2> "$WORK/err"
check "a script named outside a batch run is an error" test $? -eq 1
grep -q 'not an ELF file' "$WORK/err" && pass "... saying it is not ELF" || fail "error: $(cat "$WORK/err")"
"$ELFPMD" -r "$WORK/does-not-exist" > /dev/null 2> "$WORK/err"
check "-r on a missing directory exits 1" test $? -eq 1
"$ELFPMD" --files-from="$WORK/no-list" > /dev/null 2> "$WORK/err"
check "a missing list exits 1" test $? -eq 1
grep -q 'no-list: cannot open the list' "$WORK/err" && pass "... naming the list" || fail "list error: $(cat "$WORK/err")"
"$ELFPMD" -n "$tree/usr/lib/firmware-mips" "$tree/usr/bin/prog" > /dev/null 2> "$WORK/mach-err"
st=$?
holds "a named file of a machine without PMD size: exit 2, one line on stderr" \
	'[ $st -eq 2 ] && [ "$(wc -l < "$WORK/mach-err")" -eq 1 ] && grep -q "firmware-mips: mips: no PMD size known" "$WORK/mach-err"'
"$ELFPMD" -n "$tree/usr/lib/firmware-mips" "$tree/no-such-file" > /dev/null 2>&1
check "with a failure besides it: exit 1" test $? -eq 1
"$ELFPMD" -n "$tree/no-such-file" "$tree/usr/lib/firmware-mips" > /dev/null 2>&1
check "with a failure before it: exit 1" test $? -eq 1
"$ELFPMD" -n --pmd-size=2M "$tree/usr/lib/firmware-mips" > /dev/null 2>&1
check "with --pmd-size: exit 0" test $? -eq 0
for args in "--null $tree" "--exclude=x $tree/usr/bin/prog" "-j0 -r $tree" "-j x -r $tree" \
	"-r -o $WORK/x $tree" "--no-default-excludes $tree/usr/bin/prog" "-r" "-j1 -j2 -r $tree" \
	"--machine=host $tree/usr/bin/prog" "--machine=vax -r $tree" "--json --json=x -r $tree" \
	"--json= -r $tree" "--times $tree/usr/bin/prog"; do
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" $args > /dev/null 2>&1
	check "usage error: $args" test $? -eq 64
done
test_finish
