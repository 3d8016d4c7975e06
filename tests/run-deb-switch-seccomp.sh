#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-seccomp.sh: under systemd 252's @system-service
# allow-list (tests/fixtures/invseccomp.c: every other call kills the
# process, as a unit's SystemCallFilter= does), the stubbed program and
# library of the switch build's .deb (run-deb-switch-build.sh) run as the
# switch-noelfpmd build's do (the stub made mincore calls, which killed
# them).  x86-64 only.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need_switch

[ "$(uname -m)" = x86_64 ] && cc -O2 -o "$work/invseccomp" "$TESTS_SRCDIR/fixtures/invseccomp.c" 2> "$work/invseccomp.cc" \
	|| skip_all "switch: no @system-service filter here (x86-64 only; $(head -1 "$work/invseccomp.cc" 2>/dev/null))"
for d in "$S" "$SB"; do
	LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 60 "$work/invseccomp" system-service "$d/x/usr/bin/$pkg" > "$work/${d##*/}.service" 2>&1
	echo "exit status $?" >> "$work/${d##*/}.service"
done
if grep -qE "^$pkg: ok [0-9]+\$" "$work/switch-noelfpmd.service" && cmp -s "$work/switch.service" "$work/switch-noelfpmd.service"; then
	pass "switch: under the @system-service allow-list the stubbed program prints what the noelfpmd build's does: $(tr '\n' ' ' < "$work/switch.service")"
else
	fail "switch: under the @system-service allow-list: $(tr '\n' ' ' < "$work/switch.service"); noelfpmd: $(tr '\n' ' ' < "$work/switch-noelfpmd.service")"
fi
finish
