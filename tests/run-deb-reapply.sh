#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-reapply.sh: the trigger does not reapply under DPKG_ROOT.  In a
# scratch root where dpkg --root installed the hook package and the
# aligned package of run-deb-build.sh (deb-lib.sh, deb_root_installed), a
# file of the package is converted by hand (--madvise) with the root's
# manifest, and a file outside the root (this machine's, as an image's
# manifest may name) is listed in it too; dpkg installs the package again
# (its own bytes over the first) and the second is changed as an upgrade
# would change it.  The trigger must not reapply, since the manifest's
# paths would be resolved on this system: it says so on standard error,
# runs no elfpmd reapply, and neither file is converted, also when the
# postinst is run by hand.  The sanity arm: elfpmd reapply on that
# manifest, as the postinst ran it before, converts the file outside the
# root.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
scratch_dir
deb_root_installed
deb_want_prime

f=$(head -1 "$work/want-prime.list")
manifest=$root/var/lib/elfpmd/manifest
host_file=$work/host-prog
cp "$root$f" "$host_file"
"$ELFPMD" -q --madvise --manifest="$manifest" "$root$f" "$host_file"
check "converted by hand with the root's manifest: the stub in $f and in $host_file" \
	eval 'has_stub "$root$f" && has_stub "$host_file"'
prime_log_reset
root_dpkg -i "$aligned_deb" > "$work/dpkg-again.out" 2>&1
rc=$?
cmp -s "$host_file" "$root$f" || cp "$root$f" "$host_file"
check "dpkg --root -i the package again: exit 0, the trigger ran" \
	test $rc -eq 0 -a "$(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-again.out")" = 1
check "under DPKG_ROOT the trigger says it does not reapply ($(grep -m1 'not reapplying' "$work/dpkg-again.out"))" \
	grep -q "elfpmd: not reapplying $manifest: DPKG_ROOT is set" "$work/dpkg-again.out"
check "and runs no elfpmd reapply ($(tr '\n' ' ' < "$work/prime.args" 2>/dev/null))" \
	eval '! grep -q "^reapply" "$work/prime.args" 2>/dev/null'
check "after the upgrade, $f is the package's again (no stub)" eval '! has_stub "$root$f"'
cp "$root$f" "$host_file"
run_postinst triggered /usr/bin > "$work/reapply-by-hand.out" 2>&1
rc=$?
check "the postinst by hand under DPKG_ROOT: exit 0, $host_file untouched" \
	eval '[ $rc -eq 0 ] && cmp -s "$host_file" "$root$f"'
"$ELFPMD" reapply -q --manifest="$manifest" < /dev/null > "$work/reapply-sanity.out" 2>&1
check "sanity: elfpmd reapply on the root's manifest converts $host_file (outside the root)" has_stub "$host_file"
finish
