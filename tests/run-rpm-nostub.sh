#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-nostub.sh: brp-elfpmd with --madvise (%_elfpmd_options) over a
# buildroot holding a library of a machine elfpmd has no startup stub for
# (i386, assembled by cc -m32 without a C library) beside an x86-64 one:
# both are aligned, the i386 one without the stub, brp-elfpmd exits 0 (the
# build goes on), and elfpmd's one stub line says it, with no line per file.
# dist/rpm/brp-elfpmd is run as rpm runs it, without rpm.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

w=$TESTS_BUILDDIR/rpm-nostub-work
rm -rf "$w" && mkdir -p "$w/root/usr/lib" || hard_error "cannot create $w"
trap '[ "$n_fail" -eq 0 ] && rm -rf "$w" || echo "      (kept $w)"' EXIT
require_phdr_dump "$w/tools"
# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"    # (text_aligned)
text=$TESTS_SRCDIR/pkg/upstream/bigtext.S

[ "$(uname -m)" = x86_64 ] || skip_all "not an x86-64 host: no library with a stub to put beside the i386 one"
have cc || skip_all "no C compiler (cc)"
cc -m32 -nostdlib -shared -DNAME=text32 -o "$w/root/usr/lib/libthirtytwo.so.1" "$text" > "$w/cc.log" 2>&1 \
	|| skip_all "cc -m32 cannot assemble and link an i386 object here: $(head -1 "$w/cc.log")"
cc -shared -DNAME=text64 -o "$w/root/usr/lib/libsixtyfour.so.1" "$text" > "$w/cc.log" 2>&1 \
	|| hard_error "cc cannot link an x86-64 library: $(head -1 "$w/cc.log")"

RPM_BUILD_ROOT=$w/root RPM_BUILD_NCPUS=2 sh "$TESTS_SRCDIR/../dist/rpm/brp-elfpmd" --madvise > "$w/brp.out" 2>&1
rc=$?
check "brp-elfpmd --madvise: exit 0" test "$rc" -eq 0
line=$(grep 'startup stub' "$w/brp.out")
holds "one stub line, naming i386: $line" \
	'[ "$(grep -c "startup stub" "$w/brp.out")" -eq 1 ] \
		&& grep -q "^elfpmd: startup stub: 1 injected, 1 not (1: no startup stub for i386" "$w/brp.out"'
check "no line per file ($(grep -c 'lib[a-z]*\.so\.1' "$w/brp.out") name the libraries)" \
	eval '! grep -q "lib[a-z]*\.so\.1" "$w/brp.out"'
for f in libthirtytwo.so.1 libsixtyfour.so.1; do
	check "$f aligned ($(describe_text "$w/root/usr/lib/$f"))" text_aligned "$w/root/usr/lib/$f"
done

finish
