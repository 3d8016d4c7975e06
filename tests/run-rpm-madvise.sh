#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-madvise.sh: %_elfpmd_options in a build: with --madvise
# (run-rpm-build.sh's madvise build) each ELF file of the package has its
# text aligned and the startup stub in an executable PT_LOAD of its own
# after it (the build-id note may move into it), eu-elflint --gnu-ld says
# what it says of the opt-out build's, and the program prints what the
# opt-out build's prints.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
rpm_need

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
for f in $(rpm_elfs); do
	got=$(text_loads "$RPM_BUILT/x-madvise/$f" | tr '\n' ' ')
	case $got in
	"0x200000 yes "*" "*" ") pass "$f: text aligned, the stub's executable PT_LOAD after it ($got)" ;;
	*) fail "$f: with --madvise: executable PT_LOADs $got" ;;
	esac
	if $have_elflint; then
		check "$f: with --madvise: eu-elflint --gnu-ld as for the unhooked build" \
			test "$(elflint_messages "$RPM_BUILT/x-madvise/$f")" = "$(elflint_messages "$RPM_BUILT/x-optout/$f")"
	fi
done
check "with --madvise: the program prints what the unhooked build's does" \
	test "$(run_pkg madvise elfpmd-pkgtest)" = "$(run_pkg optout elfpmd-pkgtest)"
finish
