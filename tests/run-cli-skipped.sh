#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-skipped.sh: files elfpmd skips (lib.sh: expect_skip): no program
# headers at all (e_phnum 0), and separate debug files (objcopy
# --only-keep-debug, what /usr/lib/debug holds), whatever p_filesz their
# PT_LOADs kept; the files they were split from never are.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}
if [ -x "$MUTATE" ]; then
	"$MUTATE" set 0 "$CLI/sample" "$WORK/nophdrs" e_phnum=0 > /dev/null \
		&& expect_skip "$WORK/nophdrs" "no program headers" || fail "mutate set e_phnum=0"
else
	skip "no tests/mutate ($MUTATE): files built by patching headers not tested"
fi
printf 'int lib(void){return 7;}\n' > "$WORK/lib.c"
cp "$CLI/sample" "$CLI/small" "$WORK/"
if have objcopy && cc -O1 -shared -fPIC -o "$WORK/lib.so" "$WORK/lib.c"; then
	for f in sample small lib.so; do
		"$ELFPMD" -n --json "$WORK/$f" > "$WORK/out"
		grep -q '"status":"skipped"' "$WORK/out" && fail "$f skipped: $(cat "$WORK/out")" || pass "$f not skipped"
		if objcopy --only-keep-debug "$WORK/$f" "$WORK/$f.debug"; then
			expect_skip "$WORK/$f.debug" "separate debug file"
		else
			fail "objcopy --only-keep-debug $f"
		fi
	done
else
	skip "no objcopy or no shared library: separate debug files not tested"
fi
test_finish
