#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-exclude.sh: an exclusion that covers everything, the doc's
# way out of the cdbs diversion (DEB_ELFPMD_EXCLUDE_ALL = /): in a copy of
# the tree the cdbs noelfpmd build of run-deb-rules-build.sh left,
# dh_elfpmd -X / finds no file, where without it it would run elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
scratch_dir
deb_need rules
deb_tools
src=$work/src
cp -a "$DEB_BUILT/cdbs-noelfpmd/tree" "$src" || hard_error "cannot copy $DEB_BUILT/cdbs-noelfpmd/tree"

(cd "$src" && pkg_env dh_elfpmd -p"$pkg" --no-act -v) > "$work/exclude-none.out" 2>&1
(cd "$src" && pkg_env dh_elfpmd -p"$pkg" --no-act -v -X /) > "$work/exclude-all.out" 2>&1
holds "dh_elfpmd -X / finds no file (without it, it would run elfpmd)" \
	'grep -q elfpmd-logged "$work/exclude-none.out" && ! grep -q elfpmd-logged "$work/exclude-all.out"'
finish
