#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-md5sums.sh: DEBIAN/md5sums of each package of
# run-deb-rules-build.sh built with elfpmd matches the rewritten files
# (elfpmd ran before dh_md5sums, or before the md5sums the debian/rules
# without debhelper writes).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
scratch_dir
deb_need rules

for v in $rules_variants; do
	rules_pair "$v"
	(cd "$A/x" && md5sum --quiet -c "$A/control/md5sums") > "$work/$v.md5" 2>&1 \
		&& pass "$v: DEBIAN/md5sums matches the rewritten files" || fail "$v: md5sums: $(head -3 "$work/$v.md5")"
done
finish
