#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-madvise-debuginfo.sh: the debuginfo package of the build with
# %_elfpmd_options --madvise (run-rpm-build.sh) matches the stubbed
# binaries, as run-rpm-debuginfo.sh checks for the build with the hook
# (rpm-lib.sh, check_debuginfo).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need
check_debuginfo madvise
finish
