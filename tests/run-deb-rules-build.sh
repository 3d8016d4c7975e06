#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-build.sh: dpkg-buildpackage builds tests/pkg/upstream with
# each debian/rules of doc/integration.md that does not run dh, so that the
# dh add-on (DH_EXTRA_ADDONS=elfpmd included) does not reach it, taken from
# the doc as a package uses it (deb-lib.sh, deb_built rules): cdbs
# (debhelper.mk and the cdbs rule file dist/cdbs/elfpmd.mk, the doc's
# include pointed at a copy of the source tree's, a binary-post-install
# hook of the package appended); divert (the same with only debhelper.mk
# included, from a directory that holds the doc's diverting debhelper.mk,
# the archive-wide way); debhelper (hand-written, the debhelper commands
# one by one, dh_elfpmd between dh_dwz and dh_strip); plain (hand-written
# without debhelper: find | elfpmd --files-from=- -0, then objcopy
# --only-keep-debug and strip).  dh_elfpmd is a copy of the source tree's
# found through PATH, ELFPMD a wrapper that logs its arguments.  Each is
# built with DEB_BUILD_OPTIONS=parallel=2 and DH_VERBOSE=1, and all but
# divert once more with noelfpmd added; every build succeeds.  The other
# run-deb-rules-*.sh scripts look at these builds.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require

deb_built rules
for name in cdbs cdbs-noelfpmd divert debhelper debhelper-noelfpmd plain plain-noelfpmd; do
	deb_report_build "$name" || break
done
finish
