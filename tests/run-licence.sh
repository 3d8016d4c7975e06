#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Every source file says its licence (COPYING): in a git checkout, every
# file git tracks but the licence texts (COPYING, LICENSES/), the prose
# (*.md, README, NEWS), .gitignore and the Debian files that have no comments
# (debian/changelog, debian/copyright, which is the licence statement
# itself, debian/source/format) has an SPDX-License-Identifier line in its
# first lines: 0BSD under stub/ and src/inject/ (what elfpmd puts into the
# files it converts, and the code that writes it), GPL-3.0-or-later
# everywhere else; the generated stub headers (src/inject/generated/stub_*.h) say
# 0BSD too, as tools/gen-stub.sh writes them.  Then licensecheck (Debian's
# devscripts tool, which shares no code with this test) finds a licence in
# every one of those files, where it is installed.  Skips (77) outside a
# git checkout (a release tarball: the list of sources is git's).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

top=$(cd "$TESTS_SRCDIR/.." && pwd)
[ -e "$top/.git" ] || skip_all "$top is not a git checkout: the list of source files is git's"
have git || skip_all "git not found"

for f in COPYING LICENSES/GPL-3.0-or-later.txt LICENSES/0BSD.txt; do
	check "$f is there" test -s "$top/$f"
done

mapfile -t files < <(cd "$top" && git ls-files | grep -Ev '^(COPYING|LICENSES/.*|.*\.md|(.*/)?README|(.*/)?\.gitignore|debian/(changelog|copyright|source/format)|NEWS)$')
# (A symbolic link, as debian/elfpmd.postinst to dist/debian/, is its
# target, which is checked as itself.)
for i in "${!files[@]}"; do [ -L "$top/${files[i]}" ] && unset 'files[i]'; done
files=("${files[@]}")
[ ${#files[@]} -gt 100 ] || hard_error "git ls-files lists ${#files[@]} files in $top"
bad=() n0=0 ngpl=0
for f in "${files[@]}"; do
	case $f in
	stub/* | src/inject/*) want=0BSD ;;
	*) want=GPL-3.0-or-later ;;
	esac
	if head -n 5 "$top/$f" | grep -q "SPDX-License-Identifier: $want\b"; then
		case $want in 0BSD) n0=$((n0 + 1)) ;; *) ngpl=$((ngpl + 1)) ;; esac
	else
		bad+=("$f (wants $want)")
	fi
done
if [ ${#bad[@]} -eq 0 ]; then
	pass "all ${#files[@]} source files say their licence: $n0 0BSD (stub/, src/inject/), $ngpl GPL-3.0-or-later"
else
	fail "${#bad[@]} of ${#files[@]} source files do not say the licence they should: ${bad[*]:0:10}"
fi

if have licensecheck; then
	out=$(cd "$top" && licensecheck --lines=8 --check='.*' -- "${files[@]}" 2>&1)
	unknown=$(printf '%s\n' "$out" | grep -E ': (\*No copyright\* )?UNKNOWN$' | head -10)
	lines=$(printf '%s\n' "$out" | grep -c ': ')
	wrong=$(printf '%s\n' "$out" | grep -Ev 'GNU General Public License, Version 3|BSD 0-Clause License' | grep ': ' | head -10)
	if [ "$lines" -eq ${#files[@]} ] && [ -z "$unknown" ] && [ -z "$wrong" ]; then
		pass "licensecheck finds a licence in all $lines files (GPL-3 or 0BSD)"
	else
		fail "licensecheck: $lines lines for ${#files[@]} files; unknown: ${unknown:-none}; other: ${wrong:-none}"
	fi
else
	skip "licensecheck not found (Debian: licensecheck): no second opinion"
fi
finish
