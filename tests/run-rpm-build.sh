#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-build.sh: rpmbuild builds the test package (tests/pkg/upstream:
# a PIE and a shared library with 4.5 MiB of text each, a hard link, a
# symbolic link, a script; rpm-lib.sh, write_spec) with the RPM integration
# (dist/rpm/brp-elfpmd, dist/rpm/macros.elfpmd) from the source tree and
# the rpm installed here, three times in one _topdir (rpm-lib.sh,
# rpm_built): with the hook, with %global __brp_elfpmd %{nil} in the spec
# (the opt-out), and with %_elfpmd_options --madvise.  All three succeed;
# the other run-rpm-*.sh scripts look at them.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require

rpm_built
$debuginfo || skip "$debuginfo_why, build-id check skipped"
$caps || skip "$caps_why, file capability check skipped"
for name in hook optout madvise; do
	if [ "$(cat "$RPM_BUILT/$name/status" 2>/dev/null)" = ok ]; then
		pass "$(cat "$RPM_BUILT/$name/built")"
	else
		fail "$(cat "$RPM_BUILT/$name/status" 2>/dev/null || echo "rpmbuild $name: not built")"
		tail -20 "$RPM_BUILT/$name.log" 2>/dev/null | sed 's/^/      /'
		break
	fi
done
finish
