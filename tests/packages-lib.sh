# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# packages-lib.sh: what the tests of elfpmd's own packages
# (tests/run-packages-*.sh) share, sourced after lib.sh: the packages as a
# release builds them (doc/release.md), from make dist's tarball, made once
# and inspected by many scripts (packages_built), each in
# $TESTS_BUILDDIR/packages-built/PART:
#   dist  configure in a scratch build directory and make dist: build/ (the
#         tarball elfpmd-VERSION.tar.gz), src/elfpmd-VERSION (unpacked),
#         version, deb_version (debian/changelog's), kib (its size);
#   deb   dpkg-buildpackage -b with nocheck in the unpacked tarball (debian/
#         is in it): src/*.deb (elfpmd, dh-elfpmd, elfpmd-dbgsym), build.log,
#         seconds;
#   rpm   rpmbuild -tb --without check on the tarball (elfpmd.spec at its
#         top): top/RPMS/*/*.rpm, build.log, seconds.
# The packages leave out their own tests: make check runs the same ones.

# packages_require TOOL...: the slow suites, elfpmd, TOOL... and root
# (the packages are installed with dpkg --root and rpm --root into roots of
# their own, which leaves this machine's databases alone, and make check's
# other tests, running beside, see no installed elfpmd); the shared CPU
# lock, taken by the tests that load both CPUs for long.
packages_require () {
	local tool
	require_slow "packages of elfpmd built from make dist's tarball"
	require_elfpmd
	for tool in "$@"; do
		have "$tool" || skip_all "$tool not found (tools/setup.sh check installs it)"
	done
	[ "$(id -u)" -eq 0 ] || skip_all "dpkg --root and rpm --root install into a root of their own: needs root"
	cpu_lock shared
	require_phdr_dump "$TESTS_BUILDDIR/packages-built/tools"
}

srcdir=$(cd "$TESTS_SRCDIR/.." && pwd)
pkg=elfpmd-pkgtest

# clean_env COMMAND...: COMMAND without make check's settings that would
# change a package build.
clean_env () {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS \
		-u DEB_BUILD_OPTIONS -u DEB_BUILD_PROFILES -u DH_EXTRA_ADDONS -u DH_OPTIONS \
		-u DH_VERBOSE -u DH_QUIET -u DH_INTERNAL_OPTIONS -u ELFPMD -u PERL5LIB "$@"
}

# source_key: a key of the source tree's contents: the files git knows
# (tracked, or new and not ignored), or, outside a git checkout, every file
# but build trees, test work directories and build products.
source_key () {
	local files
	if files=$(git -C "$srcdir" ls-files --cached --others --exclude-standard 2>/dev/null) && [ -n "$files" ]; then
		(cd "$srcdir" && printf '%s\n' "$files" | tr '\n' '\0' | xargs -0 sha256sum -- 2>/dev/null)
	else
		(cd "$srcdir" && find . \( -name .git -o -name '_build*' -o -name autom4te.cache -o -name '*-work' \
			-o -name '*-built' -o -name '*-build' \) -prune -o -type f ! -name '*.log' ! -name '*.trs' ! -name '*.o' \
			-print0 | sort -z | xargs -0 sha256sum --)
	fi | sha256sum | cut -d' ' -f1
}

# packages_build PART: make PART (the head of this file) in $work; reads
# DIST, PART dist's directory.
packages_build () {
	local start tarball
	case $1 in
	dist)
		mkdir -p "$work/build" "$work/src"
		(cd "$work/build" && clean_env "$srcdir/configure" -q > configure.log 2>&1 && clean_env make -s dist > dist.log 2>&1) \
			|| { echo "configure && make dist failed: $(tail -5 "$work/build/dist.log" "$work/build/configure.log" 2>/dev/null)"; return 1; }
		tarball=$(ls "$work"/build/elfpmd-*.tar.gz) || return 1
		basename "$tarball" .tar.gz | sed 's/^elfpmd-//' > "$work/version"
		du -k "$tarball" | cut -f1 > "$work/kib"
		tar -C "$work/src" -xzf "$tarball" || return 1
		(cd "$work/src/elfpmd-$(cat "$work/version")" && dpkg-parsechangelog -S Version) > "$work/deb_version" ;;
	deb)
		mkdir -p "$work/src" && tar -C "$work/src" -xzf "$DIST"/build/elfpmd-*.tar.gz || return 1
		start=$(date +%s)
		(cd "$work/src/elfpmd-$(cat "$DIST/version")" && clean_env DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -uc -us) \
			> "$work/build.log" 2>&1 || return 1
		echo $(($(date +%s) - start)) > "$work/seconds" ;;
	rpm)
		start=$(date +%s)
		clean_env rpmbuild -tb --nodeps --without check --define "_topdir $work/top" --define "_tmppath $work" \
			"$DIST"/build/elfpmd-*.tar.gz > "$work/build.log" 2>&1 || return 1
		echo $(($(date +%s) - start)) > "$work/seconds" ;;
	esac
}

# packages_built PART: PART made (once, see built_once; dist first, for
# deb and rpm) in $TESTS_BUILDDIR/packages-built/PART, made again when the
# source tree or the packaging tools changed; DIST, and PART's directory in
# BUILT; tarball, version and deb_version.  Fails when it could not be
# made (run-packages-dist.sh, -deb-build.sh or -rpm-build.sh says why).
packages_built () {
	local top=$TESTS_BUILDDIR/packages-built key
	key=$( { source_key; dpkg-query -W -f '${Package} ${Version}\n' dpkg-dev debhelper rpm autoconf automake gcc 2>/dev/null; } \
		| content_key "$TESTS_SRCDIR/lib.sh" "$TESTS_SRCDIR/packages-lib.sh")
	DIST=$top/dist
	built_once "$DIST" "$key" eval 'work=$DIST; packages_build dist' || return 1
	tarball=$(ls "$DIST"/build/elfpmd-*.tar.gz)
	version=$(cat "$DIST/version")
	deb_version=$(cat "$DIST/deb_version")
	BUILT=$DIST
	[ "$1" = dist ] && return 0
	BUILT=$top/$1
	built_once "$BUILT" "$key" eval 'work=$BUILT; packages_build '"$1"
}

# packages_need PART: packages_built PART or a hard error; with deb, the
# two packages in deb and dhdeb; with rpm, elfpmd's rpm in rpmfile.
packages_need () {
	packages_built "$1" || hard_error "making $1 failed (see $BUILT.out and run-packages-$1*.sh)"
	deb=$TESTS_BUILDDIR/packages-built/deb/src/elfpmd_${deb_version}_$(dpkg --print-architecture).deb
	dhdeb=$TESTS_BUILDDIR/packages-built/deb/src/dh-elfpmd_${deb_version}_all.deb
	rpmfile=$(ls "$TESTS_BUILDDIR/packages-built/rpm/top/RPMS"/*/elfpmd-"$version"-*.rpm 2>/dev/null | head -1)
}

# man_pages: every man page of the source tree's man/ (elfpmd(1), one per
# verb, elfpmd-stub(7)) as the .deb names it, and elfpmd-reapply(1) and
# elfpmd-revert(1), which are elfpmd-manifest(1): .so pages that
# dh_installman makes symbolic links.
man_pages () {
	(cd "$srcdir/man" && ls elfpmd*.[1-8]) | sed -E 's|^(.*)\.([1-8])$|./usr/share/man/man\2/\1.\2.gz|'
	printf '%s\n' ./usr/share/man/man1/elfpmd-reapply.1.gz ./usr/share/man/man1/elfpmd-revert.1.gz
}
