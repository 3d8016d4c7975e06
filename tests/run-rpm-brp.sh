#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-brp.sh: dist/rpm/brp-elfpmd alone, with a stand-in elfpmd that
# logs its directory and arguments and exits with $FAKE_STATUS: no
# RPM_BUILD_ROOT, or /, runs nothing; the command line (-r, -j from
# RPM_BUILD_NCPUS, else 1, -q, the options, --, the paths relative to the
# buildroot, those that exist, in the buildroot's directory); the default
# places without paths; no path in the buildroot runs nothing; a path
# with '..' is an error; elfpmd's exit status is the script's; a missing
# elfpmd fails it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir

cat > "$work/fake-elfpmd" <<'EOS'
#!/bin/sh
{ pwd; for a do printf '[%s]' "$a"; done; echo; } >> "$FAKE_LOG"
exit "${FAKE_STATUS:-0}"
EOS
chmod +x "$work/fake-elfpmd"
fakeroot=$work/fake-root
mkdir -p "$fakeroot/usr/bin" "$fakeroot/usr/lib64" "$fakeroot/opt/app" "$fakeroot/usr/share"
ln -s usr/lib64 "$fakeroot/lib64"
export FAKE_LOG=$work/fake.log
# brp ENV... -- ARG...: run brp-elfpmd with the stand-in and ENV...; its
# status in $status, its output in $work/brp.out, the log in $log.
brp () {
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	: > "$FAKE_LOG"
	env ELFPMD="$work/fake-elfpmd" RPM_BUILD_NCPUS= "${env[@]}" sh "$rpm_dist/brp-elfpmd" "$@" > "$work/brp.out" 2>&1
	status=$?
	log=$(cat "$FAKE_LOG")
}
brp RPM_BUILD_ROOT= --
check "RPM_BUILD_ROOT empty: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT=/ --
check "RPM_BUILD_ROOT /: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT="$fakeroot" RPM_BUILD_NCPUS=3 -- --madvise -p -- /usr/bin /usr/sbin usr/lib64/ /lib64 //opt
check "the command line: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][3][-q][--madvise][-p][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" --
check "no arguments: the default places that exist, -j 1: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- --rule=kernel --
check "options and -- without paths: the default places: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--rule=kernel][--][usr/bin][usr/lib64][opt]"
# find-debuginfo ran first (a spec that redefines %__debug_install_post):
# the buildroot holds debug files by build-id, which must keep naming
# the files
mkdir -p "$fakeroot/usr/lib/debug/.build-id/ab"
brp RPM_BUILD_ROOT="$fakeroot" -- --rule=kernel --
check "debug files already split off: --build-id=keep first: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=keep][--rule=kernel][--][usr/bin][usr/lib][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- --build-id=derive --
check "... unless --build-id is in the options: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=derive][--][usr/bin][usr/lib][usr/lib64][opt]"
rm -r "$fakeroot/usr/lib"
brp RPM_BUILD_ROOT="$fakeroot" -- --build-id=derive --
check "--build-id in the options: no --build-id=keep: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=derive][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- -- /srv /usr/share/none
check "no path in the buildroot: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT="$fakeroot" -- -- /usr/bin /usr/../../etc
check "a path with '..': exit 1, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 1.
brp RPM_BUILD_ROOT="$fakeroot" FAKE_STATUS=3 -- -- /usr/bin
check "elfpmd's exit status is the script's (3)" test "$status" = 3
brp RPM_BUILD_ROOT="$fakeroot" ELFPMD="$work/no-such-elfpmd" -- -- /usr/bin
check "elfpmd missing: exit 1 ($(cat "$work/brp.out"))" test "$status" = 1
finish
