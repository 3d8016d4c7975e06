#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols-gdb.sh: a crash inside the stub can be attributed.  In a
# copy of the --madvise rewrite of a stripped file, an illegal instruction
# (ud2) written over the start of elfpmd.populate_range, which stub_main
# calls at every start where the kernel lets the stub populate (Linux 5.18+
# on ext4 6.16+ or xfs; elsewhere it is not reached, and the test says so):
# gdb's backtrace names the stub's frames from its MiniDebugInfo, without a
# warning.  x86-64 only (the crash is an x86-64 instruction).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_symbols_start
stub_symbols rw >syms
pr=$(awk '$6 == "elfpmd.populate_range" { print $1 }' syms)
[ -n "$pr" ] || hard_error "elfpmd.populate_range is not in the rewrite's MiniDebugInfo"
seg=$(readelf -lW rw | awk '$1 == "LOAD" { off = $2; va = $3 } END { print off, va }')
file_off=$((0x$pr - ${seg#* } + ${seg% *}))
cp rw crash
printf '\017\013' | dd of=crash bs=1 seek="$file_off" conv=notrunc status=none
{ ./crash; } 2>/dev/null
rc=$?
if [ "$rc" != 132 ]; then
	skip "the forced crash was not reached (exit $rc): the stub does not populate on this kernel"
elif ! have gdb; then
	skip "gdb is not installed"
else
	gdb -q -batch -nx -ex run -ex bt crash >gdb.log 2>&1
	if grep -q '^#0 .* in elfpmd\.populate_range ()' gdb.log &&
		grep -q '^#1 .* in elfpmd\.stub_main ()' gdb.log; then
		pass "gdb names the crashing frame elfpmd.populate_range, called from elfpmd.stub_main"
	else
		fail "gdb does not name the stub's frames"
		sed 's/^/      /' gdb.log
	fi
	check "gdb has no warning about the MiniDebugInfo" sh -c "! grep -qi 'warning.*gnu_debugdata' gdb.log"
	# The same crash without it: what gdb showed before.
	objcopy --remove-section .gnu_debugdata crash crash.bare 2>/dev/null &&
		gdb -q -batch -nx -ex run -ex bt crash.bare 2>&1 | grep -q '^#0 .* in ?? ()' &&
		note "without it: gdb shows ?? ()"
fi
test_finish
