#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-order.sh: the order in the build logs of run-deb-rules-build.sh:
# with cdbs (also through the diverting debhelper.mk), the package's
# post-install hook, dh_elfpmd (once), elfpmd, dh_strip and the debug
# files, then dh_makeshlibs, dh_shlibdeps, dh_md5sums; with debhelper by
# hand, dh_dwz, dh_elfpmd, elfpmd, dh_strip and the debug files, then
# dh_makeshlibs, dh_shlibdeps, dh_md5sums; without debhelper, make install,
# elfpmd, then objcopy --only-keep-debug.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
deb_need rules

# first_line REGEX FILE: the number of FILE's first line matching the
# extended REGEX (0: none).
first_line () { grep -nE -m1 -- "$1" "$2" | cut -d: -f1 | grep . || echo 0; }
# in_order FILE REGEX...: each REGEX's first line in FILE comes after the
# previous one's (all found).
in_order () {
	local file=$1 prev=0 n
	shift
	for re in "$@"; do
		n=$(first_line "$re" "$file")
		[ "$n" -gt "$prev" ] || return 1
		prev=$n
	done
}
for v in $rules_variants; do
	log=$DEB_BUILT/$v.log
	elfpmd_re="\| $DEB_BUILT/bin/elfpmd-logged --json --no-sync --files-from=- -0 -j 2\$"
	case $v in
	cdbs|divert)
		check "$v: the package's post-install hook, dh_elfpmd, elfpmd, dh_strip, in that order" \
			in_order "$log" "^post-install hook of $pkg\$" "^dh_elfpmd -p$pkg *\$" "$elfpmd_re" "^dh_strip -p$pkg( |\$)" "objcopy --only-keep-debug"
		check "$v: dh_elfpmd ran once" test "$(grep -c "^dh_elfpmd " "$log")" -eq 1
		check "$v: dh_strip, dh_makeshlibs, dh_shlibdeps, dh_md5sums after dh_elfpmd" \
			in_order "$log" "$elfpmd_re" "^dh_strip " "^dh_makeshlibs " "^dh_shlibdeps " "^dh_md5sums " ;;
	debhelper)
		check "$v: dh_dwz, dh_elfpmd, elfpmd, dh_strip, in that order" \
			in_order "$log" "^dh_dwz -a\$" "^dh_elfpmd -a\$" "$elfpmd_re" "^dh_strip -a\$" "objcopy --only-keep-debug"
		check "$v: dh_makeshlibs, dh_shlibdeps, dh_md5sums after dh_elfpmd" \
			in_order "$log" "$elfpmd_re" "^dh_makeshlibs -a\$" "^dh_shlibdeps -a\$" "^dh_md5sums -a\$" ;;
	plain)
		elfpmd_re="\| $DEB_BUILT/bin/elfpmd-logged -q --machine=host -j 2 --files-from=- -0\$"
		check "$v: make install, elfpmd, then objcopy --only-keep-debug and strip" \
			in_order "$log" "make install DESTDIR=" "$elfpmd_re" "objcopy --only-keep-debug" ;;
	esac
done
finish
