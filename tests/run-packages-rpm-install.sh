#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-rpm-install.sh: rpm installs elfpmd's rpm of
# run-packages-rpm-build.sh into a root of its own (rpm --root, --noscripts:
# the root has no shell), and the installed brp-elfpmd, macros.elfpmd
# (read by --load after the platform's macros: the hook is on, as with the
# /etc/rpm form) and elfpmd build the test package's rpm (rpm-lib.sh,
# write_spec) with its program and library aligned.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require rpmbuild rpm rpm2cpio cpio
. "$TESTS_SRCDIR/deb-lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
scratch_dir
packages_need rpm
macrodir=$(rpm --eval '%{_rpmmacrodir}') configdir=$(rpm --eval '%{_rpmconfigdir}')

rroot=$work/rpm-root
mkdir -p "$rroot"
clean_env rpm --root "$rroot" --nodeps --noscripts -i "$rpmfile" > "$work/rpm-install.log" 2>&1
st=$?
holds "rpm --root installs it: exit 0, rpm -q finds it" \
	'[ $st -eq 0 ] && rpm --root "$rroot" -q elfpmd > /dev/null 2>&1' || sed 's/^/      /' "$work/rpm-install.log"
mkdir -p "$work/pkgrpm"
caps=false debuginfo=false
write_spec "$work/pkgrpm/test.spec" false
clean_env ELFPMD="$rroot/usr/bin/elfpmd" rpmbuild -bb --nodeps --define "_topdir $work/pkgrpm/top" \
	--define "_sourcedir $TESTS_SRCDIR/pkg/upstream" --define "_tmppath $work" \
	--load "$rroot$macrodir/macros.elfpmd" --define "__elfpmd_brp_script $rroot$configdir/brp-elfpmd" \
	"$work/pkgrpm/test.spec" > "$work/pkgrpm.log" 2>&1
st=$?
check "rpmbuild of the test package with the installed macros.elfpmd and brp-elfpmd: exit 0" test $st -eq 0
check "its build ran the installed brp-elfpmd" grep -q "$rroot$configdir/brp-elfpmd" "$work/pkgrpm.log"
pkgrpm=$(ls "$work"/pkgrpm/top/RPMS/*/elfpmd-pkgtest-1.0-1.*.rpm 2>/dev/null | head -1)
mkdir -p "$work/pkgrpm/x"
if [ -n "$pkgrpm" ] && (cd "$work/pkgrpm/x" && rpm2cpio "$pkgrpm" | cpio -idm --quiet); then
	libdir=$(rpm --eval '%{_libdir}')
	for f in usr/bin/$pkg "${libdir#/}/lib$pkg.so.1"; do
		check "the test rpm's /$f is aligned ($(describe_text "$work/pkgrpm/x/$f"))" text_aligned "$work/pkgrpm/x/$f"
	done
else
	fail "no test rpm to unpack"
fi
finish
