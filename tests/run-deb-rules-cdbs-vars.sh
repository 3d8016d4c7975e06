#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-cdbs-vars.sh: the variables of the cdbs rule file
# dist/cdbs/elfpmd.mk, by make -n on the doc's cdbs debian/rules (nothing
# built; deb-lib.sh, deb_rules_source cdbs): binary-elfpmd/PACKAGE runs
# dh_elfpmd -pPACKAGE with DEB_DH_ELFPMD_ARGS_ALL, DEB_DH_ELFPMD_ARGS (or
# DEB_DH_ELFPMD_ARGS_PACKAGE instead) and an -X per word of
# DEB_ELFPMD_EXCLUDE_ALL, DEB_ELFPMD_EXCLUDE_PACKAGE (or DEB_ELFPMD_EXCLUDE);
# CDBS_BUILD_DEPENDS names dh-elfpmd; and binary-strip/PACKAGE runs
# dh_install, dh_elfpmd, dh_strip in that order, which elfpmd.mk relies on.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
scratch_dir
deb_tools
deb_rules_prepare
deb_rules_source cdbs || hard_error "cannot create the source package in $src"
(cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")"

# cdbs_dry VAR=VALUE...: the dh_elfpmd command line that make -n prints for
# binary-elfpmd/$pkg in $src with the variables.
cdbs_dry () {
	(cd "$src" && pkg_env make -n -f debian/rules "binary-elfpmd/$pkg" "$@" 2>&1) | grep '^dh_elfpmd' | tail -1 | sed 's/ *$//'
}
check "cdbs: binary-elfpmd/$pkg runs dh_elfpmd -p$pkg" test "$(cdbs_dry)" = "dh_elfpmd -p$pkg"
check "cdbs: DEB_DH_ELFPMD_ARGS_ALL and DEB_ELFPMD_EXCLUDE" \
	test "$(cdbs_dry 'DEB_DH_ELFPMD_ARGS_ALL=-- --madvise' 'DEB_ELFPMD_EXCLUDE=foo bar')" = "dh_elfpmd -p$pkg -X foo -X bar -- --madvise"
check "cdbs: DEB_DH_ELFPMD_ARGS_$pkg replaces DEB_DH_ELFPMD_ARGS, after DEB_DH_ELFPMD_ARGS_ALL" \
	test "$(cdbs_dry 'DEB_DH_ELFPMD_ARGS=--no-prime-list' DEB_DH_ELFPMD_ARGS_ALL=-v "DEB_DH_ELFPMD_ARGS_$pkg=-- --rule=kernel")" = "dh_elfpmd -p$pkg -v -- --rule=kernel"
check "cdbs: DEB_ELFPMD_EXCLUDE_ALL and DEB_ELFPMD_EXCLUDE_$pkg" \
	test "$(cdbs_dry DEB_ELFPMD_EXCLUDE_ALL=a "DEB_ELFPMD_EXCLUDE_$pkg=b" DEB_ELFPMD_EXCLUDE=c)" = "dh_elfpmd -p$pkg -X a -X b"
bd=$(cd "$src" && pkg_env make -s -f debian/rules --eval 'print-bd: ; @echo "$(CDBS_BUILD_DEPENDS)"' print-bd 2>/dev/null)
check "cdbs: CDBS_BUILD_DEPENDS names dh-elfpmd ($bd)" grep -q 'dh-elfpmd' <<< "$bd"
(cd "$src" && pkg_env make -n -f debian/rules "binary-strip/$pkg") > "$work/cdbs-strip.dry" 2>&1
order=$(grep -oE '^(dh_install|dh_elfpmd|dh_strip) ' "$work/cdbs-strip.dry" | tr -d ' ' | tr '\n' ' ')
check "cdbs: make -n binary-strip/$pkg: dh_install, dh_elfpmd, dh_strip in that order ($order)" \
	test "$order" = "dh_install dh_elfpmd dh_strip "
finish
