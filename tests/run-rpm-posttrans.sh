#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-posttrans.sh: %elfpmd_prime in the %posttrans of the package
# built with the hook (run-rpm-build.sh): rpm -qp --scripts shows it runs
# elfpmd prime -q -T - over the package's two ELF files; run by hand with
# its paths moved into a fresh extraction of the package, it exits 0,
# prints nothing, and a second prime finds every chunk in PMD-sized folios
# already (skipped with elfpmd's reason where file THP does not work
# here), where another fresh extraction, the control, has none before a
# prime.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need
# The page-cache lock once the packages are built (a build needs none, and
# would hold it long).
page_cache_lock
prime_bin

rpm -qp --scripts "$hook_rpm" > "$work/scripts" 2>&1
sed -n '/^posttrans scriptlet/,$p' "$work/scripts" | sed 1d > "$work/posttrans.sh"
check "rpm -qp --scripts: %posttrans runs elfpmd prime -q -T - over the two paths ($(tr '\n' ' ' < "$work/posttrans.sh"))" \
	grep -q 'for elfpmd_f in /usr/bin/elfpmd-pkgtest /usr/lib64/libelfpmd-pkgtest.so.1; do .* | elfpmd prime -q -T - || :; fi' "$work/posttrans.sh"
mkdir -p "$work/x-post" "$work/x-ctl" \
	&& (cd "$work/x-post" && rpm2cpio "$hook_rpm" | cpio -idm --quiet) \
	&& (cd "$work/x-ctl" && rpm2cpio "$hook_rpm" | cpio -idm --quiet) || hard_error "cannot extract $hook_rpm"
# The control: a fresh extraction is not primed yet, so that "already"
# after a hook means the hook primed it.
"$ELFPMD" prime --json "$work/x-ctl/usr/bin/elfpmd-pkgtest" > "$work/ctl.json" 2>&1
if grep -q '"reason":null' "$work/ctl.json"; then
	check "control: a fresh extraction's chunks are not in PMD-sized folios before a prime ($(cat "$work/ctl.json"))" \
		grep -q '"already":0,' "$work/ctl.json"
fi
prime_log_reset
sed "s| /usr/| $work/x-post/usr/|g" "$work/posttrans.sh" > "$work/posttrans-moved.sh"
env PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" sh "$work/posttrans-moved.sh" > "$work/posttrans.out" 2>&1
check "%posttrans, run by hand: exit 0, nothing printed ($(cat "$work/posttrans.out"))" \
	test "$?.$(wc -c < "$work/posttrans.out")" = 0.0
primed_already "$work/x-post/usr/bin/elfpmd-pkgtest" "$work/x-post/usr/lib64/libelfpmd-pkgtest.so.1"
finish
