#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-gdb.sh: gdb stops at main of a padded program and names it
# with its file:line, with the debug info in the binary and from a separate
# debug file made before the rewrite (given explicitly, and found through
# .gnu_debuglink beside the file).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
have gdb || skip_all "gdb not found"
work_dir

# gdb_check FILE WHAT GDBARGS...: gdb stops at main of the program FILE and
# names main with its file:line.
gdb_check () {
	local target=$1 what=$2 log
	shift 2
	log=$w/gdb-$(basename "$target").log
	(cd "$(dirname "$target")" && timeout 60 gdb -batch -nx "$@" \
		-ex 'break main' -ex "run ${ARGS[0]}" -ex bt -ex "info line *\$pc" \
		-ex 'info symbol big_report' -ex 'kill') >"$log" 2>&1
	if grep -Eq '^#0 +main \(.*\) at .*main\.c:[0-9]+' "$log" \
		&& grep -Eq '^Line [0-9]+ of ".*main\.c" starts at address' "$log" \
		&& grep -q '^big_report in section \.text' "$log"; then
		pass "$name: gdb ($what) stops in main at $(grep -Eo 'main\.c:[0-9]+' "$log" | head -1) and knows big_report"
	else
		fail "$name: gdb ($what) does not show main with file:line (log: $log)"
		grep -Ev '^\[|libthread_db' "$log" | head -12 | sed 's/^/      /'
	fi
}

debugged () {
	[ "$gdbmode" != - ] || return 0
	check_original
	$can_run && pad_rewrite || return
	if [ "$gdbmode" = full ]; then
		gdb_check "$new" "debug info in the file" "$new"
	else
		gdb_check "$new" "symbol-file $target.debug, exec-file rewritten" \
			-ex "symbol-file $O/$target.debug" -ex "exec-file $new"
		cp -p "$O/$target.debug" "$w/new/"
		gdb_check "$new" "debug file found by .gnu_debuglink" "$new"
	fi
}
for_each_padding_fixture debugged
finish
