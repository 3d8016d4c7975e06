#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-switch-gdb.sh: gdb, given the -dbgsym package's debug files of
# the switch build (run-deb-switch-build.sh, with the startup stub), loads
# them without a warning, and its backtrace at a breakpoint in the library
# (pkgtest_lib) is the switch-noelfpmd build's.  (The frames of the program
# itself are nameless in both builds: its debug file's DWARF is in the dwz
# file under /usr/lib/debug/.dwz, which is not installed here.)
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
have gdb || skip_all "gdb not found (Debian: package gdb)"
scratch_dir
deb_need_switch

for d in "$S" "$SB"; do
	LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 120 gdb -nx -batch \
		-ex "set debug-file-directory $d/dbg/usr/lib/debug" -ex 'break pkgtest_lib' -ex run -ex bt \
		"$d/x/usr/bin/$pkg" > "$work/${d##*/}.gdb" 2>&1
	grep -E '^#|warning' "$work/${d##*/}.gdb" | sed 's/0x[0-9a-f]*//g' > "$work/${d##*/}.gdb.bt"
done
if grep -q 'pkgtest_lib (n=3) at .*lib.c' "$work/switch.gdb.bt" && ! grep -qi 'warning' "$work/switch.gdb.bt" \
	&& cmp -s "$work/switch.gdb.bt" "$work/switch-noelfpmd.gdb.bt"; then
	pass "switch: gdb loads the debug files without a warning, its backtrace in pkgtest_lib is the noelfpmd build's"
else
	fail "switch: gdb: $(head -4 "$work/switch.gdb.bt" | tr '\n' ' '); noelfpmd: $(head -4 "$work/switch-noelfpmd.gdb.bt" | tr '\n' ' ')"
fi
finish
