#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-modes.sh: the package built with the hook (run-rpm-build.sh)
# keeps the modes and capabilities the spec gives: the program and its hard
# link set-user-ID from the buildroot, the script -rwxr-x--- by %attr (rpm
# -qlvp), mode 4755 once extracted, cap_net_raw=ep on both names by %caps
# (where this rpm has rpmlib(FileCaps)); and rpm -qp --dump and --filecaps
# show everything as in the opt-out build but sizes, dates, digests and
# build-ids (the rewritten files have their own: run-rpm-build-id.sh).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need

h=$RPM_BUILT/x-hook/usr/bin
modes=$(rpm -qlvp "$hook_rpm" | awk '{ p = $1 ~ /^l/ ? $(NF - 2) : $NF } p ~ /^\/usr\/bin\// { print $1 }' | tr '\n' ' ')
check "rpm -qlvp: program and hard link -rwsr-xr-x (buildroot), script -rwxr-x--- (%attr): $modes" \
	test "$modes" = "-rwsr-xr-x lrwxrwxrwx -rwsr-xr-x -rwxr-x--- "
check "extracted: mode 4755 kept by the rewrite" test "$(stat -c %a "$h/elfpmd-pkgtest")" = 4755
if $caps; then
	got=$(rpm -qp --filecaps "$hook_rpm" | awk '$1 ~ /^\/usr\/bin\/elfpmd-pkgtest(-link)?$/ { print $2 }' | tr '\n' ' ')
	check "rpm -qp --filecaps: cap_net_raw=ep on both names ($got)" test "$got" = "cap_net_raw=ep cap_net_raw=ep "
else
	skip "$caps_why, file capability check skipped"
fi
# Everything but sizes, times, digests and build-ids (in the names of the
# .build-id links) as in the unhooked build: paths,
# modes, owners, flags, link targets, capabilities.
dump () {
	{
		rpm -qp --dump "$1" | awk '{ $2 = $3 = $4 = "-"; print }'
		$caps && rpm -qp --filecaps "$1"
	} | sed -E 's|/\.build-id/[0-9a-f]{2}(/[0-9a-f]+)?|/.build-id/ID|' | sort
}
if diff <(dump "$optout_rpm") <(dump "$hook_rpm") > "$work/dump.diff"; then
	pass "rpm -qp --dump and --filecaps: as in the unhooked build but for sizes, dates and digests"
else
	fail "rpm -qp --dump differs from the unhooked build's"
	sed 's/^/      /' "$work/dump.diff" | head -20
fi
finish
