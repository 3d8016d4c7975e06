#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-release.sh: the versions a release names agree (doc/release.md): the
# built elfpmd's --version (configure.ac's AC_INIT), the top section of
# NEWS, the top entry of debian/changelog (with a Debian revision), the
# rpm spec made from dist/rpm/elfpmd.spec.in; and NEWS's top section has
# a date.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

top=$TESTS_SRCDIR/..
version=$("$ELFPMD" --version | sed -n '1s/^elfpmd //p')
[ -n "$version" ] || hard_error "elfpmd --version names no version"
news=$(sed -n 's/^\* Noteworthy changes in release \([^ ]*\) (\([0-9-]*\)).*/\1 \2/p' "$top/NEWS" | head -1)
check "NEWS's top section is release $version, with a date (${news#* })" \
	sh -c "[ '${news% *}' = '$version' ] && date -d '${news#* }' > /dev/null 2>&1"
deb=$(sed -n '1s/^elfpmd (\([^)]*\)).*/\1/p' "$top/debian/changelog")
check "debian/changelog's top entry is $version with a Debian revision ($deb)" \
	sh -c "case '$deb' in '$version'-[0-9]*) exit 0 ;; *) exit 1 ;; esac"
spec=$TESTS_BUILDDIR/../elfpmd.spec
if [ -f "$spec" ] || make -s -C "$TESTS_BUILDDIR/.." elfpmd.spec > /dev/null 2>&1; then
	check "elfpmd.spec's Version is $version" grep -Eq "^Version:[[:space:]]+$version\$" "$spec"
else
	skip "elfpmd.spec could not be made"
fi
finish
