#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-prime-nolist.sh: dh_elfpmd --no-prime-list writes no prime list
# and leaves one from before as it was; without it, the list is written
# anew, naming the package's ELF files with whole PMD chunks of text (as
# in the aligned build's .deb: run-deb-prime-list.sh).  By hand in a copy
# of the noelfpmd build's tree (run-deb-build.sh; deb-lib.sh,
# deb_hand_tree).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree
deb_want_prime

mkdir -p "$tree/usr/lib/elfpmd/prime.d" && echo /stale > "$tree/$list_path"
dh_elfpmd_run noprime -- --no-prime-list
check "--no-prime-list: exit 0, the old list left as it was" test "$rc.$(cat "$tree/$list_path")" = 0./stale
dh_elfpmd_run withprime --
check "without --no-prime-list: the list rewritten: $(tr '\n' ' ' < "$tree/$list_path")" \
	cmp -s "$tree/$list_path" "$work/want-prime.list"
finish
