#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-lintian.sh: lintian finds no error in the elfpmd and
# dh-elfpmd packages of run-packages-deb-build.sh (the warnings' tags are
# listed).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-buildpackage dh dpkg lintian
scratch_dir
packages_need deb

clean_env lintian --tag-display-limit 0 "$deb" "$dhdeb" > "$work/lintian.log" 2>&1
errors=$(grep -c '^E: ' "$work/lintian.log")
holds "lintian on elfpmd and dh-elfpmd: 0 errors ($(grep -c '^W: ' "$work/lintian.log") warnings: $(grep '^W: ' "$work/lintian.log" | awk '{ print $3 }' | sort -u | tr '\n' ' '))" \
	'[ "$errors" -eq 0 ]' || sed 's/^/      /' "$work/lintian.log"
finish
