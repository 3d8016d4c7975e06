#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-run.sh: the stubbed program of the switch build's .deb
# (run-deb-switch-build.sh), with its library, prints what the
# switch-noelfpmd build's prints and exits as it does.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need_switch

for d in "$S" "$SB"; do
	LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 60 "$d/x/usr/bin/$pkg" > "$work/${d##*/}.run" 2>&1
	echo "exit status $?" >> "$work/${d##*/}.run"
done
if grep -qE "^$pkg: ok [0-9]+\$" "$work/switch-noelfpmd.run" && cmp -s "$work/switch.run" "$work/switch-noelfpmd.run"; then
	pass "switch: the program prints what the noelfpmd build's prints: $(head -1 "$work/switch.run")"
else
	fail "switch: the program: $(tr '\n' ' ' < "$work/switch.run"); noelfpmd: $(tr '\n' ' ' < "$work/switch-noelfpmd.run")"
fi
finish
