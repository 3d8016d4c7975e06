#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-left-alone.sh: what dh_elfpmd leaves alone, by hand (with
# nostrip, which does not stop it) in a copy of the noelfpmd build's tree
# (run-deb-build.sh; deb-lib.sh, deb_hand_tree): files under
# usr/lib/debug and .build-id, another machine's ELF file (a MIPS copy,
# which elfpmd itself refuses), a FIFO, the packages of Architecture: all
# and udeb (added to debian/control), and a library converted before
# (aligned with the stub): elfpmd runs once, -j 1, on the package's three
# names of its two ELF files only, and none of those files changes.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

mkdir -p "$tree/usr/lib/debug/usr/bin" "$tree/usr/share/$pkg/.build-id/ab" "$tree/usr/lib/firmware"
cp "$orig/usr/bin/$pkg" "$tree/usr/lib/debug/usr/bin/$pkg"
cp "$orig/usr/bin/$pkg" "$tree/usr/share/$pkg/.build-id/ab/cdef"
cp "$orig/usr/bin/$pkg" "$tree/usr/lib/firmware/mips.elf"
printf '\010\000' | dd of="$tree/usr/lib/firmware/mips.elf" bs=1 seek=18 conv=notrunc status=none
"$ELFPMD" -n "$tree/usr/lib/firmware/mips.elf" > /dev/null 2>&1
check "elfpmd itself refuses the MIPS copy named alone (exit 2: a machine without a PMD size)" test $? -eq 2
mkfifo "$tree/usr/share/$pkg/fifo"
cat >> "$src/debian/control" <<EOS

Package: $pkg-data
Architecture: all
Description: elfpmd packaging test, Architecture: all
 Nothing.

Package: $pkg-udeb
Package-Type: udeb
Section: debian-installer
Architecture: any
Description: elfpmd packaging test, udeb
 Nothing.
EOS
mkdir -p "$src/debian/$pkg-data/usr/bin" "$src/debian/$pkg-udeb/usr/bin"
cp "$orig/usr/bin/$pkg" "$src/debian/$pkg-data/usr/bin/$pkg"
cp "$orig/usr/bin/$pkg" "$src/debian/$pkg-udeb/usr/bin/$pkg"
left_alone="$tree/usr/lib/debug/usr/bin/$pkg $tree/usr/share/$pkg/.build-id/ab/cdef $tree/usr/lib/firmware/mips.elf
	$src/debian/$pkg-data/usr/bin/$pkg $src/debian/$pkg-udeb/usr/bin/$pkg"
sigs_before=$(for f in $left_alone; do file_signature "$f"; done)
# The library converted before, with the stub: given, not rewritten again.
"$ELFPMD" -q --madvise "$tree/usr/lib/lib$pkg.so.1" || hard_error "elfpmd --madvise on the library failed"
sig_lib_stub=$(file_signature "$tree/usr/lib/lib$pkg.so.1")
printf '%s\n' "debian/$pkg/usr/bin/$pkg" "debian/$pkg/usr/bin/$pkg-link" "debian/$pkg/usr/lib/lib$pkg.so.1" > "$work/want.list"

dh_elfpmd_run all DEB_BUILD_OPTIONS=nostrip --
check "nostrip, with debug files, another machine's file, a FIFO, two more packages: exit 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/      /' "$work/all.out" | head -10
check "nostrip: elfpmd run once, -j 1" test "$(logged_args)" = "$elfpmd_args -j 1"
if logged_names | cmp -s - "$work/want.list"; then
	pass "only the package's three names given"
else
	fail "names given: $(logged_names | tr '\n' ' ')"
fi
check "debug files, .build-id, the MIPS file, Architecture: all and udeb left alone" \
	test "$sigs_before" = "$(for f in $left_alone; do file_signature "$f"; done)"
check "the library (aligned with the stub before) is not rewritten again" test "$sig_lib_stub" = "$(file_signature "$tree/usr/lib/lib$pkg.so.1")"
finish
