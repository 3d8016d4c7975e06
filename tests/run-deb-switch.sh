#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch.sh: the switch build of run-deb-switch-build.sh
# (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS elfpmd=madvise): its
# .buildinfo records the options (DH_EXTRA_ADDONS, which it does not
# record, is not the only trace), dh_elfpmd gives no warning about the
# switch, and the add-on's commands ran in their places: dh_elfpmd_buildtree
# before dh_auto_test, dh_elfpmd before dh_strip.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need_switch

bi=$(ls "$S"/*.buildinfo 2>/dev/null | head -1)
if [ -n "$bi" ] && grep -qx ' DEB_BUILD_OPTIONS="parallel=2 elfpmd=madvise"' "$bi"; then
	pass "switch: the .buildinfo records the options: $(grep -x ' DEB_BUILD_OPTIONS=.*' "$bi")"
else
	fail "switch: the .buildinfo ($bi) does not record DEB_BUILD_OPTIONS=\"parallel=2 elfpmd=madvise\""
fi
check "switch: no warning about the switch" test "$(grep -c 'which .buildinfo does not record' "$S.log")" -eq 0
grep -E '^   dh_[a-z_]+( |$)' "$S.log" > "$work/ran-switch"
check "switch: dh_elfpmd_buildtree ran before dh_auto_test, dh_elfpmd before dh_strip" \
	test "$(next_after dh_elfpmd_buildtree "$work/ran-switch") $(next_after dh_elfpmd "$work/ran-switch")" = "dh_auto_test dh_strip"
finish
