#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-debuginfo.sh: the debuginfo package of the build with the hook
# (run-rpm-build.sh) matches the rewritten binaries: for the program and
# the library, its .build-id/XX/YYYY.debug file has the binary's build-id,
# rpm provides debuginfo(build-id) for it, and the binary's .gnu_debuglink
# names a file of the package with the right CRC (rpm-lib.sh,
# check_debuginfo).  Skipped without find-debuginfo (Debian: debugedit).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need
check_debuginfo hook
finish
