#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-usage-errors.sh: usage errors exit 64, with the reason on
# stderr, and leave the file alone and create no output.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/u"
sig=$(file_signature "$WORK/u")
expect_status 64 "no FILE" "$ELFPMD"
expect_status 64 "unknown option" "$ELFPMD" --frobnicate "$WORK/u"
expect_status 64 "-o with two inputs" "$ELFPMD" -o "$WORK/x" "$WORK/u" "$CLI/small"
expect_status 64 "-o given twice" "$ELFPMD" -o "$WORK/x" -o "$WORK/y" "$WORK/u"
expect_status 64 "-o with --dry-run" "$ELFPMD" -n -o "$WORK/x" "$WORK/u"
expect_status 64 "bad --rule" "$ELFPMD" --rule=strict "$WORK/u"
expect_status 64 "--rule twice" "$ELFPMD" --rule=kernel --rule=relaxed "$WORK/u"
expect_status 64 "size not a power of two" "$ELFPMD" --pmd-size=3M "$WORK/u"
expect_status 64 "size with junk" "$ELFPMD" --pmd-size=2Mx "$WORK/u"
expect_status 64 "negative size" "$ELFPMD" --page-size=-4K "$WORK/u"
expect_status 64 "PMD below page" "$ELFPMD" --pmd-size=4K --page-size=64K "$WORK/u"
# Both sizes are checked whether the other is given or not, in either order:
# a page size from 4K to 256K, a PMD size of at least 4K and the page size.
for args in "--page-size=1K" "--page-size=2K --pmd-size=2M" "--pmd-size=2M --page-size=2K" \
	    "--page-size=512K" "--pmd-size=2M --page-size=512K" "--page-size=512K --pmd-size=2M" \
	    "--pmd-size=2K" "--pmd-size=1K --page-size=4K" "--page-size=4K --pmd-size=2K" \
	    "--pmd-size=2M --page-size=3K" "--page-size=48K --pmd-size=2M" "--pmd-size=3M --page-size=4K" \
	    "--page-size=64K --pmd-size=32K" "--pmd-size=2M --page-size=0"; do
	# shellcheck disable=SC2086
	expect_status 64 "bad sizes: $args" "$ELFPMD" -n $args "$WORK/u"
	grep -q '^elfpmd: --p[a-z]*-size' "$WORK/err" && pass "the reason names the option ($args)" \
		|| fail "stderr for $args: $(cat "$WORK/err")"
done
expect_status 64 "--populate-max without --madvise" "$ELFPMD" --populate-max=8 "$WORK/u"
expect_status 64 "--populate-max twice" "$ELFPMD" --madvise --populate-max=8 --populate-max=9 "$WORK/u"
expect_status 64 "--populate-max not a number" "$ELFPMD" --madvise --populate-max=8x "$WORK/u"
expect_status 64 "--populate-max negative" "$ELFPMD" --madvise --populate-max=-1 "$WORK/u"
expect_status 64 "--populate-max too large" "$ELFPMD" --madvise --populate-max=4097 "$WORK/u"
expect_status 64 "-q with -v" "$ELFPMD" -q -v "$WORK/u"
expect_status 64 "-q with --json" "$ELFPMD" -q --json "$WORK/u"
check "usage errors leave the file alone" test "$sig" = "$(file_signature "$WORK/u")"
[ ! -e "$WORK/x" ] && [ ! -e "$WORK/y" ] && pass "usage errors create no output" || fail "usage error created an output"
test_finish
