#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-nostub.sh: the distribution's switch with elfpmd=madvise,strict on
# an architecture elfpmd has no startup stub for: dpkg-buildpackage -a i386
# cross-builds the test package (tests/pkg/upstream, DH_EXTRA_ADDONS=elfpmd,
# the cross compiler gcc-i686-linux-gnu and libc6-dev-i386-cross); the build
# passes, strict as it is, and its log has the one line "dh_elfpmd: no
# startup stub for i386: 2 files aligned without it" and no warning per
# file; the .deb's program and library are i386 and aligned.  The package's
# own tests run (and dh_elfpmd_buildtree before them) where this machine
# runs i386 programs, else the build is nocheck, as a cross build is.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "a Debian package cross-built for i386"
require_elfpmd

have dpkg-buildpackage || skip_all "dpkg-buildpackage not found (Debian: package dpkg-dev)"
have dh || skip_all "dh not found (Debian: package debhelper)"
have i686-linux-gnu-gcc || skip_all "no i386 cross compiler i686-linux-gnu-gcc (Debian: gcc-i686-linux-gnu, libc6-dev-i386-cross)"

scratch_dir
require_phdr_dump "$work/tools"
# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools
pkg=elfpmd-pkgtest
src=$work/build/$pkg-1.0
deb_switch_source "$src" run-deb-nostub.sh || hard_error "cannot create the source package in $src"

# Tests where i386 programs run here (the cross C library's loader).
echo 'int main (void) { return 0; }' > "$work/run.c"
opts="parallel=2 elfpmd=madvise,strict"
if i686-linux-gnu-gcc -o "$work/run32" "$work/run.c" 2> "$work/run.cc" && "$work/run32" 2> /dev/null; then
	opts="$opts crossbuildcanrunhostbinaries"
else
	opts="$opts nocheck"
	note "i386 programs do not run here: the package's tests are left out (nocheck)"
fi

log=$work/build.log
start=$(date +%s)
if ! deb_switch_build "$src" "$log" "$opts" -a i386; then
	fail "dpkg-buildpackage -a i386 with DEB_BUILD_OPTIONS=\"$opts\" failed"
	tail -15 "$log" | sed 's/^/      /'
	finish
fi
pass "dpkg-buildpackage -a i386, DEB_BUILD_OPTIONS=\"$opts\": built, strict passed ($(( $(date +%s) - start )) s)"
line="dh_elfpmd: no startup stub for i386: 2 files aligned without it"
check "the log says it once: $line" test "$(grep -c -x "$line" "$log")" -eq 1
check "no other line of the log says 'no startup stub' ($(grep -c 'no startup stub' "$log") in all)" \
	test "$(grep -c 'no startup stub' "$log")" -eq 1
check "no warning from dh_elfpmd, dh_elfpmd_buildtree or elfpmd" \
	eval '! grep -E "^(dh_elfpmd[a-z_]*|elfpmd): .*warning" "$log"'
grep -q '^   dh_auto_test' "$log" && ! grep -q nocheck <<< "$opts" \
	&& note "the package's tests ran the rewritten files: $(grep -c '^   dh_elfpmd_buildtree$' "$log") dh_elfpmd_buildtree run"

deb=$(ls "$work/build/${pkg}_1.0_i386.deb" 2>/dev/null)
if [ -n "$deb" ] && dpkg-deb -x "$deb" "$work/x"; then
	for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
		m=$(od -An -tu2 -j18 -N2 "$work/x/$f" | tr -d ' ')
		holds "$f: i386 (e_machine $m), aligned ($(describe_text "$work/x/$f")), no stub" \
			'[ "$m" = 3 ] && text_aligned "$work/x/$f" \
				&& "$ELFPMD" -n --json --madvise "$work/x/$f" | grep -q "\"present\":false"'
	done
else
	fail "no ${pkg}_1.0_i386.deb: $(ls "$work/build")"
fi

finish
