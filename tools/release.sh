#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Make a release tarball (doc/release.md): check that the tree is a clean
# git checkout whose versions agree (configure.ac's AC_INIT, the top of
# NEWS, the top of debian/changelog), run make distcheck in a fresh build
# directory, _release/, and write the tarball's SHA-256 beside it.
# distcheck runs the quick suite (make check-quick's tests) on the tarball:
# CI ran the whole one on the commit.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fail () { echo "release: $*" >&2; exit 1; }

version=$(sed -n 's/^AC_INIT(\[elfpmd\], \[\([^]]*\)\].*/\1/p' configure.ac)
news=$(sed -n 's/^\* Noteworthy changes in release \([^ ]*\) .*/\1/p' NEWS | head -1)
deb=$(sed -n '1s/^elfpmd (\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$version" ] || fail "no version in configure.ac's AC_INIT"
[ "$news" = "$version" ] || fail "NEWS starts with release '$news', configure.ac says $version"
[ "${deb%-*}" = "$version" ] || fail "debian/changelog starts with $deb, configure.ac says $version"
[ -z "$(git status --porcelain --untracked-files=no)" ] || fail "the tree has changes not committed"
commit=$(git rev-parse HEAD)

rm -rf _release
mkdir _release
cd _release
autoreconf -fi "$top" > /dev/null 2>&1 || (cd "$top" && autoreconf -fi)
"$top/configure" -q
quick=$(make -s -f Makefile -f - print-quick <<'MK'
print-quick:
	@echo $(QUICK_TESTS)
MK
)
echo "== make distcheck (elfpmd $version, commit $commit; tests: $quick)"
make -s distcheck TESTS="$quick" MALFORMED_PERCENT=10 > distcheck.log 2>&1 || { tail -50 distcheck.log; fail "make distcheck failed (_release/distcheck.log)"; }
sha256sum "elfpmd-$version.tar.gz" > "elfpmd-$version.tar.gz.sha256"
echo "== _release/elfpmd-$version.tar.gz"
cat "elfpmd-$version.tar.gz.sha256"
echo "== tag the commit it was made from:"
echo "   git tag -s v$version -m \"elfpmd $version\" $commit"
