#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Every option is documented: for the main command and each verb (status,
# prime, map), every option its --help lists is in the man page's section
# for it (OPTIONS, STATUS, PRIME, MAP), and every option the man page
# tags there (.TP) is in that --help.  --help, --usage and --version (and
# -?, -V, -h), which every verb takes, are documented once, in OPTIONS.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

man=$TESTS_SRCDIR/../man/elfpmd.1
[ -r "$man" ] || hard_error "cannot read $man"

# section NAME: the man page's section .SH NAME, up to the next .SH, with
# groff's \- as -, font escapes and quotes dropped.
section () {
	awk -v want="$1" '/^\.SH / { f = ($0 == ".SH " want); next } f' "$man" \
		| sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/"//g'
}

# help_options VERB...: the options of `elfpmd VERB... --help`, one a line:
# "--long" and "-x" from the option lines ("  -x, --long=ARG   text").
help_options () {
	"$ELFPMD" "$@" --help | awk '/^  +-/ { print }' \
		| sed -E 's/^ +//; s/  .*//' | tr ',' '\n' | sed -E 's/^ +//; s/[=[ ].*//' | grep -E '^--?[A-Za-z0-9?]'
}

# man_tags SECTION_TEXT: the options tagged in it (the line after .TP).
man_tags () {
	awk 'prev == ".TP" { print } { prev = $0 }' \
		| grep -E '^\.B[IR]? +-' | sed -E 's/^\.B[IR]? +//' | tr ' ,' '\n\n' \
		| sed -E 's/=.*//' | grep -E '^--?[A-Za-z0-9?][A-Za-z0-9-]*$'
}

# mentioned OPTION TEXT: OPTION appears in TEXT as a word.
mentioned () {
	printf '%s\n' "$2" | grep -q -E -- "(^|[^A-Za-z0-9-])$(printf '%s' "$1" | sed 's/[?]/[?]/g')([^A-Za-z0-9-]|\$)"
}

generic='--help --usage --version -? -V -h'
for verb in main status prime map; do
	case $verb in
	main) args=(); sec=OPTIONS ;;
	*) args=("$verb"); sec=$(printf '%s' "$verb" | tr a-z A-Z) ;;
	esac
	text=$(section "$sec")
	[ -n "$text" ] || { fail "$verb: the man page has no section $sec"; continue; }
	opts=$(help_options "${args[@]}")
	[ "$(printf '%s\n' "$opts" | grep -c .)" -ge 5 ] && pass "$verb: --help lists $(printf '%s\n' "$opts" | grep -c .) option names" \
		|| fail "$verb: cannot read the options of --help: $opts"
	missing=
	for o in $opts; do
		[ "$verb" != main ] && case " $generic " in *" $o "*) continue ;; esac
		mentioned "$o" "$text" || missing="$missing $o"
	done
	[ -z "$missing" ] && pass "$verb: every option of --help is in the man page's $sec" \
		|| fail "$verb: options of --help missing from the man page's $sec:$missing"
	extra=
	for o in $(printf '%s\n' "$text" | man_tags); do
		printf '%s\n' "$opts" | grep -q -x -F -- "$o" || extra="$extra $o"
	done
	[ -z "$extra" ] && pass "$verb: every option the man page's $sec tags is in --help" \
		|| fail "$verb: options tagged in the man page's $sec but not in --help:$extra"
done
# The checker itself: an option the man page lacks is caught.
if mentioned --no-such-option "$(section OPTIONS)" || ! mentioned --no-pad "$(section OPTIONS)"; then
	fail "mentioned does not tell a documented option from an undocumented one"
else
	pass "mentioned tells --no-pad (documented) from --no-such-option"
fi
finish
