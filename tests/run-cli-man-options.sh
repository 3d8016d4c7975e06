#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-man-options.sh: every long option --help lists is in the man
# page's OPTIONS as that exact token in bold (lib.sh: man_bold), not merely
# as a word somewhere in the text.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
man_bold OPTIONS | sort -u > "$WORK/man-options"
grep -qx -- --pmd-size "$WORK/man-options" \
	&& pass "bold tokens read from the man page ($(wc -l < "$WORK/man-options") in OPTIONS)" \
	|| fail "cannot read bold tokens from the man page's OPTIONS"
# The option column of --help: lines that start with blanks and a dash, up to
# the two blanks before the description.
"$ELFPMD" --help | sed -n '/^  *-/{ s/^ *//; s/  .*//; p; }' | grep -oE -- '--[a-z][a-z-]*' | sort -u > "$WORK/help-options"
[ "$(wc -l < "$WORK/help-options")" -ge 15 ] && pass "$(wc -l < "$WORK/help-options") long options in --help" \
	|| fail "long options in --help: $(tr '\n' ' ' < "$WORK/help-options")"
while IFS= read -r opt; do
	grep -qxF -- "$opt" "$WORK/man-options" && pass "man page documents $opt" || fail "man page OPTIONS lacks $opt in bold"
done < "$WORK/help-options"
test_finish
