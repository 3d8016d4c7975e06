#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-deb-contents.sh: the packages of run-packages-deb-build.sh
# hold what they should: elfpmd the tool, the bash completion, the systemd
# unit, the copyright file and NEWS, every man page of the source tree's
# man/ and the two that lead to elfpmd-manifest(1) (symbolic links), the
# trigger, postinst and postrm; dh-elfpmd dh_elfpmd, its two other names,
# the dh add-on, the cdbs rule file and dh_elfpmd(1), and it provides
# dh-sequence-elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-buildpackage dh dpkg
scratch_dir
packages_need deb

dpkg-deb -c "$deb" | awk '{ print $6 }' > "$work/elfpmd.list"
dpkg-deb -c "$dhdeb" | awk '{ print $6 }' > "$work/dh-elfpmd.list"
for f in ./usr/bin/elfpmd ./usr/share/bash-completion/completions/elfpmd \
	./usr/lib/systemd/system/elfpmd-prime.service ./usr/share/doc/elfpmd/copyright ./usr/share/doc/elfpmd/NEWS.gz; do
	check "elfpmd.deb holds $f" grep -qx "$f" "$work/elfpmd.list"
done
pages=$(man_pages)
[ "$(printf '%s\n' "$pages" | grep -c .)" -ge 8 ] || fail "the man pages of $srcdir/man: $pages"
for f in $pages; do
	check "elfpmd.deb holds $f" grep -qx "$f" "$work/elfpmd.list"
done
dpkg-deb -c "$deb" | awk '$6 ~ /elfpmd-(reapply|revert)\.1\.gz$/ { print $6, $8 }' > "$work/elfpmd.solinks"
check "elfpmd.deb: elfpmd-reapply.1.gz and elfpmd-revert.1.gz lead to elfpmd-manifest.1.gz ($(tr '\n' ' ' < "$work/elfpmd.solinks"))" \
	test "$(grep -c ' elfpmd-manifest\.1\.gz$' "$work/elfpmd.solinks")" -eq 2
dpkg-deb --ctrl-tarfile "$deb" | tar -t > "$work/elfpmd.ctrl"
check "elfpmd.deb has the trigger, postinst and postrm" \
	sh -c "grep -qx './triggers' '$work/elfpmd.ctrl' && grep -qx './postinst' '$work/elfpmd.ctrl' && grep -qx './postrm' '$work/elfpmd.ctrl'"
for f in ./usr/bin/dh_elfpmd ./usr/bin/dh_elfpmd_buildtree ./usr/bin/dh_elfpmd_buildtree_restore \
	./usr/share/perl5/Debian/Debhelper/Sequence/elfpmd.pm ./usr/share/cdbs/1/rules/elfpmd.mk \
	./usr/share/man/man1/dh_elfpmd.1.gz; do
	check "dh-elfpmd.deb holds $f" grep -qx "$f" "$work/dh-elfpmd.list"
done
check "dh-elfpmd provides dh-sequence-elfpmd" sh -c "dpkg-deb -f '$dhdeb' Provides | grep -qw dh-sequence-elfpmd"
finish
