#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-multiarch.sh: Multi-Arch: same.  A library package (libsynth1,
# from tests/pkg/upstream/bigtext.S) built for amd64 and for i386 (gcc
# -m32), each tree aligned by dh_elfpmd for its architecture (the
# DEB_HOST_* variables dpkg-buildpackage -aARCH sets) and packed by
# dpkg-deb, has a prime list per architecture (libsynth1:ARCH.list, naming
# the library) and installs side by side with dpkg --root into a scratch
# root where the elfpmd package's hook is installed (deb-lib.sh,
# deb_root); the same pair with one shared list name, as before, is
# refused by dpkg (the check that the names matter).  amd64 hosts with gcc
# -m32 (Debian: gcc-multilib) only.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
scratch_dir
ma=$work/multiarch
mkdir -p "$ma"
if [ "$(dpkg --print-architecture)" != amd64 ] || ! echo 'int x;' | cc -m32 -c -x c -o "$ma/m32.o" - 2> /dev/null; then
	skip_all "Multi-Arch: not an amd64 host with gcc -m32 (Debian: gcc-multilib)"
fi
deb_tools
deb_root
root_dpkg -i "$work/hook.deb" > "$work/dpkg-hook.out" 2>&1 || hard_error "dpkg --root -i the hook package: $(tail -3 "$work/dpkg-hook.out")"

# synth_deb ARCH VERSION [LISTNAME]: debian/libsynth1 of a source tree of
# its own for ARCH, dh_elfpmd over it, the .deb; with LISTNAME the list is
# renamed to it (the old, shared name) before packing.
synth_deb () {
	local arch=$1 version=$2 rename=${3:-} s=$ma/src-$1-$2 m triplet archenv
	case $arch in amd64) m=-m64 triplet=x86_64-linux-gnu ;; i386) m=-m32 triplet=i386-linux-gnu ;; esac
	mkdir -p "$s/debian/libsynth1/usr/lib/$triplet"
	printf '%s\n' 'Source: libsynth' 'Maintainer: elfpmd tests <elfpmd-tests@localhost>' \
		'Build-Depends: debhelper-compat (= 13)' '' 'Package: libsynth1' 'Architecture: any' \
		'Multi-Arch: same' 'Description: a library with 4.5 MiB of text' ' For tests/run-deb-multiarch.sh.' \
		> "$s/debian/control"
	cc $m -shared -DNAME=synth_text -o "$s/debian/libsynth1/usr/lib/$triplet/libsynth.so.1" \
		"$upstream/bigtext.S" || return 1
	mapfile -t archenv < <(dpkg-architecture -a"$arch" 2> /dev/null | grep '^DEB_HOST_')
	(cd "$s" && pkg_env "${archenv[@]}" timeout 120 dh_elfpmd -plibsynth1) > "$s.dh.out" 2>&1 || return 1
	local d=$s/debian/libsynth1/usr/lib/elfpmd/prime.d
	[ -z "$rename" ] || mv "$d/libsynth1:$arch.list" "$d/$rename" || return 1
	mkdir -p "$s/debian/libsynth1/DEBIAN"
	printf '%s\n' 'Package: libsynth1' "Version: $version" "Architecture: $arch" 'Multi-Arch: same' \
		'Maintainer: elfpmd tests <elfpmd-tests@localhost>' 'Description: a library with 4.5 MiB of text' \
		' For tests/run-deb-multiarch.sh.' > "$s/debian/libsynth1/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$s/debian/libsynth1" "$ma/libsynth1_${version}_$arch.deb" > "$s.deb.out" 2>&1
}

if ! synth_deb amd64 1.0 || ! synth_deb i386 1.0; then
	fail "Multi-Arch: building libsynth1: $(cat "$ma"/src-*.dh.out "$ma"/src-*.deb.out 2>/dev/null | head -5)"
	finish
fi
for arch in amd64 i386; do
	check "dh_elfpmd for $arch: the list is libsynth1:$arch.list, naming the library" \
		grep -q "^/usr/lib/.*/libsynth.so.1$" "$ma/src-$arch-1.0/debian/libsynth1/usr/lib/elfpmd/prime.d/libsynth1:$arch.list"
done
root_dpkg --add-architecture i386 > "$work/ma-arch.out" 2>&1
root_dpkg -i "$ma/libsynth1_1.0_amd64.deb" "$ma/libsynth1_1.0_i386.deb" > "$work/ma-install.out" 2>&1
rc=$?
check "dpkg --root -i libsynth1:amd64 and libsynth1:i386 together: exit 0 ($(tail -1 "$work/ma-install.out"))" test $rc -eq 0
check "both are installed, each with its list" \
	test -s "$root/usr/lib/elfpmd/prime.d/libsynth1:amd64.list" -a -s "$root/usr/lib/elfpmd/prime.d/libsynth1:i386.list"
root_dpkg -r libsynth1:amd64 libsynth1:i386 > "$work/ma-remove.out" 2>&1
if synth_deb amd64 0.9 libsynth1.list && synth_deb i386 0.9 libsynth1.list; then
	root_dpkg -i "$ma/libsynth1_0.9_amd64.deb" "$ma/libsynth1_0.9_i386.deb" > "$work/ma-old.out" 2>&1
	rc=$?
	check "one shared list name: dpkg refuses the pair (exit $rc: $(grep -o 'trying to overwrite shared [^,]*' "$work/ma-old.out" | head -1))" \
		grep -q "trying to overwrite shared '/usr/lib/elfpmd/prime.d/libsynth1.list'" "$work/ma-old.out"
else
	fail "Multi-Arch: building the old-style pair failed"
fi
finish
