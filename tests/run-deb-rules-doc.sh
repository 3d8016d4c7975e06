#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-rules-doc.sh: the debian/rules of doc/integration.md that do not
# run dh (the blocks the run-deb-rules-*.sh scripts build packages with;
# deb-lib.sh, deb_rules_prepare): each block is there; the cdbs one
# includes /usr/share/cdbs/1/rules/elfpmd.mk right after debhelper.mk; the
# diverting debhelper.mk includes cdbs's own (debhelper.mk.distrib), then
# elfpmd.mk; the cdbs debian/rules the builds use is the doc's but for the
# copy of elfpmd.mk and the package's hook appended; and make install with
# prefix=/usr puts dist/cdbs/elfpmd.mk where the doc's include finds it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_rules_require
scratch_dir
top=$TESTS_SRCDIR/..
deb_rules_prepare

for f in cdbs debhelper plain; do
	[ -s "$work/doc-$f.rules" ] || fail "doc: no debian/rules block after '<!-- debian/rules: $f -->'"
done
[ -s "$work/doc-divert.mk" ] || fail "doc: no block after '<!-- cdbs: debhelper.mk -->'"
if grep -A1 -x "include $cdbs_rules/debhelper.mk" "$work/doc-cdbs.rules" | grep -qx "include $cdbs_rules/elfpmd.mk"; then
	pass "doc: the cdbs debian/rules includes $cdbs_rules/elfpmd.mk right after debhelper.mk"
else
	fail "doc: the cdbs debian/rules does not include $cdbs_rules/elfpmd.mk right after debhelper.mk"
fi
check "doc: the diverting debhelper.mk includes debhelper.mk.distrib, then elfpmd.mk" \
	test "$(grep '^include' "$work/doc-divert.mk")" = "include $cdbs_rules/debhelper.mk.distrib
include $cdbs_rules/elfpmd.mk"
deb_rules_source cdbs || hard_error "cannot create the source package in $src"
diff "$work/doc-cdbs.rules" "$src/debian/rules" > "$work/cdbs-rules.diff"
check "cdbs: debian/rules is the doc's, with the copy of elfpmd.mk and the hook appended" \
	test "$(grep -c '^[<>]' "$work/cdbs-rules.diff")" -eq 5

# The rule file is installed where the doc's include finds it: the build
# tree's install with prefix=/usr puts it at $cdbs_rules/elfpmd.mk.
if [ -f "$TESTS_BUILDDIR/../Makefile" ] && grep -q '^install-cdbsrulesDATA:' "$TESTS_BUILDDIR/../Makefile"; then
	if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TESTS_BUILDDIR/.." install-cdbsrulesDATA \
		prefix=/usr DESTDIR="$work/inst" > "$work/inst.out" 2>&1; then
		if cmp -s "$work/inst$cdbs_rules/elfpmd.mk" "$top/dist/cdbs/elfpmd.mk"; then
			pass "make install prefix=/usr installs dist/cdbs/elfpmd.mk as $cdbs_rules/elfpmd.mk"
		elif [ -z "$(find "$work/inst" -type f 2>/dev/null)" ]; then
			skip "this build tree installs no debhelper integration (configure --without-debhelper)"
		else
			fail "make install prefix=/usr: $(cd "$work/inst" && find . -type f)"
		fi
	else
		fail "make install-cdbsrulesDATA failed: $(tail -3 "$work/inst.out")"
	fi
else
	skip "no build tree with install-cdbsrulesDATA ($TESTS_BUILDDIR/..): the installed path not checked"
fi
finish
