#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages.sh: the packages of elfpmd itself, as a release builds them
# (doc/release.md), from make dist's tarball:
#   1. configure in a scratch build directory and make dist;
#   2. Debian: dpkg-buildpackage -b in the unpacked tarball (debian/ is in
#      it) makes elfpmd and dh-elfpmd; lintian finds no error in them; they
#      hold what they should (the tool, every man page of man/ and the two
#      that lead to elfpmd-manifest(1), the trigger and postinst, the bash
#      completion; dh_elfpmd, its two other names, the add-on, the cdbs rule
#      file); dpkg installs both into a root of its own (dpkg --root, the
#      maintainer scripts run chrootless) and removes them again;
#   3. the installed dh-elfpmd and elfpmd (nothing from the source tree)
#      build the test package (tests/pkg/upstream) with dh --with elfpmd:
#      its program and library come out aligned, and the build log has no
#      warning from elfpmd (the build tree's stash, issue 36);
#   4. RPM: rpmbuild -tb on the tarball makes elfpmd's rpm (elfpmd.spec at
#      its top); it holds the tool, the man pages, brp-elfpmd, macros.elfpmd
#      and the file trigger; rpm installs it into a root of its own (rpm --root,
#      --noscripts: the root has no shell), and the installed brp-elfpmd,
#      macros.elfpmd and elfpmd build the test package's rpm aligned.
# Slow (about 2 minutes); the packages are built with nocheck and
# --without check: make check runs the same tests.  Installing into roots
# of their own leaves this machine's dpkg and rpm databases alone, and
# make check's other tests, which run beside this one, see no installed
# elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "packages of elfpmd built from make dist's tarball"
require_elfpmd
cpu_lock shared
require_phdr_dump "$TESTS_BUILDDIR/packages-work/tools"

work=$TESTS_BUILDDIR/packages-work
srcdir=$(cd "$TESTS_SRCDIR/.." && pwd)
for tool in dpkg-buildpackage dh lintian dpkg rpmbuild rpm; do
	have "$tool" || skip_all "$tool not found (tools/setup.sh check installs it)"
done
[ "$(id -u)" -eq 0 ] || skip_all "dpkg --root and rpm --root install into a root of their own: needs root"
rm -rf "$work/build" "$work/src" "$work/deb-root" "$work/rpm-root" "$work/pkg" "$work/rpmtop"
mkdir -p "$work/build" "$work/src" || hard_error "cannot create $work"
pkg=elfpmd-pkgtest
. "$TESTS_SRCDIR/deb-lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"

# clean_env COMMAND...: COMMAND without make check's settings that would
# change a package build.
clean_env () {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS \
		-u DEB_BUILD_OPTIONS -u DEB_BUILD_PROFILES -u DH_EXTRA_ADDONS -u DH_OPTIONS \
		-u DH_VERBOSE -u DH_QUIET -u DH_INTERNAL_OPTIONS -u ELFPMD -u PERL5LIB "$@"
}

# 1. The tarball.
(cd "$work/build" && clean_env "$srcdir/configure" -q > configure.log 2>&1 && clean_env make -s dist > dist.log 2>&1) \
	|| hard_error "configure && make dist failed: $(tail -5 "$work/build/dist.log" "$work/build/configure.log" 2>/dev/null)"
tarball=$(ls "$work"/build/elfpmd-*.tar.gz)
version=$(basename "$tarball" .tar.gz)
version=${version#elfpmd-}
pass "make dist: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"
check "the tarball holds debian/control, elfpmd.spec at its top and NEWS" \
	sh -c "tar tzf '$tarball' | grep -qx 'elfpmd-$version/debian/control' && tar tzf '$tarball' | grep -qx 'elfpmd-$version/elfpmd.spec' && tar tzf '$tarball' | grep -qx 'elfpmd-$version/NEWS'"
tar -C "$work/src" -xzf "$tarball" || hard_error "cannot unpack $tarball"
tree=$work/src/elfpmd-$version
deb_version=$(cd "$tree" && dpkg-parsechangelog -S Version)
check "debian/changelog's version $deb_version is the tarball's $version with a Debian revision" \
	test "${deb_version%-*}" = "$version"

# 2. The Debian packages.
start=$(date +%s)
if (cd "$tree" && clean_env DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -uc -us) > "$work/deb-build.log" 2>&1; then
	pass "dpkg-buildpackage -b: $(cd "$work/src" && ls ./*.deb | tr '\n' ' ')($(($(date +%s) - start)) s)"
else
	fail "dpkg-buildpackage -b failed: $(tail -5 "$work/deb-build.log")"
	finish
fi
deb=$work/src/elfpmd_${deb_version}_$(dpkg --print-architecture).deb
dhdeb=$work/src/dh-elfpmd_${deb_version}_all.deb
clean_env lintian --tag-display-limit 0 "$deb" "$dhdeb" > "$work/lintian.log" 2>&1
errors=$(grep -c '^E: ' "$work/lintian.log")
holds "lintian on elfpmd and dh-elfpmd: 0 errors ($(grep -c '^W: ' "$work/lintian.log") warnings: $(grep '^W: ' "$work/lintian.log" | awk '{ print $3 }' | sort -u | tr '\n' ' '))" \
	'[ "$errors" -eq 0 ]' || sed 's/^/      /' "$work/lintian.log"
dpkg-deb -c "$deb" | awk '{ print $6 }' > "$work/elfpmd.list"
dpkg-deb -c "$dhdeb" | awk '{ print $6 }' > "$work/dh-elfpmd.list"
for f in ./usr/bin/elfpmd ./usr/share/bash-completion/completions/elfpmd \
	./usr/lib/systemd/system/elfpmd-prime.service ./usr/share/doc/elfpmd/copyright ./usr/share/doc/elfpmd/NEWS.gz; do
	check "elfpmd.deb holds $f" grep -qx "$f" "$work/elfpmd.list"
done
# Every man page of the source tree's man/ (elfpmd(1), one per verb,
# elfpmd-stub(7)), and elfpmd-reapply(1) and elfpmd-revert(1), which are
# elfpmd-manifest(1): .so pages that dh_installman makes symbolic links.
pages=$(cd "$srcdir/man" && ls elfpmd*.[1-8] | sed -E 's|^(.*)\.([1-8])$|./usr/share/man/man\2/\1.\2.gz|')
[ "$(printf '%s\n' "$pages" | grep -c .)" -ge 6 ] || fail "the man pages of $srcdir/man: $pages"
for f in $pages ./usr/share/man/man1/elfpmd-reapply.1.gz ./usr/share/man/man1/elfpmd-revert.1.gz; do
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

# Into a root of its own: dpkg runs the maintainer scripts chrootless, with
# DPKG_ROOT set (the postinst is made for that: it primes under the root).
root=$work/deb-root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" \
	&& : > "$root/var/lib/dpkg/status" && : > "$root/var/lib/dpkg/available" \
	|| hard_error "cannot make $root"
dpkg_root () { clean_env dpkg --root="$root" --force-script-chrootless --force-depends "$@"; }
dpkg_root -i "$deb" "$dhdeb" > "$work/install.log" 2>&1
st=$?
holds "dpkg --root installs both: exit 0, both 'ii'" \
	'[ $st -eq 0 ] && [ "$(dpkg_root -l elfpmd dh-elfpmd 2>/dev/null | grep -c "^ii ")" -eq 2 ]' \
	|| sed 's/^/      /' "$work/install.log"
check "installed: $root/usr/bin/elfpmd --version says $version" \
	sh -c "'$root/usr/bin/elfpmd' --version | head -1 | grep -qx 'elfpmd $version'"
check "installed: the postinst set its stamp under the root" test -e "$root/var/lib/elfpmd/primed"

# 3. The test package, with the installed dh-elfpmd and elfpmd only.
src=$work/pkg/$pkg-1.0
mkdir -p "$src/debian/source" && cp -p "$TESTS_SRCDIR"/pkg/upstream/* "$src/" && rm "$src/CMakeLists.txt" \
	|| hard_error "cannot copy the test package"
echo '3.0 (native)' > "$src/debian/source/format"
deb_control "$src" "debhelper-compat (= 13), dh-sequence-elfpmd" run-packages.sh
cat > "$src/debian/rules" <<'EOF'
#!/usr/bin/make -f
%:
	dh $@

override_dh_auto_install:
	$(MAKE) install DESTDIR=$(CURDIR)/debian/elfpmd-pkgtest prefix=/usr
EOF
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

dpkg_root --purge dh-elfpmd elfpmd > "$work/purge.log" 2>&1
check "dpkg --root --purge: both gone, the postrm removed /var/lib/elfpmd" \
	sh -c "[ ! -e '$root/usr/bin/elfpmd' ] && [ ! -e '$root/var/lib/elfpmd' ]"

# 4. The RPM package.
rpmtop=$work/rpmtop
start=$(date +%s)
if clean_env rpmbuild -tb --nodeps --without check --define "_topdir $rpmtop" --define "_tmppath $work" \
	"$tarball" > "$work/rpm-build.log" 2>&1; then
	pass "rpmbuild -tb $(basename "$tarball"): $(cd "$rpmtop/RPMS" && ls ./*/*.rpm | tr '\n' ' ')($(($(date +%s) - start)) s)"
else
	fail "rpmbuild -tb failed: $(tail -5 "$work/rpm-build.log")"
	finish
fi
rpmfile=$(ls "$rpmtop"/RPMS/*/elfpmd-"$version"-*.rpm | head -1)
rpm -qpl "$rpmfile" > "$work/rpm.list" 2>/dev/null
macrodir=$(rpm --eval '%{_rpmmacrodir}') configdir=$(rpm --eval '%{_rpmconfigdir}')
for f in /usr/bin/elfpmd "$configdir/brp-elfpmd" "$macrodir/macros.elfpmd" \
	/usr/share/bash-completion/completions/elfpmd /usr/lib/systemd/system/elfpmd-prime.service; do
	check "the rpm holds $f" grep -qx "$f" "$work/rpm.list"
done
mandir=$(rpm --eval '%{_mandir}')
for f in $(printf '%s\n' $pages ./usr/share/man/man1/elfpmd-reapply.1.gz ./usr/share/man/man1/elfpmd-revert.1.gz \
		| sed "s|^\./usr/share/man/|$mandir/|; s|\.gz\$||"); do
	check "the rpm holds $f (compressed or not)" grep -qE "^$f(\.gz|\.bz2|\.xz|\.zst)?\$" "$work/rpm.list"
done
check "the rpm has the file trigger over /usr/bin" \
	sh -c "rpm -qp --filetriggers '$rpmfile' 2>/dev/null | grep -q '^transfiletriggerin.*/usr/bin' && rpm -qp --filetriggers '$rpmfile' 2>/dev/null | grep -q 'elfpmd prime -q -T -'"
rroot=$work/rpm-root
mkdir -p "$rroot"
clean_env rpm --root "$rroot" --nodeps --noscripts -i "$rpmfile" > "$work/rpm-install.log" 2>&1
st=$?
holds "rpm --root installs it: exit 0, rpm -q finds it" \
	'[ $st -eq 0 ] && rpm --root "$rroot" -q elfpmd > /dev/null 2>&1' || sed 's/^/      /' "$work/rpm-install.log"

# The test package's rpm, hooked with what the rpm installed.
mkdir -p "$work/pkgrpm"
# (--load reads macros.elfpmd after the platform's macros: the hook is on,
# as with the /etc/rpm form.)
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

[ "$n_fail" -eq 0 ] && rm -rf "$work"
finish
