#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-fail.sh: an elfpmd failure fails the rpm build: with an option
# elfpmd refuses in %_elfpmd_options, rpmbuild of the test package fails
# and its log has elfpmd's message.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
mkdir -p "$work/tmp"
rpm_macro_paths "$work"
rpm_features "$work"

write_spec "$work/fail.spec" false
if rpm_build fail "$work/fail.spec" --define '_elfpmd_options --no-such-option'; then
	fail "rpmbuild succeeded although elfpmd failed"
else
	check "an elfpmd failure fails the build (elfpmd's message in the log)" \
		grep -q 'elfpmd.*no-such-option' "$work/fail.log"
fi
finish
