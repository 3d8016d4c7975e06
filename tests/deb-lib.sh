# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# deb-lib.sh: what the Debian packaging tests (run-deb.sh, run-deb-rules.sh)
# share, sourced after lib.sh with $work set: the in-tree debhelper
# integration where a package build finds it, a logging elfpmd, the
# environment of a package build, the test package's control files, and
# readings of its files (text alignment by phdr-dump, build-id, a run).

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

# deb_source SRC TEST: the test package $pkg in SRC, as TEST builds it: the
# upstream Makefile build (tests/pkg/upstream but its CMakeLists.txt) with a
# debian/rules that runs a plain "dh $@" (the add-on comes from
# DH_EXTRA_ADDONS, as a distribution turns it on for every package) and
# installs with the upstream Makefile.
deb_source () {
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
