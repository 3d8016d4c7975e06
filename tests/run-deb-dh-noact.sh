#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-noact.sh: dh_elfpmd --no-act -v -- --madvise, by hand in a copy
# of the noelfpmd build's tree (run-deb-build.sh; deb-lib.sh,
# deb_hand_tree): it prints the elfpmd command it would run (-j 1 without
# parallel= in DEB_BUILD_OPTIONS, the options after -- last), runs no
# elfpmd and leaves the files alone.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

sig_prog=$(file_signature "$tree/usr/bin/$pkg")
sig_lib=$(file_signature "$tree/usr/lib/lib$pkg.so.1")
dh_elfpmd_run noact -- --no-act -v -- --madvise
if [ "$rc" -eq 0 ] && grep -qF -- "| $work/bin/elfpmd-logged $elfpmd_args -j 1 --madvise" "$work/noact.out"; then
	pass "--no-act -v -- --madvise: prints the command, -j 1 without parallel=, --madvise last"
else
	fail "--no-act -v -- --madvise: exit $rc: $(cat "$work/noact.out")"
fi
check "--no-act: elfpmd not run" test ! -e "$work/elfpmd.args"
check "--no-act: files untouched" test "$sig_prog $sig_lib" = "$(file_signature "$tree/usr/bin/$pkg") $(file_signature "$tree/usr/lib/lib$pkg.so.1")"
finish
