#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Debian packages whose debian/rules does not run dh, so that the dh add-on
# (DH_EXTRA_ADDONS=elfpmd included) does not reach them: dpkg-buildpackage
# builds tests/pkg/upstream with each debian/rules that doc/integration.md
# shows, taken from the doc, as a package uses them:
#
#  cdbs       debhelper.mk and the cdbs rule file dist/cdbs/elfpmd.mk (the
#             doc's include of /usr/share/cdbs/1/rules/elfpmd.mk pointed at
#             a copy of the source tree's), with a binary-post-install hook
#             of the package appended;
#  divert     the same debian/rules with only debhelper.mk included, from a
#             directory that holds the doc's diverting debhelper.mk (the
#             archive-wide way): that file includes cdbs's own and elfpmd.mk;
#  debhelper  hand-written, the debhelper commands one by one, dh_elfpmd
#             between dh_dwz and dh_strip;
#  plain      hand-written without debhelper: find | elfpmd --files-from=- -0,
#             then objcopy --only-keep-debug and strip.
#
# dh_elfpmd is a copy of dist/debhelper/dh_elfpmd found through PATH, and
# ELFPMD a wrapper that logs its arguments and runs the built elfpmd:
# nothing is installed.  Each is built with DEB_BUILD_OPTIONS=parallel=2 and
# DH_VERBOSE=1 (and all but divert once more with noelfpmd added), and
# checked: the build succeeds; the order in its log (the package's
# post-install hook, dh_dwz, then elfpmd, then dh_strip or the debug files);
# in the .deb, read with tests/phdr-dump, the program's and the library's
# text PT_LOAD has p_align 2 MiB and p_offset congruent with p_vaddr
# (noelfpmd: not aligned); eu-elflint --gnu-ld finds no more than in the
# unaligned build; the program prints what the unaligned build's prints;
# DEBIAN/md5sums matches; each ELF file's build-id, another than the
# unaligned build's, names a debug file (in the -dbgsym package, or in the
# package for plain) with that build-id whose text PT_LOAD has the 2 MiB
# alignment too (made from the rewritten file).
# Also: the cdbs variables (DEB_DH_ELFPMD_ARGS_*, DEB_ELFPMD_EXCLUDE*,
# CDBS_BUILD_DEPENDS) by make -n, and that the Makefile installs the rule
# file where the doc's include names it.  Skipped without cdbs.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "Debian packages built with cdbs and hand-written debian/rules"
require_elfpmd

have dpkg-buildpackage || skip_all "dpkg-buildpackage not found (Debian: package dpkg-dev)"
have dpkg-deb || skip_all "dpkg-deb not found (Debian: package dpkg)"
have dh_strip || skip_all "dh_strip not found (Debian: package debhelper)"
have make || skip_all "make not found"
have cc || skip_all "no C compiler (cc)"
have objcopy && have strip && have readelf || skip_all "objcopy, strip or readelf not found (Debian: package binutils)"
cdbs_rules=/usr/share/cdbs/1/rules
[ -r "$cdbs_rules/debhelper.mk" ] || skip_all "cdbs is not installed ($cdbs_rules/debhelper.mk missing; Debian: package cdbs)"

top=$TESTS_SRCDIR/..
doc=$top/doc/integration.md
upstream=$TESTS_SRCDIR/pkg/upstream
work=$TESTS_BUILDDIR/deb-rules-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
trap '[ "$n_fail" -eq 0 ] && rm -rf "$work" || echo "      (kept $work)"' EXIT
require_phdr_dump "$work/tools"

# The in-tree dh_elfpmd and cdbs rule file, and the logging elfpmd.
# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools
mkdir -p "$work/cdbs" "$work/divert" && cp "$top/dist/cdbs/elfpmd.mk" "$work/cdbs/elfpmd.mk" \
	|| hard_error "cannot copy dist/cdbs/elfpmd.mk"

# doc_block MARKER: the fenced block after the line "<!-- MARKER -->" of
# doc/integration.md, without the fences.
doc_block () {
	awk -v m="<!-- $1 -->" '
		$0 == m { f = 1; next }
		f == 1 && /^```/ { f = 2; next }
		f == 2 && /^```/ { exit }
		f == 2' "$doc"
}

# ---------------------------------------------------------------------------
# The debian/rules of the doc.

pkg=elfpmd-pkgtest
doc_block "debian/rules: cdbs" > "$work/doc-cdbs.rules"
doc_block "debian/rules: debhelper" > "$work/doc-debhelper.rules"
doc_block "debian/rules: plain" > "$work/doc-plain.rules"
doc_block "cdbs: debhelper.mk" > "$work/doc-divert.mk"
for f in cdbs debhelper plain; do
	[ -s "$work/doc-$f.rules" ] || fail "doc: no debian/rules block after '<!-- debian/rules: $f -->'"
done
[ -s "$work/doc-divert.mk" ] || fail "doc: no block after '<!-- cdbs: debhelper.mk -->'"
# The doc shows the installed path, right after debhelper.mk.
if grep -A1 -x "include $cdbs_rules/debhelper.mk" "$work/doc-cdbs.rules" | grep -qx "include $cdbs_rules/elfpmd.mk"; then
	pass "doc: the cdbs debian/rules includes $cdbs_rules/elfpmd.mk right after debhelper.mk"
else
	fail "doc: the cdbs debian/rules does not include $cdbs_rules/elfpmd.mk right after debhelper.mk"
fi
check "doc: the diverting debhelper.mk includes debhelper.mk.distrib, then elfpmd.mk" \
	test "$(grep '^include' "$work/doc-divert.mk")" = "include $cdbs_rules/debhelper.mk.distrib
include $cdbs_rules/elfpmd.mk"

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

# ---------------------------------------------------------------------------
# The source packages.

src=$work/build/$pkg-1.0
# make_source VARIANT: the upstream tree plus debian/ for VARIANT in $src.
make_source () {
	local v=$1 bdep
	rm -rf "$work/build"
	mkdir -p "$src/debian/source" && cp "$upstream"/* "$src/" && chmod -R u+w "$src" || return 1
	echo '3.0 (native)' > "$src/debian/source/format"
	case $v in
	# cdbs 0.4.166 (Debian 12) runs dh_systemd_enable, an error from compat 11 on.
	cdbs|divert) bdep="cdbs, debhelper (>= 10)"; echo 10 > "$src/debian/compat" ;;
	debhelper) bdep="debhelper-compat (= 13)" ;;
	plain) bdep="binutils" ;;
	esac
	deb_control "$src" "$bdep" run-deb-rules.sh
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

# The diverting debhelper.mk of the doc, pointed at cdbs's own file and
# the copy of elfpmd.mk.
sed -e "s|^include $cdbs_rules/debhelper.mk.distrib\$|include $cdbs_rules/debhelper.mk|" \
	-e "s|^include $cdbs_rules/elfpmd.mk\$|include $work/cdbs/elfpmd.mk|" \
	"$work/doc-divert.mk" > "$work/divert/debhelper.mk"

# The debian/rules used are the doc's, but for the lines said above.
make_source cdbs || hard_error "cannot create the source package in $src"
diff "$work/doc-cdbs.rules" "$src/debian/rules" > "$work/cdbs-rules.diff"
check "cdbs: debian/rules is the doc's, with the copy of elfpmd.mk and the hook appended" \
	test "$(grep -c '^[<>]' "$work/cdbs-rules.diff")" -eq 5
(cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")"

# ---------------------------------------------------------------------------
# The cdbs variables, with make -n (nothing built).

# cdbs_dry VAR=VALUE...: the dh_elfpmd command line that make -n prints for
# binary-elfpmd/$pkg in $src with the variables.
cdbs_dry () {
	(cd "$src" && pkg_env make -n -f debian/rules "binary-elfpmd/$pkg" "$@" 2>&1) | grep '^dh_elfpmd' | tail -1 | sed 's/ *$//'
}
check "cdbs: binary-elfpmd/$pkg runs dh_elfpmd -p$pkg" test "$(cdbs_dry)" = "dh_elfpmd -p$pkg"
check "cdbs: DEB_DH_ELFPMD_ARGS_ALL and DEB_ELFPMD_EXCLUDE" \
	test "$(cdbs_dry 'DEB_DH_ELFPMD_ARGS_ALL=-- --madvise' 'DEB_ELFPMD_EXCLUDE=foo bar')" = "dh_elfpmd -p$pkg -X foo -X bar -- --madvise"
check "cdbs: DEB_DH_ELFPMD_ARGS_$pkg replaces DEB_DH_ELFPMD_ARGS, after DEB_DH_ELFPMD_ARGS_ALL" \
	test "$(cdbs_dry 'DEB_DH_ELFPMD_ARGS=--no-prime-list' DEB_DH_ELFPMD_ARGS_ALL=-v "DEB_DH_ELFPMD_ARGS_$pkg=-- --rule=kernel")" = "dh_elfpmd -p$pkg -v -- --rule=kernel"
check "cdbs: DEB_ELFPMD_EXCLUDE_ALL and DEB_ELFPMD_EXCLUDE_$pkg" \
	test "$(cdbs_dry DEB_ELFPMD_EXCLUDE_ALL=a "DEB_ELFPMD_EXCLUDE_$pkg=b" DEB_ELFPMD_EXCLUDE=c)" = "dh_elfpmd -p$pkg -X a -X b"
bd=$(cd "$src" && pkg_env make -s -f debian/rules --eval 'print-bd: ; @echo "$(CDBS_BUILD_DEPENDS)"' print-bd 2>/dev/null)
check "cdbs: CDBS_BUILD_DEPENDS names dh-elfpmd ($bd)" grep -q 'dh-elfpmd' <<< "$bd"
# The order of the targets, which elfpmd.mk relies on: a make -n of
# binary-strip/$pkg prints dh_elfpmd after dh_install and before dh_strip.
(cd "$src" && pkg_env make -n -f debian/rules "binary-strip/$pkg") > "$work/cdbs-strip.dry" 2>&1
order=$(grep -oE '^(dh_install|dh_elfpmd|dh_strip) ' "$work/cdbs-strip.dry" | tr -d ' ' | tr '\n' ' ')
check "cdbs: make -n binary-strip/$pkg: dh_install, dh_elfpmd, dh_strip in that order ($order)" \
	test "$order" = "dh_install dh_elfpmd dh_strip "

# ---------------------------------------------------------------------------
# The builds.

reset_log () { rm -f "$work/elfpmd.args" "$work/elfpmd.list"; }

# build_package VARIANT NAME DEB_BUILD_OPTIONS: build VARIANT into $work/NAME
# (.debs, NAME.log, the logged elfpmd runs), unpacked into $work/NAME/x (the
# package), $work/NAME/dbg (its -dbgsym package, if any) and
# $work/NAME/control.
build_package () {
	local v=$1 name=$2 out=$work/$2 deb dbg start
	make_source "$v" || return 1
	reset_log
	mkdir -p "$out"
	start=$(date +%s)
	if ! (cd "$src" && pkg_env DEB_BUILD_OPTIONS="$3" DH_VERBOSE=1 dpkg-buildpackage -b -uc -us) > "$out.log" 2>&1; then
		fail "$name: dpkg-buildpackage failed (DEB_BUILD_OPTIONS=$3)"
		tail -15 "$out.log" | sed 's/^/      /'
		return 1
	fi
	pass "$name: dpkg-buildpackage -b with DEB_BUILD_OPTIONS=$3 ($(( $(date +%s) - start )) s)"
	mv "$work/build/"*.deb "$out/" && { mv "$work/build/"*.ddeb "$out/" 2>/dev/null; true; } \
		&& { cp -p "$work/elfpmd.args" "$work/elfpmd.list" "$out/" 2>/dev/null; true; }
	deb=$(ls "$out/${pkg}_"*.deb 2>/dev/null | head -1)
	dbg=$(ls "$out/$pkg-dbgsym_"*.deb "$out/$pkg-dbgsym_"*.ddeb 2>/dev/null | head -1)
	[ -n "$deb" ] || { fail "$name: no ${pkg}_*.deb built: $(ls "$out")"; return 1; }
	dpkg-deb -x "$deb" "$out/x" && dpkg-deb -e "$deb" "$out/control" \
		|| { fail "$name: cannot unpack $deb"; return 1; }
	if [ -n "$dbg" ]; then
		dpkg-deb -x "$dbg" "$out/dbg" || fail "$name: cannot unpack $dbg"
	fi
}

# first_line REGEX FILE: the number of FILE's first line matching the
# extended REGEX (0: none).
first_line () { grep -nE -m1 -- "$1" "$2" | cut -d: -f1 | grep . || echo 0; }
# in_order FILE REGEX...: each REGEX's first line in FILE comes after the
# previous one's (all found).
in_order () {
	local file=$1 prev=0 n
	shift
	for re in "$@"; do
		n=$(first_line "$re" "$file")
		[ "$n" -gt "$prev" ] || return 1
		prev=$n
	done
}

have_elflint=false
have eu-elflint && have_elflint=true || skip "eu-elflint not found (package elfutils): lint not checked"
elfs="usr/bin/$pkg usr/lib/lib$pkg.so.1"
ref=

# check_variant VARIANT: build it with elfpmd (and, but for divert, with
# noelfpmd) and check the results.
check_variant () {
	local v=$1 A=$work/$1 B=$work/$1-noelfpmd f id d dbgdir
	build_package "$v" "$v" "parallel=2" || return
	if [ "$v" != divert ]; then
		build_package "$v" "$v-noelfpmd" "parallel=2 noelfpmd" || return
		[ "$v" = cdbs ] && exclude_all
	else
		B=$work/cdbs-noelfpmd
	fi

	# Where elfpmd ran.
	local log=$A.log elfpmd_re="\| $work/bin/elfpmd-logged --json --no-sync --files-from=- -0 -j 2\$"
	case $v in
	cdbs|divert)
		check "$v: the package's post-install hook, dh_elfpmd, elfpmd, dh_strip, in that order" \
			in_order "$log" "^post-install hook of $pkg\$" "^dh_elfpmd -p$pkg *\$" "$elfpmd_re" "^dh_strip -p$pkg( |\$)" "objcopy --only-keep-debug"
		check "$v: dh_elfpmd ran once" test "$(grep -c "^dh_elfpmd " "$log")" -eq 1
		check "$v: dh_strip, dh_makeshlibs, dh_shlibdeps, dh_md5sums after dh_elfpmd" \
			in_order "$log" "$elfpmd_re" "^dh_strip " "^dh_makeshlibs " "^dh_shlibdeps " "^dh_md5sums " ;;
	debhelper)
		check "$v: dh_dwz, dh_elfpmd, elfpmd, dh_strip, in that order" \
			in_order "$log" "^dh_dwz -a\$" "^dh_elfpmd -a\$" "$elfpmd_re" "^dh_strip -a\$" "objcopy --only-keep-debug"
		check "$v: dh_makeshlibs, dh_shlibdeps, dh_md5sums after dh_elfpmd" \
			in_order "$log" "$elfpmd_re" "^dh_makeshlibs -a\$" "^dh_shlibdeps -a\$" "^dh_md5sums -a\$" ;;
	plain)
		elfpmd_re="\| $work/bin/elfpmd-logged -q --machine=host -j 2 --files-from=- -0\$"
		check "$v: make install, elfpmd, then objcopy --only-keep-debug and strip" \
			in_order "$log" "make install DESTDIR=" "$elfpmd_re" "objcopy --only-keep-debug" ;;
	esac
	check "$v: one elfpmd run" test "$(wc -l < "$A/elfpmd.args" 2>/dev/null)" = 1
	check "$v: elfpmd was given the program and the library" \
		holds_names "$A/elfpmd.list" "usr/bin/$pkg" "usr/lib/lib$pkg.so.1"
	check "$v-noelfpmd: no elfpmd run" test ! -e "$B/elfpmd.args"

	# The ELF files.
	for f in $elfs; do
		if text_aligned "$A/x/$f"; then
			pass "$v: $f: text $(describe_text "$A/x/$f")"
		else
			fail "$v: $f: text not aligned: $(describe_text "$A/x/$f")"
		fi
		if [ "$v" != divert ]; then
			if text_aligned "$B/x/$f"; then
				fail "$v-noelfpmd: $f: text aligned all the same: $(describe_text "$B/x/$f")"
			else
				pass "$v-noelfpmd: $f: text not aligned: $(describe_text "$B/x/$f")"
			fi
		fi
		$have_elflint && elflint_no_worse "$v: $f" "$A/x/$f" "$B/x/$f" "unaligned build"
		# The debug file: made from the rewritten file, whose build-id is
		# not the unaligned build's (elfpmd derives a new one).
		id=$(build_id "$A/x/$f")
		if [ -z "$id" ]; then
			fail "$v: $f has no build-id note"
			continue
		fi
		check "$v: $f has another build-id than the unaligned build's ($id)" test "$id" != "$(build_id "$B/x/$f")"
		dbgdir=$A/dbg
		[ "$v" = plain ] && dbgdir=$A/x
		d=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ ! -f "$dbgdir/$d" ]; then
			fail "$v: $f: no $d in the ${dbgdir##*/} package"
		elif [ "$(build_id "$dbgdir/$d")" != "$id" ]; then
			fail "$v: $f: $d has build-id $(build_id "$dbgdir/$d")"
		elif [ "$(text_load "$dbgdir/$d" | cut -d' ' -f1,3)" != "$(text_load "$A/x/$f" | cut -d' ' -f1,3)" ]; then
			fail "$v: $f: $d's text is not the shipped file's: $(describe_text "$dbgdir/$d"), shipped $(describe_text "$A/x/$f")"
		else
			pass "$v: $f: $d has its build-id and its text's p_align and p_vaddr ($(describe_text "$dbgdir/$d"))"
		fi
	done

	# The program runs and prints what the unaligned one prints.
	run_prog "$A/x" > "$A.run"
	run_prog "$B/x" > "$B.run"
	[ -n "$ref" ] || ref=$B.run
	if grep -qE "^$pkg: ok [0-9]+\$" "$B.run" && grep -qx 'exit status 0' "$B.run"; then
		check "$v: the program prints what the unaligned build's prints, exits 0" cmp -s "$A.run" "$ref"
	else
		skip "$v: the unaligned program does not run here: $(tr '\n' ' ' < "$B.run")"
	fi
	(cd "$A/x" && md5sum --quiet -c "$A/control/md5sums") > "$A.md5" 2>&1 \
		&& pass "$v: DEBIAN/md5sums matches the rewritten files" || fail "$v: md5sums: $(head -3 "$A.md5")"
}

# holds_names LIST NAME...: the NUL-terminated LIST has a name ending in
# each /NAME.
holds_names () {
	local list=$1 n
	shift
	[ -f "$list" ] || return 1
	for n in "$@"; do
		tr '\0' '\n' < "$list" | grep -q -- "/$n\$" || return 1
	done
}

# exclude_all: an exclusion that covers everything (the doc's way out of
# the diversion): in the tree a build left, dh_elfpmd -X / finds no file,
# without it it would run elfpmd.
exclude_all () {
	(cd "$src" && pkg_env dh_elfpmd -p"$pkg" --no-act -v) > "$work/exclude-none.out" 2>&1
	(cd "$src" && pkg_env dh_elfpmd -p"$pkg" --no-act -v -X /) > "$work/exclude-all.out" 2>&1
	holds "dh_elfpmd -X / finds no file (without it, it would run elfpmd)" \
		'grep -q elfpmd-logged "$work/exclude-none.out" && ! grep -q elfpmd-logged "$work/exclude-all.out"'
}

for v in cdbs divert debhelper plain; do
	check_variant "$v"
done

finish
