#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-dh-textrel.sh: a refusal: with -- --madvise, a library with text
# relocations gets no startup stub, and dh_elfpmd's warning gives elfpmd's
# reason (strictness would fail the build); the library is aligned all the
# same.  By hand in a copy of the noelfpmd build's tree (run-deb-build.sh;
# deb-lib.sh, deb_hand_tree).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "dh_elfpmd by hand in a Debian package build's tree"
scratch_dir
deb_hand_tree

(cd "$work" && cc -O2 -fno-pic -mcmodel=large -c "$upstream/lib.c" -o textrel.o \
	&& cc -g -DNAME=lib_text -c "$upstream/bigtext.S" -o textrel-text.o \
	&& cc -shared -Wl,-z,notext -o "$tree/usr/lib/libtextrel.so.1" textrel.o textrel-text.o) > "$work/textrel.cc" 2>&1 \
	|| skip_all "no TEXTREL library could be linked: $(head -2 "$work/textrel.cc")"
dh_elfpmd_run textrel -- -- --madvise
if [ "$rc" -eq 0 ] && grep -q "dh_elfpmd: warning: debian/$pkg/usr/lib/libtextrel.so.1: no startup stub: the object has text relocations" "$work/textrel.out"; then
	pass "-- --madvise on a TEXTREL library: exit 0, the refusal in the log: $(grep 'libtextrel' "$work/textrel.out" | head -1)"
else
	fail "-- --madvise on a TEXTREL library: exit $rc: $(head -5 "$work/textrel.out")"
fi
check "-- --madvise on a TEXTREL library: aligned all the same" text_aligned "$tree/usr/lib/libtextrel.so.1"
finish
