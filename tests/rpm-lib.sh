# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# rpm-lib.sh: what the RPM tests (run-rpm.sh, run-packages.sh) share,
# sourced after lib.sh: the spec of the test package (tests/pkg/upstream).

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
