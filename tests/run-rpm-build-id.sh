#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-build-id.sh: the hook runs elfpmd before find-debuginfo
# (macros.elfpmd), so a build with it and a plain build of the same
# source (run-rpm-build.sh: hook, optout) never ship two different files
# under one build-id, and every shipped file joins its own debug file:
# for the program and the library of the hook, opt-out, --madvise and
# --madvise with find-debuginfo -m builds, eu-unstrip of the file with the
# debug file its build-id names succeeds; the rewritten files' build-ids
# differ from the plain build's; the --madvise builds' debug files name
# the stub (elfpmd.* symbols in .symtab), and with -m so does the shipped
# file's MiniDebugInfo, from which gdb names elfpmd.stub_main without the
# debuginfo package, and with it (info symbol, the offset right: the
# stub's section has the same index in both files).  Skipped without find-debuginfo or eu-unstrip.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need
$debuginfo || skip_all "$debuginfo_why"
have eu-unstrip || skip_all "eu-unstrip not found (elfutils)"

# debug_of NAME FILE: the debug file FILE's build-id names in build NAME.
debug_of () {
	local id
	id=$(rpm_build_id "$RPM_BUILT/x-$1/$2")
	echo "$RPM_BUILT/xd-$1/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
}
# stub_syms FILE: how many elfpmd.* symbols FILE's .symtab has.
stub_syms () { readelf -sW "$1" 2>/dev/null | awk '$8 ~ /^elfpmd\./' | wc -l; }

for f in usr/bin/elfpmd-pkgtest usr/lib64/libelfpmd-pkgtest.so.1; do
	plain=$(rpm_build_id "$RPM_BUILT/x-optout/$f")
	for name in hook optout madvise minidebug; do
		id=$(rpm_build_id "$RPM_BUILT/x-$name/$f")
		if [ "$name" != optout ]; then
			check "$name: $f: build-id $id, not the plain build's ($plain)" \
				test -n "$id" -a "$id" != "$plain"
		fi
		check "$name: $f: eu-unstrip joins it with its debug file" \
			eu-unstrip -o "$work/joined" "$RPM_BUILT/x-$name/$f" "$(debug_of "$name" "$f")"
		case $name in
		madvise | minidebug)
			n=$(stub_syms "$(debug_of "$name" "$f")")
			check "$name: $f: the debug file's .symtab names the stub ($n elfpmd.* symbols)" test "$n" -gt 0 ;;
		esac
	done
	if objcopy --dump-section .gnu_debugdata="$work/dd.xz" "$RPM_BUILT/x-minidebug/$f" "$work/dd.o" 2>/dev/null; then
		xz -dc "$work/dd.xz" > "$work/dd.elf"
		n=$(stub_syms "$work/dd.elf")
		check "minidebug: $f: find-debuginfo -m's MiniDebugInfo names the stub ($n elfpmd.* symbols)" test "$n" -gt 0
	else
		fail "minidebug: $f: no .gnu_debugdata"
	fi
done

# gdb names the stub's entry from the shipped program alone (-m's
# MiniDebugInfo) and with the debuginfo package
if have gdb; then
	f=usr/bin/elfpmd-pkgtest
	a=$(readelf -sW "$(debug_of minidebug "$f")" | awk '$8 == "elfpmd.stub_main" { print "0x" $2 }')
	for dir in /nonexistent "$RPM_BUILT/xd-minidebug/usr/lib/debug"; do
		got=$(gdb -batch -nx -ex "set debug-file-directory $dir" -ex "file $RPM_BUILT/x-minidebug/$f" \
			-ex "info symbol $a" 2>&1 | tail -1)
		check "minidebug: gdb, debug-file-directory ${dir#"$RPM_BUILT/"}: $got" \
			grep -q '^elfpmd\.stub_main in section \.elfpmd\.stub' <<<"$got"
	done
else
	skip "gdb not found: no gdb check"
fi
finish
