#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-run.sh: the program of the package built with the hook
# (run-rpm-build.sh), under each of its names, runs from the package's
# files alone and prints what the opt-out build's prints; the script runs
# the program.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
rpm_need

for prog in elfpmd-pkgtest elfpmd-pkgtest-link elfpmd-pkgtest-alias; do
	want=$(run_pkg optout $prog)
	got=$(run_pkg hook $prog)
	case $want in
	"elfpmd-pkgtest: ok "[0-9]*"
exit status 0") ;;
	*) fail "$prog from the opt-out build: $want"; continue ;;
	esac
	check "$prog runs and prints what the unhooked build's does ($(echo "$got" | head -1))" test "$got" = "$want"
done
x=$RPM_BUILT/x-hook
got=$(PATH=$x/usr/bin:$PATH LD_LIBRARY_PATH=$x/usr/lib64 timeout 60 "$x/usr/bin/elfpmd-pkgtest-script" 2>&1)
check "the script runs the program ($got)" test "$got" = "$(run_pkg optout elfpmd-pkgtest | head -1)"
finish
