# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# deb-lib.sh: what the Debian packaging tests (tests/run-deb-*.sh; also
# run-packages-dh.sh and run-packages-rpm-install.sh) share, sourced after
# lib.sh: the in-tree debhelper integration where a package build finds it,
# a logging elfpmd, the environment of a package build, the test package
# (tests/pkg/upstream with a debian/ directory), the package builds made
# once and inspected by many scripts (deb_built), dh_elfpmd by hand in a
# copy of a build's tree, a scratch root for dpkg --root, and readings of
# the packages' files (text alignment by phdr-dump, build-id, a run).
#
# The shared builds, in $TESTS_BUILDDIR/deb-built/SET (deb_built SET):
#   make   tests/pkg/upstream with debian/rules "dh $@ --with elfpmd" (and
#          a set-user-ID mode by override_dh_fixperms), built twice in the
#          same directory: aligned (DEB_BUILD_OPTIONS=parallel=2) and
#          noelfpmd (parallel=2 noelfpmd);
#   cmake  the same sources built by CMake out of the tree, tested by ctest,
#          debian/rules a plain "dh $@ --buildsystem=cmake", the add-on
#          turned on as a distribution does (DH_EXTRA_ADDONS=elfpmd, options
#          in DEB_BUILD_OPTIONS): switch (parallel=2 elfpmd=madvise: the
#          startup stub) and switch-noelfpmd (parallel=2 noelfpmd);
#   rules  the debian/rules of doc/integration.md that do not run dh (cdbs,
#          cdbs through a diverting debhelper.mk, debhelper by hand, no
#          debhelper): cdbs, cdbs-noelfpmd, divert, debhelper,
#          debhelper-noelfpmd, plain, plain-noelfpmd.
# Each build NAME of SET leaves $DEB_BUILT/NAME.log (dpkg-buildpackage's
# output, DH_VERBOSE=1) and $DEB_BUILT/NAME/: status ("ok", or what went
# wrong), built (the PASS line's text), the .debs (and .buildinfo), x/ (the
# package unpacked), dbg/ (its -dbgsym package), control/, contents
# (dpkg-deb -c), build-ids (the -dbgsym package's Build-Ids), elfpmd.args
# and elfpmd.list (what the logging elfpmd was given), tested/ (the files
# the package's own tests ran), old.before/old.after and tracked.before/
# tracked.after (signatures of the source's prebuilt ELF files), tree/ (the
# source tree as the build left it).
#
# A new check is a script of its own: deb_require, then deb_need make (or
# deb_need_switch, for the build with the startup stub, or deb_need rules)
# to look at a build, deb_hand_tree to run dh_elfpmd by hand in a copy of
# the noelfpmd build's tree, or deb_root_installed to install the aligned
# package into a scratch root; its work in scratch_dir's $work, never in
# the shared builds.

pkg=elfpmd-pkgtest
upstream=$TESTS_SRCDIR/pkg/upstream
# What dh_elfpmd gives elfpmd before -j and its own options.
elfpmd_args="--json --no-sync --files-from=- -0"

# deb_require WHAT: the requirements of every Debian packaging test (WHAT
# says what it builds, for the SKIP line of a run without the slow suites).
deb_require () {
	require_slow "$1"
	require_elfpmd
	have dpkg-buildpackage || skip_all "dpkg-buildpackage not found (Debian: package dpkg-dev)"
	have dpkg-checkbuilddeps || skip_all "dpkg-checkbuilddeps not found (Debian: package dpkg-dev)"
	have dpkg-deb || skip_all "dpkg-deb not found (Debian: package dpkg)"
	have dh || skip_all "dh not found (Debian: package debhelper)"
	have make || skip_all "make not found"
	have cc || skip_all "no C compiler (cc)"
	require_phdr_dump "$TESTS_BUILDDIR/deb-built/tools"
}

# deb_tools: copies of dist/debhelper/dh_elfpmd (and its two other names)
# in $work/bin and of the add-on elfpmd.pm under $work/perl5, and
# $work/bin/elfpmd-logged, which logs its arguments (one line per run, in
# $work/elfpmd.args) and the names it reads ($work/elfpmd.list), then runs
# the real elfpmd on them.
deb_tools () {
	local dist=$TESTS_SRCDIR/../dist/debhelper
	mkdir -p "$work/bin" "$work/perl5/Debian/Debhelper/Sequence" \
		&& cp "$dist/dh_elfpmd" "$work/bin/dh_elfpmd" && chmod 755 "$work/bin/dh_elfpmd" \
		&& ln -s dh_elfpmd "$work/bin/dh_elfpmd_buildtree" \
		&& ln -s dh_elfpmd "$work/bin/dh_elfpmd_buildtree_restore" \
		&& cp "$dist/elfpmd.pm" "$work/perl5/Debian/Debhelper/Sequence/elfpmd.pm" \
		|| hard_error "cannot copy $dist/dh_elfpmd and elfpmd.pm"
	cat > "$work/bin/elfpmd-logged" <<'EOS'
#!/bin/sh
# Log the arguments (one line per run) and the names read from standard
# input, then run the real elfpmd on them.
printf '%s\n' "$*" >> "$ELFPMD_LOG.args"
tee -a "$ELFPMD_LOG.list" | "$ELFPMD_REAL" "$@"
EOS
	chmod 755 "$work/bin/elfpmd-logged"
}

# pkg_env [VAR=VALUE...] COMMAND...: COMMAND with the add-on found, the
# logging elfpmd, and none of the caller's settings that would change a
# package build (make check's MAKEFLAGS, compiler flags, dh variables).
pkg_env () {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS \
		-u DEB_BUILD_OPTIONS -u DEB_BUILD_PROFILES -u DH_EXTRA_ADDONS -u DH_ALWAYS_EXCLUDE \
		-u DH_OPTIONS -u DH_VERBOSE -u DH_QUIET -u DH_INTERNAL_OPTIONS \
		PATH="$work/bin:$PATH" PERL5LIB="$work/perl5${PERL5LIB:+:$PERL5LIB}" \
		ELFPMD="$work/bin/elfpmd-logged" ELFPMD_REAL="$ELFPMD" ELFPMD_LOG="$work/elfpmd" "$@"
}

# reset_log, logged_args, logged_names: what the logging elfpmd was given
# since the last reset_log (arguments one run a line; names one a line, as
# given).
reset_log () { rm -f "$work/elfpmd.args" "$work/elfpmd.list"; }
logged_args () { cat "$work/elfpmd.args" 2>/dev/null; }
logged_names () { [ -f "$work/elfpmd.list" ] && tr '\0' '\n' < "$work/elfpmd.list"; }

# next_after COMMAND FILE: the dh command that follows COMMAND in the
# command lines of dh output FILE.
next_after () { awk -v c="$1" '$1 ~ /^dh_/ { if (prev == c) { print $1; exit } prev = $1 }' "$2"; }

# deb_control SRC BUILD-DEPENDS TEST: debian/control and debian/changelog
# of the test package $pkg (tests/pkg/upstream) in SRC, built by TEST.
deb_control () {
	cat > "$1/debian/control" <<EOS
Source: $pkg
Section: misc
Priority: optional
Maintainer: elfpmd tests <elfpmd-tests@localhost>
Build-Depends: $2
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: $pkg
Architecture: any
Depends: \${shlibs:Depends}, \${misc:Depends}
Description: elfpmd packaging test
 A program and a library with 4.5 MiB of text each.
EOS
	cat > "$1/debian/changelog" <<EOS
$pkg (1.0) unstable; urgency=medium

  * Test package of elfpmd's tests/$3.

 -- elfpmd tests <elfpmd-tests@localhost>  Mon, 01 Jan 2024 00:00:00 +0000
EOS
}

# ---------------------------------------------------------------------------
# The source packages.

# deb_source [make|cmake]: the source package in $work/build/$pkg-1.0, into
# src: with make the Makefile build (in the source tree, dh ... --with
# elfpmd), with cmake the CMake build (out of the tree, in obj-TRIPLET,
# tested by ctest) that turns the add-on on only through DH_EXTRA_ADDONS,
# as a distribution does.  The source has prebuilt ELF files of its own,
# which dh_elfpmd_buildtree must leave alone: testdata/old.so, as old as a
# tarball's file, and testdata/tracked.so, new but tracked by git.
deb_source () {
	src=$work/build/$pkg-1.0
	rm -rf "$work/build"
	mkdir -p "$src/debian/source" "$src/testdata" && cp "$upstream"/* "$src/" && chmod -R u+w "$src" || return 1
	[ "${1:-make}" = cmake ] || rm "$src/CMakeLists.txt"
	cc -shared -DNAME=prebuilt_text -o "$src/testdata/old.so" "$upstream/bigtext.S" \
		&& touch -d '2020-01-01 00:00:00' "$src/testdata/old.so" || return 1
	if have git; then
		cp "$src/testdata/old.so" "$src/testdata/tracked.so" \
			&& (cd "$src" && git init -q && git add testdata/tracked.so) || return 1
	fi
	echo '3.0 (native)' > "$src/debian/source/format"
	deb_control "$src" "debhelper-compat (= 13)" deb-lib.sh
	if [ "${1:-make}" = cmake ]; then
		printf '%s\n' '#!/usr/bin/make -f' '%:' '	dh $@ --buildsystem=cmake' > "$src/debian/rules"
		chmod 755 "$src/debian/rules"
		return
	fi
	# An unusual mode (set-user-ID, not executable by others) that both the
	# rewrite and the hard link must keep.
	cat > "$src/debian/rules" <<'EOF'
#!/usr/bin/make -f
%:
	dh $@ --with elfpmd

override_dh_auto_install:
	$(MAKE) install DESTDIR=$(CURDIR)/debian/elfpmd-pkgtest prefix=/usr

override_dh_fixperms:
	dh_fixperms
	chmod 4754 debian/elfpmd-pkgtest/usr/bin/elfpmd-pkgtest
EOF
	chmod 755 "$src/debian/rules"
}

# The debian/rules of doc/integration.md that do not run dh, in the blocks
# after "<!-- debian/rules: cdbs -->" (and debhelper, plain) and the
# diverting debhelper.mk after "<!-- cdbs: debhelper.mk -->".
cdbs_rules=/usr/share/cdbs/1/rules
doc=$TESTS_SRCDIR/../doc/integration.md

# doc_block MARKER: the fenced block after the line "<!-- MARKER -->" of
# doc/integration.md, without the fences.
doc_block () {
	awk -v m="<!-- $1 -->" '
		$0 == m { f = 1; next }
		f == 1 && /^```/ { f = 2; next }
		f == 2 && /^```/ { exit }
		f == 2' "$doc"
}

# deb_rules_prepare: the doc's blocks in $work/doc-{cdbs,debhelper,plain}.rules
# and $work/doc-divert.mk, a copy of dist/cdbs/elfpmd.mk in $work/cdbs, and
# the doc's diverting debhelper.mk in $work/divert, pointed at cdbs's own
# file and that copy.
deb_rules_prepare () {
	doc_block "debian/rules: cdbs" > "$work/doc-cdbs.rules"
	doc_block "debian/rules: debhelper" > "$work/doc-debhelper.rules"
	doc_block "debian/rules: plain" > "$work/doc-plain.rules"
	doc_block "cdbs: debhelper.mk" > "$work/doc-divert.mk"
	mkdir -p "$work/cdbs" "$work/divert" && cp "$TESTS_SRCDIR/../dist/cdbs/elfpmd.mk" "$work/cdbs/elfpmd.mk" \
		|| hard_error "cannot copy dist/cdbs/elfpmd.mk"
	sed -e "s|^include $cdbs_rules/debhelper.mk.distrib\$|include $cdbs_rules/debhelper.mk|" \
		-e "s|^include $cdbs_rules/elfpmd.mk\$|include $work/cdbs/elfpmd.mk|" \
		"$work/doc-divert.mk" > "$work/divert/debhelper.mk"
}

# deb_rules_source VARIANT: the upstream tree plus debian/ for VARIANT
# (cdbs, divert, debhelper, plain) in $work/build/$pkg-1.0, into src; the
# debian/rules are the doc's (deb_rules_prepare made them) but for the
# lines said below.
deb_rules_source () {
	local v=$1 bdep
	src=$work/build/$pkg-1.0
	rm -rf "$work/build"
	mkdir -p "$src/debian/source" && cp "$upstream"/* "$src/" && chmod -R u+w "$src" || return 1
	echo '3.0 (native)' > "$src/debian/source/format"
	case $v in
	# cdbs 0.4.166 (Debian 12) runs dh_systemd_enable, an error from compat 11 on.
	cdbs|divert) bdep="cdbs, debhelper (>= 10)"; echo 10 > "$src/debian/compat" ;;
	debhelper) bdep="debhelper-compat (= 13)" ;;
	plain) bdep="binutils" ;;
	esac
	deb_control "$src" "$bdep" deb-lib.sh
	case $v in
	cdbs)
		# The doc's rules with the copy of elfpmd.mk, and a hook of the
		# package that must run before dh_elfpmd.
		sed "s|^include $cdbs_rules/elfpmd.mk\$|include $work/cdbs/elfpmd.mk|" "$work/doc-cdbs.rules" > "$src/debian/rules"
		printf '\nbinary-post-install/%s::\n\t@echo "post-install hook of %s"\n' "$pkg" "$pkg" >> "$src/debian/rules" ;;
	divert)
		# The doc's rules without elfpmd.mk, debhelper.mk taken from the
		# diverting file's directory.
		sed -e "/^include ${cdbs_rules//\//\\/}\/elfpmd.mk\$/d" \
			-e "s|^include $cdbs_rules/debhelper.mk\$|include $work/divert/debhelper.mk|" \
			"$work/doc-cdbs.rules" > "$src/debian/rules"
		printf '\nbinary-post-install/%s::\n\t@echo "post-install hook of %s"\n' "$pkg" "$pkg" >> "$src/debian/rules" ;;
	*)
		sed "s/^PACKAGE = foo\$/PACKAGE = $pkg/" "$work/doc-$v.rules" > "$src/debian/rules" ;;
	esac
	chmod 755 "$src/debian/rules"
}

# ---------------------------------------------------------------------------
# The shared builds.

# deb_build NAME DEB_BUILD_OPTIONS VARIANT [VAR=VALUE...]: build the source
# package of VARIANT (make, cmake: deb_source; cdbs, divert, debhelper,
# plain: deb_rules_source) with VAR=VALUE... into $work/NAME and
# $work/NAME.log, as the head of this file says.  Fails with the reason in
# $work/NAME/status.
deb_build () {
	local name=$1 out=$work/$1 opts=$2 v=$3 deb dbg start t
	shift 3
	mkdir -p "$out"
	echo "cannot create the source package" > "$out/status"
	case $v in
	make|cmake) deb_source "$v" ;;
	*) deb_rules_source "$v" ;;
	esac || return 1
	for t in old tracked; do file_signature "$src/testdata/$t.so" > "$out/$t.before" 2>/dev/null; done
	reset_log
	start=$(date +%s)
	if ! (cd "$src" && pkg_env DEB_BUILD_OPTIONS="$opts" DH_VERBOSE=1 "$@" dpkg-buildpackage -b -uc -us) > "$out.log" 2>&1; then
		echo "dpkg-buildpackage failed (DEB_BUILD_OPTIONS=$opts)" > "$out/status"
		return 1
	fi
	echo "dpkg-buildpackage -b with DEB_BUILD_OPTIONS=$opts${*:+ $*} ($(( $(date +%s) - start )) s)" > "$out/built"
	for t in old tracked; do file_signature "$src/testdata/$t.so" > "$out/$t.after" 2>/dev/null; done
	mv "$work/build/"*.deb "$out/" && { mv "$work/build/"*.ddeb "$work/build/"*.buildinfo "$out/" 2>/dev/null; true; } \
		&& { cp -p "$work/elfpmd.args" "$work/elfpmd.list" "$out/" 2>/dev/null; true; }
	# What the package's tests ran (the upstream check target's copies).
	[ -d "$src/tested" ] && cp -pr "$src/tested" "$out/tested"
	for t in "$src"/obj-*/tested; do [ -d "$t" ] && cp -pr "$t" "$out/tested"; done
	deb=$(ls "$out/${pkg}_"*.deb 2>/dev/null | head -1)
	dbg=$(ls "$out/$pkg-dbgsym_"*.deb "$out/$pkg-dbgsym_"*.ddeb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "no ${pkg}_*.deb built: $(ls "$out")" > "$out/status"; return 1; }
	dpkg-deb -x "$deb" "$out/x" && dpkg-deb -e "$deb" "$out/control" && dpkg-deb -c "$deb" > "$out/contents" \
		|| { echo "cannot unpack $deb" > "$out/status"; return 1; }
	if [ -n "$dbg" ]; then
		dpkg-deb -x "$dbg" "$out/dbg" && dpkg-deb -f "$dbg" Build-Ids > "$out/build-ids" \
			|| { echo "cannot unpack $dbg" > "$out/status"; return 1; }
	fi
	mv "$src" "$out/tree" || { echo "cannot keep the source tree" > "$out/status"; return 1; }
	echo ok > "$out/status"
}

# deb_build_set SET: the builds of SET (the head of this file) in $work;
# exits 77 with the reason in $work/skip when they cannot be made here.
deb_build_set () {
	deb_tools
	case $1 in
	make)
		deb_source make && (cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
			|| { echo "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")" > "$work/skip"; exit 77; }
		deb_build aligned "parallel=2" make && deb_build noelfpmd "parallel=2 noelfpmd" make ;;
	cmake)
		have cmake || { echo "the switch build: cmake not found (Debian: package cmake)" > "$work/skip"; exit 77; }
		deb_build switch "parallel=2 elfpmd=madvise" cmake DH_EXTRA_ADDONS=elfpmd \
			&& deb_build switch-noelfpmd "parallel=2 noelfpmd" cmake DH_EXTRA_ADDONS=elfpmd ;;
	rules)
		deb_rules_prepare
		deb_rules_source cdbs && (cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
			|| { echo "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")" > "$work/skip"; exit 77; }
		deb_build cdbs "parallel=2" cdbs && deb_build cdbs-noelfpmd "parallel=2 noelfpmd" cdbs \
			&& deb_build divert "parallel=2" divert \
			&& deb_build debhelper "parallel=2" debhelper && deb_build debhelper-noelfpmd "parallel=2 noelfpmd" debhelper \
			&& deb_build plain "parallel=2" plain && deb_build plain-noelfpmd "parallel=2 noelfpmd" plain ;;
	esac
}

# deb_built SET: the builds of SET made (once, see built_once) in
# DEB_BUILT=$TESTS_BUILDDIR/deb-built/SET, made again when the package's
# sources, the debhelper integration, these helpers, elfpmd or the
# packaging tools changed.  Fails when a build failed (the script that
# reports the builds, run-deb-build.sh, run-deb-switch-build.sh or
# run-deb-rules-build.sh, says why); skips the script when they cannot be
# made here.
deb_built () {
	local top=$TESTS_SRCDIR/.. extra=()
	DEB_BUILT=$TESTS_BUILDDIR/deb-built/$1
	[ "$1" = rules ] && extra=("$top/doc/integration.md" "$top/dist/cdbs/elfpmd.mk")
	built_once "$DEB_BUILT" "$( { echo "$1"; cc --version | head -1; ld --version | head -1
		dpkg-query -W -f '${Package} ${Version}\n' dpkg-dev debhelper dwz cmake cdbs 2>/dev/null; } \
		| content_key "$upstream"/* "$top/dist/debhelper/dh_elfpmd" "$top/dist/debhelper/elfpmd.pm" \
			"${extra[@]}" "$TESTS_SRCDIR/lib.sh" "$TESTS_SRCDIR/deb-lib.sh" "$ELFPMD")" \
		eval 'work=$DEB_BUILT; deb_build_set '"$1"
}

# deb_need SET: deb_built SET, or a hard error: the script has nothing to
# look at.
deb_need () {
	deb_built "$1" || hard_error "the $1 package builds failed (see $DEB_BUILT.out and the script that reports them)"
}

# deb_report_build NAME: PASS when the build NAME of $DEB_BUILT was made,
# FAIL with the reason and the log's tail otherwise; then the checks that
# it left the source's prebuilt ELF files alone.
deb_report_build () {
	local out=$DEB_BUILT/$1
	if [ "$(cat "$out/status" 2>/dev/null)" != ok ]; then
		fail "$1: $(cat "$out/status" 2>/dev/null || echo "not built")"
		tail -15 "$out.log" 2>/dev/null | sed 's/^/      /'
		return 1
	fi
	pass "$1: $(cat "$out/built")"
	[ ! -s "$out/old.before" ] || check "$1: the source's prebuilt testdata/old.so left alone" cmp -s "$out/old.before" "$out/old.after"
	[ ! -s "$out/tracked.before" ] || check "$1: the source's prebuilt testdata/tracked.so (new, tracked by git) left alone" \
		cmp -s "$out/tracked.before" "$out/tracked.after"
}

# deb_need_switch: deb_need cmake, with S and SB the switch and
# switch-noelfpmd builds and lib the library's path in their packages
# (usr/lib/TRIPLET/: CMake's GNUInstallDirs).
deb_need_switch () {
	deb_need cmake
	S=$DEB_BUILT/switch
	SB=$DEB_BUILT/switch-noelfpmd
	lib=$(cd "$S/x" && ls usr/lib/*/lib$pkg.so.1 2>/dev/null | head -1)
}

# deb_rules_require: deb_require, and what the builds of the set "rules"
# need besides: binutils (the plain debian/rules) and cdbs.
deb_rules_require () {
	deb_require "Debian packages built with cdbs and hand-written debian/rules"
	have dh_strip || skip_all "dh_strip not found (Debian: package debhelper)"
	have objcopy && have strip && have readelf || skip_all "objcopy, strip or readelf not found (Debian: package binutils)"
	[ -r "$cdbs_rules/debhelper.mk" ] || skip_all "cdbs is not installed ($cdbs_rules/debhelper.mk missing; Debian: package cdbs)"
}

# rules_pair VARIANT: A and B, VARIANT's build with elfpmd and the one
# without (divert has none of its own: cdbs-noelfpmd's) in $DEB_BUILT
# (deb_built rules).
rules_pair () {
	A=$DEB_BUILT/$1
	B=$DEB_BUILT/$1-noelfpmd
	[ "$1" = divert ] && B=$DEB_BUILT/cdbs-noelfpmd
}
rules_variants="cdbs divert debhelper plain"

# ---------------------------------------------------------------------------
# dh_elfpmd by hand.

# deb_hand_tree: a copy of the noelfpmd build's source tree (deb_built
# make) in $work/src, into src; its debian/$pkg, as dh_strip left it (not
# aligned), into tree; the build's own tree, left as it is, into orig
# (the original files: $orig/usr/bin/$pkg...); the logging elfpmd in
# $work/bin (deb_tools).
deb_hand_tree () {
	deb_need make
	src=$work/src
	cp -a "$DEB_BUILT/noelfpmd/tree" "$src" || hard_error "cannot copy $DEB_BUILT/noelfpmd/tree"
	tree=$src/debian/$pkg
	orig=$DEB_BUILT/noelfpmd/tree/debian/$pkg
	deb_tools
	text_aligned "$tree/usr/bin/$pkg" && fail "the noelfpmd build's tree has an aligned $pkg"
}

# dh_elfpmd_run NAME [VAR=VALUE...] -- ARG...: run dh_elfpmd ARG... in $src
# (output in $work/NAME.out, status in rc), under a timeout: a FIFO opened
# for reading would block.
dh_elfpmd_run () {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	reset_log
	(cd "$src" && pkg_env "${envs[@]}" timeout 120 dh_elfpmd "$@") > "$work/$name.out" 2>&1
	rc=$?
}

# ---------------------------------------------------------------------------
# Install-time priming: dpkg --root into a scratch root.

# list_path: the aligned package's prime list.
list_path=usr/lib/elfpmd/prime.d/$pkg:$(dpkg --print-architecture 2>/dev/null).list

# deb_want_prime: into $work/want-prime.list, the regular ELF files of the
# aligned build's .deb (hard links after the first name are 'h' entries)
# with at least one whole PMD chunk of text, by phdr-dump, as the prime
# list names them.  Reads DEB_BUILT (deb_built make).
deb_want_prime () {
	local A=$DEB_BUILT/aligned f
	awk '$1 ~ /^-/ { print $NF }' "$A/contents" | sed 's|^\./||' | sort | while read -r f; do
		[ "$(od -An -tx1 -N4 "$A/x/$f" | tr -d ' \n')" = 7f454c46 ] && [ "$(ideal_chunks "$A/x/$f")" -ge 1 ] && echo "/$f"
	done > "$work/want-prime.list"
}

# deb_root: a scratch root $work/root with an empty dpkg database; the
# package of dist/debian's elfpmd.triggers and elfpmd.postinst (the elfpmd
# package's hook) in $work/hook.deb; and in the postinst's PATH
# ($work/prime-bin) an elfpmd that logs its arguments and directory
# ($work/prime.args) and the names it reads ($work/prime.names), then runs
# the real one.
debian_dist=$TESTS_SRCDIR/../dist/debian
deb_root () {
	local hook=$work/hook
	root=$work/root
	mkdir -p "$hook/DEBIAN" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$work/prime-bin" \
		&& : > "$root/var/lib/dpkg/status" && : > "$root/var/lib/dpkg/available" \
		|| hard_error "cannot create $hook and $root"
	cp "$debian_dist/elfpmd.triggers" "$hook/DEBIAN/triggers"
	sed '/^#DEBHELPER#$/d' "$debian_dist/elfpmd.postinst" > "$hook/DEBIAN/postinst"
	chmod 755 "$hook/DEBIAN/postinst"
	printf '%s\n' 'Package: elfpmd-hooktest' 'Version: 1.0' 'Architecture: all' \
		'Maintainer: elfpmd tests <elfpmd-tests@localhost>' \
		"Description: the elfpmd package's trigger and postinst (tests/deb-lib.sh)" ' Nothing else.' \
		> "$hook/DEBIAN/control"
	printf '%s\n' '#!/bin/sh' '{ printf "%s\n" "$*"; pwd; } >> "$PRIME_LOG.args"' \
		'tee -a "$PRIME_LOG.names" | "$ELFPMD_REAL" "$@"' > "$work/prime-bin/elfpmd"
	chmod 755 "$work/prime-bin/elfpmd"
	dpkg-deb --root-owner-group -b "$hook" "$work/hook.deb" > "$work/hook-build.out" 2>&1 \
		|| fail "dpkg-deb --build of the hook package: $(cat "$work/hook-build.out")"
}

# root_dpkg ARG...: dpkg on the scratch root, maintainer scripts without
# chroot (dpkg sets DPKG_ROOT for them), elfpmd the logging one.
root_dpkg () {
	[ -d "$root/var/lib/dpkg" ] || return 99
	env -u DPKG_ROOT PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" \
		dpkg --root="$root" --force-script-chrootless --force-not-root --force-depends "$@"
}
# run_postinst ARG...: the postinst by hand, as dpkg runs it on the root.
run_postinst () {
	(cd "$root" && env DPKG_ROOT="$root" PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" \
		PRIME_LOG="$work/prime" sh "$debian_dist/elfpmd.postinst" "$@")
}
prime_log_reset () { rm -f "$work/prime.args" "$work/prime.names"; }

# deb_root_installed: deb_root with the hook package and then the aligned
# package (deb_built make) installed, or a hard error; the .deb's path in
# aligned_deb.
deb_root_installed () {
	deb_need make
	deb_root
	aligned_deb=$(ls "$DEB_BUILT/aligned/${pkg}_"*.deb | head -1)
	root_dpkg -i "$work/hook.deb" > "$work/dpkg-hook.out" 2>&1 \
		&& root_dpkg -i "$aligned_deb" > "$work/dpkg-pkg.out" 2>&1 \
		|| hard_error "dpkg --root -i of the hook and the aligned package: $(tail -3 "$work"/dpkg-*.out)"
}

# ---------------------------------------------------------------------------
# Readings of the packages' files.

# text_load FILE: "ALIGN OFFSET VADDR" (decimal) of FILE's largest executable
# PT_LOAD, the text, as phdr-dump reads it.
text_load () { exec_loads "$1" | sort -n -k4 | tail -1 | cut -d' ' -f1-3; }
# text_aligned FILE: the text PT_LOAD has p_align 2 MiB and p_offset
# congruent with p_vaddr modulo 2 MiB.
text_aligned () {
	local a o v
	read -r a o v < <(text_load "$1")
	[ -n "$a" ] && [ "$a" -eq 2097152 ] && [ $(( (v - o) % 2097152 )) -eq 0 ]
}
# describe_text FILE: the text PT_LOAD in words, for the PASS/FAIL lines.
describe_text () {
	local a o v
	read -r a o v < <(text_load "$1")
	printf 'p_align 0x%x, p_offset 0x%x, p_vaddr 0x%x' "$a" "$o" "$v"
}
# has_stub FILE: elfpmd sees its startup stub in FILE.
has_stub () { "$ELFPMD" -n --json --madvise "$1" 2>/dev/null | grep -q '"present":true'; }

# build_id FILE: FILE's build-id, from its note.
build_id () {
	if have readelf; then readelf -n "$1"; else eu-readelf -n "$1"; fi 2>/dev/null \
		| awk '/Build ID:/ { print $NF; exit }'
}

# run_prog DIR: run the unpacked program of DIR with its library; prints its
# output and exit status.
run_prog () {
	LD_LIBRARY_PATH=$1/usr/lib timeout 60 "$1/usr/bin/$pkg" 2>&1
	echo "exit status $?"
}

# elflint_no_worse WHAT FILE REF REFNAME: a check that eu-elflint --gnu-ld
# finds no more to say of FILE than of REF (REFNAME's build of it); the
# new messages shown when it does.
elflint_no_worse () {
	local la lb
	la=$(elflint_count "$2")
	lb=$(elflint_count "$3")
	if [ "$la" -le "$lb" ]; then
		pass "$1: eu-elflint --gnu-ld messages $la <= $4's $lb"
	else
		fail "$1: eu-elflint --gnu-ld messages $la > $4's $lb"
		diff <(elflint_messages "$3") <(elflint_messages "$2") | head -10 | sed 's/^/      /'
	fi
}

# deb_switch_source SRC TEST: the test package $pkg in SRC, as TEST builds it: the
# upstream Makefile build (tests/pkg/upstream but its CMakeLists.txt) with a
# debian/rules that runs a plain "dh $@" (the add-on comes from
# DH_EXTRA_ADDONS, as a distribution turns it on for every package) and
# installs with the upstream Makefile.
deb_switch_source () {
	mkdir -p "$1/debian/source" && cp "$TESTS_SRCDIR"/pkg/upstream/* "$1/" && chmod -R u+w "$1" \
		&& rm "$1/CMakeLists.txt" || return 1
	echo '3.0 (native)' > "$1/debian/source/format"
	deb_control "$1" "debhelper-compat (= 13)" "$2"
	cat > "$1/debian/rules" <<EOF
#!/usr/bin/make -f
%:
	dh \$@

override_dh_auto_install:
	\$(MAKE) install DESTDIR=\$(CURDIR)/debian/$pkg prefix=/usr
EOF
	chmod 755 "$1/debian/rules"
}

# deb_switch_build SRC LOG DEB_BUILD_OPTIONS [ARG...]: dpkg-buildpackage -b
# -uc -us ARG... of the package in SRC with the distribution's switch
# (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS as given) and DH_VERBOSE=1,
# its output in LOG; the .debs land beside SRC.
deb_switch_build () {
	local src=$1 log=$2 opts=$3
	shift 3
	(cd "$src" && pkg_env DH_EXTRA_ADDONS=elfpmd DEB_BUILD_OPTIONS="$opts" DH_VERBOSE=1 \
		dpkg-buildpackage -b -uc -us "$@") > "$log" 2>&1
}
