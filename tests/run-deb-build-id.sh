#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-build-id.sh: a plain build and an elfpmd build of one package
# never ship two different files under one build-id, also when one is a
# dpkg-buildpackage -nc rebuild of the other in the same tree (dh_strip
# then finds the first build's debug files in debian/.debhelper and takes
# one again for a file of the same build-id).  tests/pkg/upstream is built
# plain, then again with -nc as a distribution's switch builds it
# (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS elfpmd=madvise), then plain
# with -nc once more.  In each build, every ELF file's -dbgsym debug file
# (by its build-id) has that build-id and eu-unstrip joins the two; the
# elfpmd build's files, which differ from the plain ones, have other
# build-ids; and over the three builds one build-id always names the same
# file and the same debug file (a -nc rebuild's -dbgsym package also has
# the debug files of the build before, which debhelper keeps: under their
# own build-ids).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "Debian packages built with debhelper"
require_elfpmd
for t in dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb dh make cc readelf eu-unstrip; do
	have $t || skip_all "$t not found (Debian: dpkg-dev, debhelper, make, gcc, binutils, elfutils)"
done

scratch_dir
# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools

pkg=elfpmd-pkgtest
src=$work/build/$pkg-1.0
deb_switch_source "$src" run-deb-build-id.sh || hard_error "cannot create the source package in $src"
(cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")"

elfs="usr/bin/$pkg usr/lib/lib$pkg.so.1"
# build NAME [VAR=VALUE...] -- DPKG-BUILDPACKAGE-OPTION...: build in $src,
# unpack the package into $work/NAME/x and the -dbgsym package into
# $work/NAME/dbg; then each ELF file's build-id and its debug file.
build () {
	local name=$1 out=$work/$1 env=() deb dbg f id d start=$SECONDS
	shift
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	mkdir -p "$out" || return 1
	if ! (cd "$src" && pkg_env "${env[@]}" dpkg-buildpackage -b -uc -us "$@") > "$out.log" 2>&1; then
		fail "$name: dpkg-buildpackage $* failed"
		tail -15 "$out.log" | sed 's/^/      /'
		return 1
	fi
	pass "$name: dpkg-buildpackage -b $* ${env[*]} ($((SECONDS - start)) s)"
	deb=$(ls "$work/build/${pkg}_"*.deb) && dbg=$(ls "$work/build/$pkg-dbgsym_"*deb) \
		&& dpkg-deb -x "$deb" "$out/x" && dpkg-deb -x "$dbg" "$out/dbg" && rm "$deb" "$dbg" \
		|| { fail "$name: no package or -dbgsym package to unpack"; return 1; }
	for f in $elfs; do
		id=$(build_id "$out/x/$f")
		d=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -z "$id" ] || [ ! -f "$out/dbg/$d" ]; then
			fail "$name: $f: build-id '$id' and no debug file $d in the -dbgsym package"
			continue
		fi
		check "$name: $f: its debug file has its build-id $id" test "$(build_id "$out/dbg/$d")" = "$id"
		check "$name: $f: eu-unstrip joins it with its debug file" \
			eu-unstrip -o "$out/joined" "$out/x/$f" "$out/dbg/$d"
		echo "file $id $(sha256sum < "$out/x/$f" | cut -c1-64) $name $f" >> "$work/names"
	done
	# Every debug file shipped, also one a -nc rebuild found in
	# debian/.debhelper from the build before (debhelper keeps them).
	for d in "$out"/dbg/usr/lib/debug/.build-id/*/*.debug; do
		id=${d%.debug} id=${id#"$out/dbg/usr/lib/debug/.build-id/"}
		echo "debug ${id/\//} $(sha256sum < "$d" | cut -c1-64) $name" >> "$work/names"
	done
}

build plain -- && build elfpmd DH_EXTRA_ADDONS=elfpmd DEB_BUILD_OPTIONS=elfpmd=madvise -- -nc \
	&& build plain-again -- -nc || finish
for f in $elfs; do
	a=$(build_id "$work/plain/x/$f") b=$(build_id "$work/elfpmd/x/$f") c=$(build_id "$work/plain-again/x/$f")
	check "elfpmd: $f: DEB_BUILD_OPTIONS elfpmd=madvise gave it the stub" \
		grep -q '\.elfpmd\.stub' <(readelf -SW "$work/elfpmd/x/$f")
	check "elfpmd: $f has another build-id than the plain builds' ($a -> $b)" \
		test -n "$a" -a "$a" != "$b" -a "$a" = "$c"
done
# One build-id, one file and one debug file, over the three builds.
split=$(sort "$work/names" | awk '{ if ($1 == kind && $2 == id && $3 != sum) print $1, $2; kind = $1; id = $2; sum = $3 }')
holds "no build-id names two different files or debug files in the three builds" '[ -z "$split" ]'
finish
