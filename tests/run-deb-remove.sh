#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-remove.sh: removing a package removes its prime list, and the
# trigger it sets off primes nothing: dpkg --root -r of the aligned
# package of run-deb-build.sh, installed with the hook package in a
# scratch root (deb-lib.sh, deb_root_installed).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
scratch_dir
deb_root_installed

prime_log_reset
root_dpkg -r "$pkg" > "$work/dpkg-remove.out" 2>&1
check "dpkg --root -r the package: exit 0, list gone, elfpmd not run" \
	test $? -eq 0 -a ! -e "$root/$list_path" -a ! -e "$work/prime.args"
finish
