# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# rpm-lib.sh: what the RPM tests (tests/run-rpm-*.sh,
# run-packages-rpm-install.sh) share, sourced after lib.sh: the spec of the
# test package (tests/pkg/upstream), the macro paths that leave this
# machine's /etc/rpm out, the package builds made once and inspected by many
# scripts (rpm_built), and readings of the packages' files.
#
# The shared builds, in $RPM_BUILT=$TESTS_BUILDDIR/rpm-built (rpm_built),
# all in the same _topdir (so that they see the same paths), with the
# hook's macros and brp-elfpmd from the source tree (rpmbuild --load):
#   hook     the test package built with the hook (-j 3 by
#            %_smp_build_ncpus, not this machine's CPU count);
#   optout   the same with %global __brp_elfpmd %{nil} in the spec;
#   madvise  as hook, with %_elfpmd_options --madvise (the startup stub).
# Each build NAME leaves $RPM_BUILT/NAME.log (rpmbuild's output) and
# $RPM_BUILT/NAME/: status ("ok", or what went wrong), built (the PASS
# line's text), the .rpms; and the package extracted in $RPM_BUILT/x-NAME,
# its debuginfo package in $RPM_BUILT/xd-NAME.

# write_spec FILE OPTOUT: the spec of the test package, with "%global
# __brp_elfpmd %{nil}" when OPTOUT is true; with %caps on the program when
# $caps is true (rpm has rpmlib(FileCaps)), with %debug_package when
# $debuginfo is true (find-debuginfo is there).
write_spec () {
	local cap=
	$caps && cap='%caps(cap_net_raw=ep) '
	{
		cat <<'EOF'
Name:           elfpmd-pkgtest
Version:        1.0
Release:        1
Summary:        elfpmd packaging test
License:        MIT
Source0:        Makefile
Source1:        bigtext.S
Source2:        prog.c
Source3:        lib.c
EOF
		$2 && echo '%global __brp_elfpmd %{nil}'
		$debuginfo && echo '%debug_package'
		cat <<EOF

%description
tests/pkg/upstream: a PIE and a shared library with 4.5 MiB of text each.

%prep
%setup -q -c -T
cp -p %{SOURCE0} %{SOURCE1} %{SOURCE2} %{SOURCE3} .

%build
make CC="${CC:-cc}" CFLAGS="%{optflags}"

%install
make install DESTDIR=%{buildroot} prefix=%{_prefix} libdir=%{_libdir}
# A mode elfpmd must keep: set-user-ID, from the buildroot (the hard link
# shares it).
chmod 4755 %{buildroot}%{_bindir}/elfpmd-pkgtest
# find-debuginfo and brp-strip take executable files only (brp-elfperms
# then drops the x bits of the library again).
chmod 0755 %{buildroot}%{_libdir}/libelfpmd-pkgtest.so.1

%files
$cap%{_bindir}/elfpmd-pkgtest
$cap%{_bindir}/elfpmd-pkgtest-link
%{_bindir}/elfpmd-pkgtest-alias
%attr(0750,-,-) %{_bindir}/elfpmd-pkgtest-script
%{_libdir}/libelfpmd-pkgtest.so.1
%{_libdir}/libelfpmd-pkgtest.so
EOF
		$2 || printf '%s\n' '' '%posttrans' '%elfpmd_prime %{_bindir}/elfpmd-pkgtest %{_libdir}/libelfpmd-pkgtest.so.1'
	} > "$1"
}

# rpm_require: the requirements of every RPM test: the slow suites, the
# tools, elfpmd (by an absolute name: rpmbuild runs it from elsewhere).
rpm_require () {
	require_slow "RPM packages built with rpmbuild"
	require_elfpmd
	case $ELFPMD in /*) ;; *) ELFPMD=$(pwd)/$ELFPMD ;; esac
	local tool
	for tool in rpm rpmbuild rpm2cpio cpio; do
		have $tool || skip_all "$tool not found (Debian: packages rpm, rpm2cpio and cpio)"
	done
	{ have make && have "${CC:-cc}"; } || skip_all "make or a C compiler not found: cannot build the package"
	require_phdr_dump "$TESTS_BUILDDIR/rpm-built.tools"
}

PMD=$((0x200000))
rpm_dist=$(cd "$TESTS_SRCDIR/../dist/rpm" 2>/dev/null && pwd)
macros=$rpm_dist/macros.elfpmd
brp=$rpm_dist/brp-elfpmd

# rpm_macro_paths DIR: rpm's macro path with copies of macros.elfpmd in
# DIR, for rpm --macros: base_path is rpm's own without this machine's
# /etc/rpm/macros.*, where an installed macros.elfpmd (the /etc/rpm form)
# would be, and without ~/.rpmmacros, so that every rpm and rpmbuild of
# the tests reads base_path or one of the two made from it: etc_path, with
# a copy of macros.elfpmd where rpm looks for /etc/rpm/macros.*, after the
# platform file; dotd_path, with one among /usr/lib/rpm/macros.d's, before
# it.  The copies name the script as make install names it.  Also
# macro_path, rpm's own, and DIR/showrc, rpm --showrc.
rpm_macro_paths () {
	local d=$1
	rpm --showrc > "$d/showrc" 2>&1 || hard_error "rpm --showrc fails"
	macro_path=$(sed -n 's/^Macro path: //p' "$d/showrc")
	[ -n "$macro_path" ] || hard_error "no 'Macro path:' line in rpm --showrc"
	mkdir -p "$d/etc-rpm" "$d/macros.d" "$d/no-etc-rpm"
	sed "s|^%__elfpmd_brp_script[[:space:]].*|%__elfpmd_brp_script	$brp|" "$macros" > "$d/etc-rpm/macros.elfpmd"
	cp "$d/etc-rpm/macros.elfpmd" "$d/macros.d/macros.elfpmd"
	base_path=$(printf '%s' "$macro_path" | sed -e "s|/etc/rpm/macros\\.\\*|$d/no-etc-rpm/macros.*|" -e 's|:~/\.rpmmacros||')
	etc_path=$(printf '%s' "$base_path" | sed "s|$d/no-etc-rpm/macros\\.\\*|$d/etc-rpm/macros.*|")
	dotd_path=$(printf '%s' "$base_path" | sed "s|\\(/usr/lib/rpm/macros\\.d/macros\\.\\*\\)|\\1:$d/macros.d/macros.*|")
	[ "$base_path" != "$macro_path" ] || hard_error "no /etc/rpm/macros.* in the macro path"
	[ "$dotd_path" != "$base_path" ] || hard_error "no /usr/lib/rpm/macros.d/macros.* in the macro path"
}

# rpm_features DIR: debuginfo (find-debuginfo is there: Debian's package
# debugedit) and caps (this rpm has rpmlib(FileCaps), from DIR/showrc)
# true or false, and why not in debuginfo_why and caps_why.
rpm_features () {
	local find_debuginfo
	find_debuginfo=$(rpm --eval '%{__find_debuginfo}')
	debuginfo=false caps=false
	debuginfo_why="$find_debuginfo not found (Debian: package debugedit): no debuginfo package"
	caps_why="this rpm has no rpmlib(FileCaps): no %caps in the spec"
	[ -x "$find_debuginfo" ] && debuginfo=true
	grep -q 'rpmlib(FileCaps)' "$1/showrc" && caps=true
	return 0
}

# rpm_build NAME SPEC RPMBUILD-ARG...: rpmbuild -bb SPEC in $work/top with
# the hook's macros from the source tree, the log in $work/NAME.log; the
# packages are moved to $work/NAME/.  Reads base_path.
rpm_build () {
	local name=$1 spec=$2 rc
	shift 2
	rm -rf "$work/top"
	ELFPMD=$ELFPMD rpmbuild -bb --nodeps --define "_topdir $work/top" --define "_tmppath $work/tmp" \
		--define "_sourcedir $upstream" --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" \
		"$@" "$spec" > "$work/$name.log" 2>&1
	rc=$?
	mkdir -p "$work/$name"
	[ $rc -eq 0 ] && mv "$work/top"/RPMS/*/*.rpm "$work/$name/"
	return $rc
}

# rpm_build_kept NAME WHAT SPEC RPMBUILD-ARG...: rpm_build, then the
# package extracted in $work/x-NAME and its debuginfo package in
# $work/xd-NAME; $work/NAME/status and built (the PASS line's text: WHAT
# and the time) as the head of this file says.
rpm_build_kept () {
	local name=$1 what=$2 t0 x
	shift 2
	t0=$(date +%s.%N)
	if ! rpm_build "$name" "$@"; then
		echo "rpmbuild $what failed" > "$work/$name/status"
		return 1
	fi
	echo "rpmbuild $what ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'))" > "$work/$name/built"
	mkdir -p "$work/x-$name"
	(cd "$work/x-$name" && rpm2cpio "$(main_rpm "$name")" | cpio -idm --quiet) \
		|| { echo "cannot extract $(main_rpm "$name")" > "$work/$name/status"; return 1; }
	for x in "$work/$name/elfpmd-pkgtest-debuginfo-1.0-1."*.rpm; do
		[ -f "$x" ] || continue
		mkdir -p "$work/xd-$name"
		(cd "$work/xd-$name" && rpm2cpio "$x" | cpio -idm --quiet) \
			|| { echo "cannot extract $x" > "$work/$name/status"; return 1; }
	done
	echo ok > "$work/$name/status"
}

# rpm_build_set: the shared builds, in $work.
rpm_build_set () {
	mkdir -p "$work/tmp"
	rpm_macro_paths "$work"
	rpm_features "$work"
	write_spec "$work/hook.spec" false
	write_spec "$work/optout.spec" true
	rpm_build_kept hook "with the hook" "$work/hook.spec" --define '_smp_build_ncpus 3' \
		&& rpm_build_kept optout "with %global __brp_elfpmd %{nil}" "$work/optout.spec" \
		&& rpm_build_kept madvise "with %_elfpmd_options --madvise" "$work/hook.spec" --define '_elfpmd_options --madvise' \
		&& rpm_build_kept minidebug "with --madvise and find-debuginfo -m" "$work/hook.spec" \
			--define '_elfpmd_options --madvise' --define '_include_minidebuginfo 1'
}

# rpm_built: the shared builds made (once, see built_once) in RPM_BUILT,
# made again when the package's sources, the RPM integration, these
# helpers, elfpmd or the packaging tools changed; with debuginfo and caps
# (rpm_features) set.  Fails when a build failed (run-rpm-build.sh says
# why).
upstream=$TESTS_SRCDIR/pkg/upstream
rpm_built () {
	RPM_BUILT=$TESTS_BUILDDIR/rpm-built
	built_once "$RPM_BUILT" "$( { rpm --version; "${CC:-cc}" --version | head -1; ld --version | head -1
		dpkg-query -W -f '${Package} ${Version}\n' rpm debugedit 2>/dev/null; } \
		| content_key "$upstream"/* "$brp" "$macros" "$TESTS_SRCDIR/lib.sh" "$TESTS_SRCDIR/rpm-lib.sh" "$ELFPMD")" \
		eval 'work=$RPM_BUILT; rpm_build_set' || return 1
	rpm_features "$RPM_BUILT"
}

# rpm_need: rpm_built, or a hard error: the script has nothing to look at;
# hook_rpm and optout_rpm the two packages.
rpm_need () {
	rpm_built || hard_error "the rpm builds failed (see $RPM_BUILT.out and run-rpm-build.sh)"
	hook_rpm=$(main_rpm hook)
	optout_rpm=$(main_rpm optout)
}

# main_rpm NAME: the test package built by NAME.
main_rpm () { echo "${RPM_BUILT:-$work}/$1/elfpmd-pkgtest-1.0-1."*.rpm; }

# rpm_elfs: the ELF files of the hooked package, relative to its root.
is_elf () { [ "$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n')" = 7f454c46 ]; }
rpm_elfs () {
	(cd "$RPM_BUILT/x-hook" && find . -type f | sort | while read -r f; do is_elf "$f" && echo "${f#./}"; done | tr '\n' ' ')
}

# text_loads FILE: "ALIGN CONGRUENT" of each executable PT_LOAD of FILE, as
# phdr-dump reads it (ALIGN in hex); CONGRUENT is yes when p_offset = p_vaddr
# (mod 2 MiB).
text_loads () {
	local a o v s
	exec_loads "$1" | while read -r a o v s; do
		printf '0x%x %s\n' "$a" "$([ $(((v - o) % PMD)) -eq 0 ] && echo yes || echo no)"
	done
}

# run_pkg NAME PROGRAM: PROGRAM of the package of build NAME, run from the
# package's files alone; its output and "exit status N".
run_pkg () {
	local x=$RPM_BUILT/x-$1
	LD_LIBRARY_PATH=$x/usr/lib64 timeout 60 "$x/usr/bin/$2" 2>&1
	echo "exit status $?"
}

# rpm_build_id FILE: FILE's build-id.
rpm_build_id () { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1; }

# debuglink_check NAME FILE: FILE's .gnu_debuglink (name, CRC-32) in build
# NAME names a file in usr/lib/debug/DIR-OF-FILE of its debuginfo package
# with that CRC.
debuglink_check () {
	local name=$1 f=$2 got
	if ! have objcopy || ! have python3; then
		skip "$f: objcopy or python3 not found: .gnu_debuglink check skipped"
		return
	fi
	objcopy --dump-section .gnu_debuglink="$work/debuglink" "$RPM_BUILT/x-$name/$f" "$work/debuglink.o" 2>/dev/null \
		|| { fail "$name: $f: no .gnu_debuglink section"; return; }
	got=$(python3 - "$work/debuglink" "$RPM_BUILT/xd-$name/usr/lib/debug/${f%/*}" <<'EOF'
import os, struct, sys, zlib
d = open(sys.argv[1], "rb").read()
name, crc = d.split(b"\0")[0].decode(), struct.unpack("<I", d[-4:])[0]
p = os.path.join(sys.argv[2], name)
real = zlib.crc32(open(p, "rb").read()) if os.path.isfile(p) else None
print(name, "CRC", "matches" if real == crc else "0x%08x, the file's %s" % (crc, real))
EOF
)
	case $got in
	*" CRC matches") pass "$name: $f: .gnu_debuglink: $got" ;;
	*) fail "$name: $f: .gnu_debuglink: $got" ;;
	esac
}

# check_debuginfo NAME: build NAME's debuginfo package has the build-id
# files of the rewritten binaries, provides debuginfo(build-id) for them,
# and their .gnu_debuglink names a file of it with the right CRC.  Writes
# in $work.
check_debuginfo () {
	local name=$1 dbg_rpm f id link
	$debuginfo || skip_all "$debuginfo_why"
	have readelf || skip_all "readelf not found: build-id checks skipped"
	dbg_rpm=$(echo "$RPM_BUILT/$name/elfpmd-pkgtest-debuginfo-1.0-1."*.rpm)
	if [ ! -f "$dbg_rpm" ]; then
		fail "$name: no debuginfo package: $(ls "$RPM_BUILT/$name")"
		return
	fi
	for f in usr/bin/elfpmd-pkgtest usr/lib64/libelfpmd-pkgtest.so.1; do
		id=$(rpm_build_id "$RPM_BUILT/x-$name/$f")
		if [ -z "$id" ]; then fail "$name: $f: no build-id"; continue; fi
		link=$RPM_BUILT/xd-$name/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -f "$link" ] && [ "$(rpm_build_id "$link")" = "$id" ]; then
			pass "$name: $f: the debuginfo package's .build-id/${id:0:2}/${id:2}.debug has build-id $id"
		else
			fail "$name: $f: build-id $id: ${link#"$RPM_BUILT/xd-$name/"} $( [ -e "$link" ] && echo "has build-id $(rpm_build_id "$link")" || echo missing)"
		fi
		check "$name: $f: rpm provides debuginfo(build-id) = $id" \
			grep -q "^debuginfo(build-id) = $id\$" <(rpm -qp --provides "$dbg_rpm")
		debuglink_check "$name" "$f"
	done
}

# prime_bin: in $work/prime-bin, an elfpmd that logs its arguments
# ($work/prime.args) and the names it reads ($work/prime.names), then runs
# the real one.
prime_bin () {
	mkdir -p "$work/prime-bin"
	printf '%s\n' '#!/bin/sh' 'printf "%s\n" "$*" >> "$PRIME_LOG.args"' \
		'tee -a "$PRIME_LOG.names" | "$ELFPMD_REAL" "$@"' > "$work/prime-bin/elfpmd"
	chmod 755 "$work/prime-bin/elfpmd"
}
prime_log_reset () { rm -f "$work/prime.args" "$work/prime.names"; }

# primed_already FILE...: a second elfpmd prime finds all chunks of each FILE
# in PMD-sized folios (SKIP with elfpmd's reason where it cannot prime here).
# Of hard links, the first name only: the check itself primes the file.
primed_already () {
	local f want seen=" "
	for f do
		case $seen in *" $(stat -c %i "$f") "*) continue ;; esac
		seen="$seen$(stat -c %i "$f") "
		"$ELFPMD" prime --json "$f" > "$work/after.json" 2>&1
		want=$(ideal_chunks "$f")
		if grep -q '"reason":null' "$work/after.json"; then
			check "${f#"$work/"}: all $want chunks in PMD-sized folios already ($(cat "$work/after.json"))" \
				grep -q "\"chunks\":$want,\"pmd_folios\":$want,\"already\":$want,\"primed\":0," "$work/after.json"
		else
			skip "${f#"$work/"}: elfpmd prime cannot prime here: $(cat "$work/after.json")"
		fi
	done
}

# rpm_macros_setup: for the tests of the macros by rpm --eval, in $work:
# rpm_macro_paths, plain (the platform's %__os_install_post, empty lines
# dropped) and brp_line (%__brp_elfpmd, the script with -- and the paths;
# rpm leaves two blanks where the empty %_elfpmd_options was).
rpm_macros_setup () {
	rpm_macro_paths "$work"
	note "macro path: $macro_path"
	plain=$(eval_post --macros "$base_path")
	brp_line=$(rpm --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" --eval '%__brp_elfpmd' | tr -s ' ')
}
# eval_post ARG...: rpm --eval '%__os_install_post' with ARG... before it,
# the empty lines dropped; rpm's stderr in $work/eval.err.
eval_post () {
	rpm "$@" --eval '%__os_install_post' 2>"$work/eval.err" | sed '/^[[:space:]]*$/d'
}
# hooked ARG...: the expansion with the hook is the platform's with
# $brp_line after it, and rpm said nothing on stderr.
hooked () {
	local got want
	got=$(eval_post "$@" | tr -s ' ')
	want=$(echo "$plain" | tr -s ' '; echo "$brp_line")
	[ "$got" = "$want" ] && [ ! -s "$work/eval.err" ] && return 0
	diff <(echo "$want") <(echo "$got") | sed 's/^/      /'
	sed 's/^/      stderr: /' "$work/eval.err"
	return 1
}
# plain_again ARG...: the expansion is the platform's alone, and rpm said
# nothing on stderr.
plain_again () {
	local got
	got=$(eval_post "$@")
	[ "$got" = "$plain" ] && [ ! -s "$work/eval.err" ] && return 0
	diff <(echo "$plain") <(echo "$got") | sed 's/^/      /'
	sed 's/^/      stderr: /' "$work/eval.err"
	return 1
}
