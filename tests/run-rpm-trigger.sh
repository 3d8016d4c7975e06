#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-trigger.sh: install-time priming by the file trigger of
# dist/rpm/elfpmd-triggers.inc, in a package of its own: rpm -qp
# --filetriggers shows a transfiletriggerin on %_elfpmd_paths'
# directories, whose script runs elfpmd prime -q -T -; that script, run by
# hand as rpm runs it (standard input: the installed paths, here relative
# to a fresh extraction of the package built with the hook,
# run-rpm-build.sh, the working directory), gives them all to elfpmd
# prime, prints nothing, exits 0, and a second prime finds every chunk of
# the ELF files in PMD-sized folios already (skipped with elfpmd's reason
# where file THP does not work here); without elfpmd, exit 0.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_need
# The page-cache lock once the packages are built (a build needs none, and
# would hold it long).
page_cache_lock
mkdir -p "$work/tmp"
rpm_macro_paths "$work"
prime_bin
x=$work/x-hook
mkdir -p "$x" && (cd "$x" && rpm2cpio "$hook_rpm" | cpio -idm --quiet) || hard_error "cannot extract $hook_rpm"

{
	printf '%s\n' 'Name: elfpmd-hooktest' 'Version: 1.0' 'Release: 1' 'Summary: the file trigger' \
		'License: MIT' 'BuildArch: noarch' '%description' 'tests/run-rpm-trigger.sh' '%files'
	cat "$rpm_dist/elfpmd-triggers.inc"
} > "$work/trigger.spec"
rpmbuild -bb --nodeps --define "_topdir $work/top" --define "_tmppath $work/tmp" --macros "$base_path" \
	"$work/trigger.spec" > "$work/trigger.log" 2>&1 || {
	fail "rpmbuild of a package with dist/rpm/elfpmd-triggers.inc failed"
	tail -10 "$work/trigger.log" | sed 's/^/      /'
	finish
}
trigger_rpm=$(echo "$work"/top/RPMS/noarch/elfpmd-hooktest-1.0-1.noarch.rpm)
rpm -qp --filetriggers "$trigger_rpm" > "$work/filetriggers" 2>&1
check "rpm -qp --filetriggers: transfiletriggerin on %_elfpmd_paths' directories ($(head -1 "$work/filetriggers"))" \
	test "$(head -1 "$work/filetriggers")" = "transfiletriggerin scriptlet (using /bin/sh) -- /opt, /usr/bin, /usr/games, /usr/lib, /usr/lib64, /usr/libexec, /usr/sbin"
rpm -qp --qf '[%{TRANSFILETRIGGERSCRIPTS}\n]' "$trigger_rpm" > "$work/trigger.sh"
check "the trigger's script runs elfpmd prime -q -T -" grep -q '^	elfpmd prime -q -T - || :$' "$work/trigger.sh"
prime_log_reset
rpm -qlp "$hook_rpm" | sed 's|^/||' > "$work/installed"
(cd "$x" && env PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" \
	sh "$work/trigger.sh" < "$work/installed") > "$work/trigger.out" 2>&1
rc=$?
check "the trigger's script, run on the package's paths: exit 0, nothing printed ($(cat "$work/trigger.out"))" \
	test "$rc.$(wc -c < "$work/trigger.out")" = 0.0
check "... it gave elfpmd prime all $(wc -l < "$work/installed") installed paths" \
	cmp -s "$work/installed" "$work/prime.names"
elf_paths=()
for f in $(rpm_elfs); do elf_paths+=("$x/$f"); done
primed_already "${elf_paths[@]}"
# Without elfpmd, the transaction goes on.
(cd "$x" && env PATH=/usr/bin:/bin sh "$work/trigger.sh" < "$work/installed") > "$work/trigger-none.out" 2>&1
check "the trigger's script without elfpmd in PATH: exit 0, nothing printed" \
	test "$?.$(wc -c < "$work/trigger-none.out")" = 0.0
finish
