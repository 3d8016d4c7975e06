#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-aligned.sh: every ELF file of the package built with the hook
# (run-rpm-build.sh) has its text PT_LOAD aligned to 2 MiB, as
# tests/phdr-dump reads it (p_align 0x200000, p_offset congruent with
# p_vaddr), with at least one whole 2 MiB chunk of text PMD-mappable; in the
# opt-out build none is aligned, nothing is PMD-mappable (which also shows
# that the checks can fail); eu-elflint --gnu-ld says of the hooked build's
# what it says of the opt-out build's.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
rpm_need

elfs=$(rpm_elfs)
check "the ELF files in the package: $elfs" \
	test "$elfs" = "usr/bin/elfpmd-pkgtest usr/bin/elfpmd-pkgtest-link usr/lib64/libelfpmd-pkgtest.so.1 "
have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
for f in $elfs; do
	h=$RPM_BUILT/x-hook/$f
	o=$RPM_BUILT/x-optout/$f
	got=$(text_loads "$h" | tr '\n' ' ')
	check "$f: text PT_LOAD p_align 0x200000, p_offset = p_vaddr mod 2 MiB ($got)" test "$got" = "0x200000 yes "
	check "$f: at least one whole 2 MiB chunk of text PMD-mappable" test "$(ideal_chunks "$h")" -ge 1
	got=$(text_loads "$o" | tr '\n' ' ')
	case $got in
	*0x200000*) fail "$f: aligned in the opt-out build ($got)" ;;
	"") fail "$f: no text PT_LOAD in the opt-out build" ;;
	*) pass "$f: not aligned in the opt-out build ($got)" ;;
	esac
	check "$f: nothing PMD-mappable in the opt-out build" test "$(ideal_chunks "$o")" -eq 0
	if $have_elflint; then
		# No message, or those of the unhooked build and no more.
		if [ "$(elflint_messages "$h")" = "$(elflint_messages "$o")" ]; then
			pass "$f: eu-elflint --gnu-ld: $(elflint_count "$h") messages, as the unhooked build's"
		else
			fail "$f: eu-elflint --gnu-ld complains more than about the unhooked build's"
			diff <(elflint_messages "$o") <(elflint_messages "$h") | head -10 | sed 's/^/      /'
		fi
	fi
done
finish
