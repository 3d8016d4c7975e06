#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-sequence.sh: the elfpmd sequence add-on (dist/debhelper/elfpmd.pm,
# found through PERL5LIB from the source tree; deb-lib.sh, deb_tools) puts
# dh_elfpmd between dh_dwz and dh_strip (dh_makeshlibs after dh_strip, as
# before), and dh_elfpmd_buildtree between dh_auto_build and dh_auto_test
# (dh binary --no-act on the test package's source, deb_source); also when
# turned on through DH_EXTRA_ADDONS; --without elfpmd, or no add-on, runs
# no dh_elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_tools
deb_source make || hard_error "cannot create the source package in $src"
(cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")"

(cd "$src" && pkg_env dh binary --no-act --with elfpmd) > "$work/seq.out" 2>&1
check "dh binary --with elfpmd: dh_elfpmd right after dh_dwz" test "$(next_after dh_dwz "$work/seq.out")" = dh_elfpmd
check "dh binary --with elfpmd: dh_strip right after dh_elfpmd" test "$(next_after dh_elfpmd "$work/seq.out")" = dh_strip
check "dh binary --with elfpmd: dh_makeshlibs right after dh_strip" test "$(next_after dh_strip "$work/seq.out")" = dh_makeshlibs
check "dh binary --with elfpmd: dh_elfpmd_buildtree right after dh_auto_build, before dh_auto_test" \
	test "$(next_after dh_auto_build "$work/seq.out") $(next_after dh_elfpmd_buildtree "$work/seq.out")" = "dh_elfpmd_buildtree dh_auto_test"
(cd "$src" && pkg_env DH_EXTRA_ADDONS=elfpmd dh binary --no-act) > "$work/seq-extra.out" 2>&1
check "DH_EXTRA_ADDONS=elfpmd: dh_elfpmd right before dh_strip, dh_elfpmd_buildtree before dh_auto_test" \
	test "$(next_after dh_elfpmd "$work/seq-extra.out") $(next_after dh_elfpmd_buildtree "$work/seq-extra.out")" = "dh_strip dh_auto_test"
(cd "$src" && pkg_env DH_EXTRA_ADDONS=elfpmd dh binary --no-act --without elfpmd) > "$work/seq-without.out" 2>&1
(cd "$src" && pkg_env dh binary --no-act) > "$work/seq-plain.out" 2>&1
if grep -q '^ *dh_strip' "$work/seq-without.out" && ! grep -q dh_elfpmd "$work/seq-without.out" \
	&& grep -q '^ *dh_strip' "$work/seq-plain.out" && ! grep -q dh_elfpmd "$work/seq-plain.out"; then
	pass "without the add-on, or with --without elfpmd, no dh_elfpmd"
else
	fail "dh_elfpmd in a sequence without the add-on"
	cat "$work/seq-without.out" "$work/seq-plain.out" | grep -E 'strip|elfpmd|rror' | sed 's/^/      /'
fi
finish
