#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-no-elfpmd.sh: an elfpmd that cannot run (ELFPMD naming no
# file) fails dh_elfpmd, which says so, by hand in a copy of the noelfpmd
# build's tree (run-deb-build.sh; deb-lib.sh, deb_hand_tree).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

(cd "$src" && pkg_env ELFPMD="$work/no-such-elfpmd" timeout 120 dh_elfpmd) > "$work/missing.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "cannot run $work/no-such-elfpmd" "$work/missing.out" \
	&& pass "an elfpmd that cannot run fails dh_elfpmd (exit $rc)" || fail "missing elfpmd: exit $rc: $(cat "$work/missing.out")"
finish
