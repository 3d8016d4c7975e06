#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-help.sh: --help names every option and the exit statuses, the
# man page's, and says for status 0 every outcome the man page and the README
# say; --usage and --version.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
expect_status 0 "--help" "$ELFPMD" --help
for word in --output --dry-run --check --json --rule --pmd-size --page-size --no-sync --no-pad --madvise --populate-max --verbose --quiet \
		--recursive --files-from --null --exclude --jobs --preserve-dates "Exit status" " 64 "; do
	grep -q -- "$word" "$WORK/out" && pass "--help mentions '$word'" || fail "--help lacks '$word'"
done
# --help's exit statuses are the man page's, and its status 0 lists every
# outcome the man page's does (the README's too): "changed, already aligned,
# nothing eligible, or skipped".
man=$TESTS_SRCDIR/../man/elfpmd.1
readme=$TESTS_SRCDIR/../README.md
sed -n '/^Exit status:$/,$p' "$WORK/out" > "$WORK/help-exit"
man_exit=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/p' "$man")
man_codes=$(printf '%s\n' "$man_exit" | awk 'prev == ".TP" && /^\.B [0-9]+$/ { print $2 } { prev = $0 }' | tr '\n' ' ')
help_codes=$(awk '/^  [0-9]+ / { print $1 }' "$WORK/help-exit" | tr '\n' ' ')
[ -n "$man_codes" ] && [ "$man_codes" = "$help_codes" ] && pass "--help lists the man page's exit statuses ($man_codes)" \
	|| fail "exit statuses: man page '$man_codes', --help '$help_codes'"
# The man page's sentence for 0, "Every file was processed: A, B, C, or D.",
# split into its outcomes.
outcomes=$(printf '%s\n' "$man_exit" | awk '/^\.B 0$/ { f = 1; next } /^\./ { f = 0 } f' | tr '\n' ' ' \
	| sed 's/^[^:]*: *//; s/\. *$//; s/,* or /, /' | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep .)
help0=$(awk '/^  0 / { f = 1 } /^  [1-9][0-9]* / { f = 0 } f' "$WORK/help-exit" | tr -s ' \n' '  ')
readme0=$(sed -n '/^## Exit status/,/^## /p' "$readme" | awk '/^- 0:/ { f = 1 } /^- [1-9]/ { f = 0 } f' | tr -s ' \n' '  ')
[ "$(printf '%s\n' "$outcomes" | grep -c .)" -ge 4 ] && pass "man page exit status 0 names its outcomes" \
	|| fail "cannot read the outcomes of exit status 0 from the man page: $outcomes"
while IFS= read -r outcome; do
	case $help0 in *"$outcome"*) pass "--help's exit status 0 says '$outcome'" ;; *) fail "--help's exit status 0 lacks '$outcome': $help0" ;; esac
	case $readme0 in *"$outcome"*) pass "README's exit status 0 says '$outcome'" ;; *) fail "README's exit status 0 lacks '$outcome': $readme0" ;; esac
done <<< "$outcomes"
expect_status 0 "--usage" "$ELFPMD" --usage
expect_status 0 "--version" "$ELFPMD" --version
grep -q '^elfpmd [0-9]' "$WORK/out" && pass "--version names the program" || fail "--version output: $(cat "$WORK/out")"
test_finish
