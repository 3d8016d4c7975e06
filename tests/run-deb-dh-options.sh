#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-options.sh: options archive-wide, by hand (--no-act) in a
# copy of the noelfpmd build's tree (run-deb-build.sh; deb-lib.sh,
# deb_hand_tree): elfpmd=WORD,... in DEB_BUILD_OPTIONS, each passed on as
# --WORD after dh_elfpmd's own; an option dh_elfpmd does not pass on is an
# error naming it, build-id=keep one that says why; the switch through DH_EXTRA_ADDONS without elfpmd in
# DEB_BUILD_OPTIONS (which .buildinfo records) is warned about, with it
# not.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

dh_elfpmd_run buildopts DEB_BUILD_OPTIONS="parallel=2 elfpmd=madvise,rule=kernel,no-pad" -- --no-act -v
check "DEB_BUILD_OPTIONS elfpmd=madvise,rule=kernel,no-pad: passed on as --madvise --rule=kernel --no-pad" \
	grep -qF -- "| $work/bin/elfpmd-logged $elfpmd_args -j 2 --madvise --rule=kernel --no-pad" "$work/buildopts.out"
dh_elfpmd_run badopt DEB_BUILD_OPTIONS="elfpmd=madvise,output=/tmp/x" -- --no-act
if [ "$rc" -ne 0 ] && grep -q 'dh_elfpmd: error: DEB_BUILD_OPTIONS elfpmd=...: "output=/tmp/x" is not an elfpmd option' "$work/badopt.out"; then
	pass "DEB_BUILD_OPTIONS elfpmd=output=...: refused, named (exit $rc)"
else
	fail "DEB_BUILD_OPTIONS elfpmd=output=...: exit $rc: $(head -3 "$work/badopt.out")"
fi
dh_elfpmd_run badbid DEB_BUILD_OPTIONS="elfpmd=madvise,build-id=keep" -- --no-act
check "DEB_BUILD_OPTIONS elfpmd=build-id=keep: refused, with the reason (exit $rc)" \
	test "$rc" -ne 0 -a "$(grep -c 'dh_elfpmd: error: .*"build-id=keep" is not passed on: dh_elfpmd runs before dh_strip' "$work/badbid.out")" = 1
dh_elfpmd_run extra DH_EXTRA_ADDONS=elfpmd -- --no-act
check "DH_EXTRA_ADDONS=elfpmd without elfpmd in DEB_BUILD_OPTIONS: warned" \
	grep -q 'warning: enabled by DH_EXTRA_ADDONS, which .buildinfo does not record' "$work/extra.out"
dh_elfpmd_run extra2 DH_EXTRA_ADDONS=elfpmd DEB_BUILD_OPTIONS=elfpmd -- --no-act
check "DH_EXTRA_ADDONS=elfpmd with elfpmd in DEB_BUILD_OPTIONS: no warning" test "$rc.$(grep -c warning "$work/extra2.out")" = 0.0
finish
