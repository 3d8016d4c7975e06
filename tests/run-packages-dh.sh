#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-dh.sh: the installed dh-elfpmd and elfpmd of
# run-packages-deb-build.sh, and nothing from the source tree, build the
# test package (tests/pkg/upstream) with the add-on by its Build-Depends on
# dh-sequence-elfpmd: installed into a root of their own (dpkg --root),
# found there through PATH and PERL5LIB, they ran (dh_elfpmd and
# dh_elfpmd_buildtree in the build log), elfpmd gave no warning (the build
# tree's stash is known to it), and the package's program and library are
# aligned.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-buildpackage dh dpkg
. "$TESTS_SRCDIR/deb-lib.sh"
scratch_dir
packages_need deb
root=$work/deb-root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" \
	&& : > "$root/var/lib/dpkg/status" && : > "$root/var/lib/dpkg/available" \
	|| hard_error "cannot make $root"
clean_env dpkg --root="$root" --force-script-chrootless --force-depends -i "$deb" "$dhdeb" > "$work/install.log" 2>&1 \
	|| hard_error "dpkg --root -i: $(tail -3 "$work/install.log")"

src=$work/pkg/$pkg-1.0
mkdir -p "$src/debian/source" && cp -p "$TESTS_SRCDIR"/pkg/upstream/* "$src/" && rm "$src/CMakeLists.txt" \
	|| hard_error "cannot copy the test package"
echo '3.0 (native)' > "$src/debian/source/format"
deb_control "$src" "debhelper-compat (= 13), dh-sequence-elfpmd" run-packages-dh.sh
cat > "$src/debian/rules" <<'EOS'
#!/usr/bin/make -f
%:
	dh $@

override_dh_auto_install:
	$(MAKE) install DESTDIR=$(CURDIR)/debian/elfpmd-pkgtest prefix=/usr
EOS
chmod 755 "$src/debian/rules"
(cd "$src" && clean_env PATH="$root/usr/bin:$PATH" PERL5LIB="$root/usr/share/perl5" \
	dpkg-buildpackage -b -uc -us -d) > "$work/pkg-build.log" 2>&1
st=$?
if [ $st -eq 0 ]; then
	pass "dh --with elfpmd (the add-on by dh-sequence-elfpmd, from the installed packages): the test package built"
else
	fail "the test package's build failed: $(tail -5 "$work/pkg-build.log")"
fi
check "its build ran the installed dh_elfpmd and dh_elfpmd_buildtree" \
	sh -c "grep -q '^   dh_elfpmd_buildtree' '$work/pkg-build.log' && grep -q '^   dh_elfpmd\$' '$work/pkg-build.log'"
check "its build log has no warning from elfpmd (the build tree's stash is known to it)" \
	sh -c "! grep -q '^elfpmd: .*warning' '$work/pkg-build.log'"
mkdir -p "$work/pkg/x"
pkgdeb=$(ls "$work"/pkg/${pkg}_*.deb 2>/dev/null | head -1)
if [ -n "$pkgdeb" ] && dpkg-deb -x "$pkgdeb" "$work/pkg/x"; then
	for f in usr/bin/$pkg usr/lib/lib$pkg.so.1; do
		check "the test package's $f is aligned ($(describe_text "$work/pkg/x/$f"))" text_aligned "$work/pkg/x/$f"
	done
else
	fail "no test package to unpack in $work/pkg"
fi
finish
