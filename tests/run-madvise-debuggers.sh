#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-debuggers.sh: the fixtures given the stub run under valgrind
# as they did (only where valgrind runs the original cleanly: it reports
# errors in glibc's own start-up code of a static PIE), and gdb stops in
# main.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup
have_valgrind=false
if have valgrind; then have_valgrind=true; else skip "valgrind not found: valgrind runs skipped"; fi
have_gdb=false
if have gdb; then have_gdb=true; else skip "gdb not found: debugger runs skipped"; fi
$have_valgrind || $have_gdb || skip_all "neither valgrind nor gdb found"

debugged () {
	local exe
	mad_rewrite || return
	if $have_valgrind; then
		run_as "$w/orig" "$w/valgrind-orig.out" valgrind -q --error-exitcode=99
		if ! cmp -s "$w/orig.out" "$w/valgrind-orig.out"; then
			skip "$name: valgrind does not run the original cleanly either ($(tail -1 "$w/valgrind-orig.out"): $(grep -m1 -v '^==[0-9]*== *$' "$w/valgrind-orig.out.err" | sed 's/^==[0-9]*== //'))"
		else
			run_as "$dir" "$w/valgrind.out" valgrind -q --error-exitcode=99
			same_output "$w/valgrind.out" "under valgrind"
		fi
	fi
	$have_gdb || return 0
	if [ "$prog" = "$file" ]; then exe=$r; else exe=$O/$prog; fi
	LD_LIBRARY_PATH=$dir timeout 60 gdb -batch -nx -ex 'break main' -ex run -ex bt \
		--args "$exe" "${ARGS[@]}" >"$w/gdb.out" 2>&1 </dev/null
	if grep -Eq '^#0 .*\<main \(' "$w/gdb.out"; then
		pass "$name: gdb stops in main ($(grep -E '^#0 ' "$w/gdb.out" | head -1 | sed 's/  */ /g'))"
	else
		fail "$name: gdb does not show main in the backtrace"
		tail -5 "$w/gdb.out" | sed 's/^/      /'
	fi
}
for_each_mad_fixture debugged
finish
