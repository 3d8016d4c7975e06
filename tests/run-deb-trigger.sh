#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-trigger.sh: install-time priming with dpkg --root into a scratch
# root (an empty dpkg database there, maintainer scripts run without chroot
# and DPKG_ROOT set: nothing of this machine's is touched; deb-lib.sh,
# deb_root).  A package of dist/debian/elfpmd.triggers and elfpmd.postinst
# is installed (dpkg-deb -I shows its triggers file; dpkg registers the
# file trigger; its configure sets the stamp and primes nothing), then the
# aligned package of run-deb-build.sh: dpkg runs the trigger, the postinst
# runs elfpmd prime -q -T - once, from the root, on the prime list's paths,
# and a second prime finds every chunk in PMD-sized folios already (where
# file THP works here; skipped with elfpmd's reason otherwise).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
scratch_dir
deb_need make
# The page-cache lock once the packages are built (a build needs none, and
# would hold it long).
page_cache_lock
deb_want_prime
deb_root

check "dpkg-deb -I: the hook package's triggers file is dist/debian/elfpmd.triggers" \
	cmp -s <(dpkg-deb -I "$work/hook.deb" triggers) "$debian_dist/elfpmd.triggers"
prime_log_reset
root_dpkg -i "$work/hook.deb" > "$work/dpkg-hook.out" 2>&1
check "dpkg --root -i the hook package: exit 0 ($(tail -1 "$work/dpkg-hook.out"))" test $? -eq 0
check "dpkg registered the file trigger" grep -qx '/usr/lib/elfpmd/prime.d elfpmd-hooktest/noawait' "$root/var/lib/dpkg/triggers/File"
check "configure: the stamp is set, nothing primed" test -e "$root/var/lib/elfpmd/primed" -a ! -e "$work/prime.args"
aligned_deb=$(ls "$DEB_BUILT/aligned/${pkg}_"*.deb | head -1)
root_dpkg -i "$aligned_deb" > "$work/dpkg-pkg.out" 2>&1
rc=$?
check "dpkg --root -i the aligned package: exit 0, the trigger ran ($(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-pkg.out"))" \
	test $rc -eq 0 -a "$(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-pkg.out")" = 1
check "the trigger ran elfpmd prime -q -T - once, in the root: $(tr '\n' ' ' < "$work/prime.args" 2>/dev/null)" \
	test "$(cat "$work/prime.args" 2>/dev/null)" = "prime -q -T -
$root"
check "... on the list's paths, relative to the root" \
	test "$(cat "$work/prime.names" 2>/dev/null)" = "$(sed 's|^/||' "$work/want-prime.list")"
while read -r f; do
	"$ELFPMD" prime --json "$root$f" > "$work/after.json" 2>&1
	want=$(ideal_chunks "$root$f")
	if grep -q '"reason":null' "$work/after.json"; then
		check "after the trigger, $f: all $want chunks in PMD-sized folios already ($(cat "$work/after.json"))" \
			grep -q "\"chunks\":$want,\"pmd_folios\":$want,\"already\":$want,\"primed\":0," "$work/after.json"
	else
		skip "$f: elfpmd prime cannot prime here: $(cat "$work/after.json")"
	fi
done < "$work/want-prime.list"
finish
