#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Every option is documented in its own page: every option the main
# command's --help lists is in the OPTIONS section of elfpmd(1), every
# option of a verb's --help in the OPTIONS section of the verb's page
# (elfpmd-status(1), elfpmd-prime(1), elfpmd-map(1); reapply and revert in
# elfpmd-manifest(1)), --help, --usage and --version included; and, the
# other way, every option a page tags in its OPTIONS (the line after .TP)
# is in the --help of a command the page documents.  Then the check itself
# is shown to fail: on a copy of a page with one option's entry taken out,
# and on one with an option --help does not have.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

mandir=$TESTS_SRCDIR/../man
work=$TESTS_BUILDDIR/options-doc-work
rm -rf "$work" && mkdir -p "$work" || hard_error "cannot create $work"

# section PAGE NAME: the page's section .SH NAME, up to the next .SH, with
# groff's \- as -, font escapes and quotes dropped.
section () {
	awk -v want="$2" '/^\.SH / { f = ($0 == ".SH " want); next } f' "$1" \
		| sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/"//g'
}

# help_options VERB...: the options of `elfpmd VERB... --help`, one a line:
# "--long" and "-x" from the option lines ("  -x, --long=ARG   text").
help_options () {
	"$ELFPMD" "$@" --help | awk '/^  +-/ { print }' \
		| sed -E 's/^ +//; s/  .*//' | tr ',' '\n' | sed -E 's/^ +//; s/[=[ ].*//' | grep -E '^--?[A-Za-z0-9?]'
}

# man_tags: the options tagged in the section text on standard input (the
# line after .TP).
man_tags () {
	awk 'prev == ".TP" { print } { prev = $0 }' \
		| grep -E '^\.B[IR]? +-' | sed -E 's/^\.B[IR]? +//' | tr ' ,' '\n\n' \
		| sed -E 's/[=[].*//' | grep -E '^--?[A-Za-z0-9?][A-Za-z0-9-]*$'
}

# mentioned OPTION TEXT: OPTION appears in TEXT as a word.
mentioned () {
	printf '%s\n' "$2" | grep -q -E -- "(^|[^A-Za-z0-9-])$(printf '%s' "$1" | sed 's/[?]/[?]/g')([^A-Za-z0-9-]|\$)"
}

# check_page PAGE VERB...: for the commands VERB ("main": elfpmd itself)
# that PAGE documents, print "missing:" and the options of their --help
# that its OPTIONS lacks, and "extra:" and those it tags that no one of
# their --help lists; each line empty when there are none.  Fails (1) when
# the page or its OPTIONS cannot be read.
check_page () {
	local page=$1 text opts all= missing= extra= verb o
	shift
	[ -r "$page" ] || { echo "cannot read $page"; return 1; }
	text=$(section "$page" OPTIONS)
	[ -n "$text" ] || { echo "$page has no section OPTIONS"; return 1; }
	for verb in "$@"; do
		if [ "$verb" = main ]; then opts=$(help_options); else opts=$(help_options "$verb"); fi
		all="$all $opts"
		for o in $opts; do
			mentioned "$o" "$text" || missing="$missing $verb:$o"
		done
	done
	for o in $(printf '%s\n' "$text" | man_tags); do
		printf '%s\n' $all | grep -q -x -F -- "$o" || extra="$extra $o"
	done
	echo "missing:$missing"
	echo "extra:$extra"
}

pages=(elfpmd.1:main elfpmd-status.1:status elfpmd-prime.1:prime elfpmd-map.1:map
	elfpmd-manifest.1:reapply,revert)
for entry in "${pages[@]}"; do
	page=${entry%%:*}
	IFS=, read -r -a verbs <<< "${entry#*:}"
	for verb in "${verbs[@]}"; do
		if [ "$verb" = main ]; then n=$(help_options | grep -c .); else n=$(help_options "$verb" | grep -c .); fi
		[ "$n" -ge 5 ] && pass "$verb: --help lists $n option names" || fail "$verb: cannot read the options of --help ($n)"
	done
	out=$(check_page "$mandir/$page" "${verbs[@]}") || { fail "$page: $out"; continue; }
	missing=$(printf '%s\n' "$out" | sed -n 's/^missing://p')
	extra=$(printf '%s\n' "$out" | sed -n 's/^extra://p')
	[ -z "$missing" ] && pass "$page: every option of ${verbs[*]} --help is in its OPTIONS" \
		|| fail "$page: options of --help missing from its OPTIONS:$missing"
	[ -z "$extra" ] && pass "$page: every option its OPTIONS tags is in ${verbs[*]} --help" \
		|| fail "$page: options tagged in its OPTIONS but not in --help:$extra"
done
# Every page of man/ is one of those, or elfpmd-stub(7), which documents
# no command of its own.
for f in "$mandir"/*.[1-8]; do
	name=$(basename "$f")
	case " ${pages[*]} elfpmd-stub.7: " in
	*" $name:"*) ;;
	*) fail "$name: a page tests/run-options-doc.sh does not check (add it to its list)" ;;
	esac
done

# The checker itself.
if mentioned --no-such-option "$(section "$mandir/elfpmd.1" OPTIONS)" || ! mentioned --no-pad "$(section "$mandir/elfpmd.1" OPTIONS)"; then
	fail "mentioned does not tell a documented option from an undocumented one"
else
	pass "mentioned tells --no-pad (documented) from --no-such-option"
fi
# A copy of elfpmd-prime(1) without the entry of --max-size (its .TP and
# the lines up to the next one): the check names --max-size as missing.
awk '/^\.TP$/ { held = $0; next } held != "" { if ($0 ~ /max\\-size/) { skip = 1 } else { print held; skip = 0 } held = "" }
	/^\.(TP|SH|SS)/ { skip = 0 } !skip { print }' "$mandir/elfpmd-prime.1" > "$work/elfpmd-prime.1"
out=$(check_page "$work/elfpmd-prime.1" prime)
if ! mentioned --max-size "$(section "$work/elfpmd-prime.1" OPTIONS)" && printf '%s\n' "$out" | grep -q -x -- 'missing: prime:--max-size'; then
	pass "a page without --max-size's entry: the check says 'missing: prime:--max-size'"
else
	fail "a page without --max-size's entry: the check says '$(printf '%s' "$out" | tr '\n' ' ')'"
fi
# A copy of elfpmd-map(1) that tags an option map does not take.
sed 's/^\.B \\-\\-json$/.B \\-\\-no\\-such\\-option/' "$mandir/elfpmd-map.1" > "$work/elfpmd-map.1"
out=$(check_page "$work/elfpmd-map.1" map)
if printf '%s\n' "$out" | grep -q -x -- 'extra: --no-such-option' && printf '%s\n' "$out" | grep -q -x -- 'missing: map:--json'; then
	pass "a page tagging --no-such-option instead of --json: the check says so both ways"
else
	fail "a page tagging --no-such-option instead of --json: the check says '$(printf '%s' "$out" | tr '\n' ' ')'"
fi

[ "$n_fail" -eq 0 ] && rm -rf "$work"
finish
