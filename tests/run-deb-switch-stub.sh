#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-stub.sh: the program and the library in the switch
# build's .deb (run-deb-switch-build.sh, elfpmd=madvise) are aligned and
# carry the startup stub.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
deb_need_switch

for f in usr/bin/$pkg "$lib"; do
	if text_aligned "$S/x/$f" && has_stub "$S/x/$f"; then
		pass "switch: $f in the .deb aligned, with the stub"
	else
		fail "switch: $f in the .deb: $(describe_text "$S/x/$f")"
	fi
done
finish
