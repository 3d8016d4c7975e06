#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# The debhelper integration (dist/debhelper/): dh_elfpmd and the elfpmd
# sequence add-on, used as a package uses them, straight from the source
# tree: PATH and PERL5LIB point at copies of dh_elfpmd and elfpmd.pm, and
# ELFPMD at a wrapper that logs its arguments and the names it reads, then
# runs the built elfpmd.  Nothing needs to be installed.
#
#  1. The add-on puts dh_elfpmd between dh_dwz and dh_strip, and
#     dh_elfpmd_buildtree / dh_elfpmd_buildtree_restore around dh_auto_test
#     (dh --no-act), also through DH_EXTRA_ADDONS; --without takes it out.
#  2. dpkg-buildpackage builds tests/pkg/upstream (a PIE and a shared library
#     with 4.5 MiB of text each, a hard link, a symlink, a script) twice in
#     the same directory: with the add-on (DEB_BUILD_OPTIONS=parallel=2) and
#     with noelfpmd.  In the .debs: the ELF files of the first are aligned
#     (phdr-dump: text p_align 2 MiB, offset congruent with address; the
#     bytes are the second build's with holes), the second's are not;
#     eu-elflint; the program runs and prints the same; hard link, symlinks,
#     script, modes (set-user-ID) and md5sums kept; the -dbgsym package's
#     build-id files match the rewritten binaries.  The package's own test
#     (make check) ran the rewritten files (copies it kept); the source's
#     prebuilt ELF files (old, or tracked by git) are left alone.
#  3. dh_elfpmd by hand in the second build's tree: --no-act, -X (one name of
#     a hard link), -- --madvise, parallel=N, nostrip, noelfpmd, a file
#     elfpmd fails on (a warning; --strict and elfpmd=strict fail), a stub
#     refused (TEXTREL: a warning with the reason), elfpmd=... options in
#     DEB_BUILD_OPTIONS (one not passed on is an error), the warning for
#     DH_EXTRA_ADDONS without elfpmd in DEB_BUILD_OPTIONS, an elfpmd that
#     cannot run, and what is left alone:
#     usr/lib/debug, .build-id, another machine's ELF file, a FIFO,
#     Architecture: all and udeb packages.
#  4. Install-time priming: the aligned build's package carries the prime
#     list usr/lib/elfpmd/prime.d/PACKAGE:ARCH.list naming exactly its regular ELF
#     files with whole PMD chunks of text (found in dpkg-deb -c and counted
#     by phdr-dump, not by elfpmd), the noelfpmd build none; dh_elfpmd
#     --no-prime-list writes none.  Then, with dpkg --root into a scratch root
#     (an empty dpkg database there, maintainer scripts run without chroot
#     and DPKG_ROOT set: nothing of this machine's is touched), a package of
#     dist/debian/elfpmd.triggers and elfpmd.postinst is installed (dpkg-deb
#     -I shows its triggers file; dpkg registers the file trigger), then the
#     aligned package: dpkg runs the trigger, the postinst runs elfpmd prime
#     -q -T - on the list's paths from the root, and a second prime finds
#     every chunk in PMD-sized folios already (where file THP works here;
#     skipped with elfpmd's reason otherwise).  The postinst by hand: no new
#     list, nothing run; a list written anew is primed again; no elfpmd in
#     PATH, exit 0.  A file of the package converted by hand with the root's
#     manifest, and a file outside the root listed in that manifest too (what
#     an image's manifest can name): when dpkg installs the package over the
#     first and the second is changed, the trigger does not reapply under
#     DPKG_ROOT (it says so on standard error, elfpmd reapply is not run,
#     neither file is converted); the sanity arm: elfpmd reapply on that
#     manifest, as the postinst ran it before, converts the file outside the
#     root.
#  5. Multi-Arch: same: a library package built for amd64 and for i386
#     (gcc -m32), each aligned by dh_elfpmd for its architecture, installs
#     side by side with dpkg --root (two per-architecture prime lists); the
#     same pair with one shared list name, as before, is refused by dpkg.  Removing the package removes the list, primes nothing.
#  6. A distribution's switch (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS
#     elfpmd=madvise) on a CMake package (tests/pkg/upstream/CMakeLists.txt:
#     out of the tree, ctest, an RPATH cmake's install edits): the
#     .buildinfo records the options, ctest ran the stubbed files, the build
#     tree is as built again, the .deb's files are aligned with the stub and
#     run as the noelfpmd build's; the -dbgsym debug files have the stub's
#     section: eu-unstrip joins them, gdb loads them without a warning; the
#     stubbed program runs under systemd 252's @system-service allow-list.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "Debian packages built with debhelper"
require_elfpmd
page_cache_lock

have dpkg-buildpackage || skip_all "dpkg-buildpackage not found (Debian: package dpkg-dev)"
have dpkg-checkbuilddeps || skip_all "dpkg-checkbuilddeps not found (Debian: package dpkg-dev)"
have dpkg-deb || skip_all "dpkg-deb not found (Debian: package dpkg)"
have dh || skip_all "dh not found (Debian: package debhelper)"
have make || skip_all "make not found"
have cc || skip_all "no C compiler (cc)"

upstream=$TESTS_SRCDIR/pkg/upstream
work=$TESTS_BUILDDIR/deb-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
# The work directory is kept when something failed, for a look at the logs.
trap 'umount -l "$work/root/var/lib/elfpmd" 2>/dev/null; [ "$n_fail" -eq 0 ] && rm -rf "$work" || echo "      (kept $work)"' EXIT
require_phdr_dump "$work/tools"

# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools

# logged_args / logged_names: what the logging elfpmd was given since the
# last reset_log (arguments one run a line; names one a line, as given).
reset_log () { rm -f "$work/elfpmd.args" "$work/elfpmd.list"; }
logged_args () { cat "$work/elfpmd.args" 2>/dev/null; }
logged_names () { [ -f "$work/elfpmd.list" ] && tr '\0' '\n' < "$work/elfpmd.list"; }

# The source package: the upstream tree plus a debian/ directory.
pkg=elfpmd-pkgtest
src=$work/build/$pkg-1.0
# make_source [cmake]: the Makefile build (in the source tree, dh ... --with
# elfpmd), or with cmake the CMake build (out of the tree, in obj-TRIPLET,
# tested by ctest) that turns the add-on on only through DH_EXTRA_ADDONS,
# as a distribution does.  The source has prebuilt ELF files of its own,
# which dh_elfpmd_buildtree must leave alone: testdata/old.so, as old as
# a tarball's file, and testdata/tracked.so, new but tracked by git.
make_source () {
	rm -rf "$work/build"
	mkdir -p "$src/debian/source" "$src/testdata" && cp "$upstream"/* "$src/" && chmod -R u+w "$src" || return 1
	[ "${1:-}" = cmake ] || rm "$src/CMakeLists.txt"
	cc -shared -DNAME=prebuilt_text -o "$src/testdata/old.so" "$upstream/bigtext.S" \
		&& touch -d '2020-01-01 00:00:00' "$src/testdata/old.so" || return 1
	if have git; then
		cp "$src/testdata/old.so" "$src/testdata/tracked.so" \
			&& (cd "$src" && git init -q && git add testdata/tracked.so) || return 1
	fi
	echo '3.0 (native)' > "$src/debian/source/format"
	deb_control "$src" "debhelper-compat (= 13)" run-deb.sh
	# An unusual mode (set-user-ID, not executable by others) that both the
	# rewrite and the hard link must keep.
	if [ "${1:-}" = cmake ]; then
		printf '%s\n' '#!/usr/bin/make -f' '%:' '	dh $@ --buildsystem=cmake' > "$src/debian/rules"
		chmod 755 "$src/debian/rules"
		return
	fi
	cat > "$src/debian/rules" <<'EOF'
#!/usr/bin/make -f
%:
	dh $@ --with elfpmd

override_dh_auto_install:
	$(MAKE) install DESTDIR=$(CURDIR)/debian/elfpmd-pkgtest prefix=/usr

override_dh_fixperms:
	dh_fixperms
	chmod 4754 debian/elfpmd-pkgtest/usr/bin/elfpmd-pkgtest
EOF
	chmod 755 "$src/debian/rules"
}
make_source || hard_error "cannot create the source package in $src"
(cd "$src" && dpkg-checkbuilddeps) > "$work/builddeps.out" 2>&1 \
	|| skip_all "build dependencies missing: $(tr '\n' ' ' < "$work/builddeps.out")"

# ---------------------------------------------------------------------------
# 1. The place in the sequence.

# next_after COMMAND FILE: the dh command that follows COMMAND in the
# command lines of dh output FILE.
next_after () { awk -v c="$1" '$1 ~ /^dh_/ { if (prev == c) { print $1; exit } prev = $1 }' "$2"; }
(cd "$src" && pkg_env dh binary --no-act --with elfpmd) > "$work/seq.out" 2>&1
check "dh binary --with elfpmd: dh_elfpmd right after dh_dwz" test "$(next_after dh_dwz "$work/seq.out")" = dh_elfpmd
check "dh binary --with elfpmd: dh_strip right after dh_elfpmd" test "$(next_after dh_elfpmd "$work/seq.out")" = dh_strip
check "dh binary --with elfpmd: dh_makeshlibs right after dh_strip" test "$(next_after dh_strip "$work/seq.out")" = dh_makeshlibs
check "dh binary --with elfpmd: dh_elfpmd_buildtree right after dh_auto_build, before dh_auto_test" \
	test "$(next_after dh_auto_build "$work/seq.out") $(next_after dh_elfpmd_buildtree "$work/seq.out")" = "dh_elfpmd_buildtree dh_auto_test"
(cd "$src" && pkg_env DH_EXTRA_ADDONS=elfpmd dh binary --no-act) > "$work/seq-extra.out" 2>&1
check "DH_EXTRA_ADDONS=elfpmd: dh_elfpmd right before dh_strip, dh_elfpmd_buildtree before dh_auto_test" \
	test "$(next_after dh_elfpmd "$work/seq-extra.out") $(next_after dh_elfpmd_buildtree "$work/seq-extra.out")" = "dh_strip dh_auto_test"
(cd "$src" && pkg_env DH_EXTRA_ADDONS=elfpmd dh binary --no-act --without elfpmd) > "$work/seq-without.out" 2>&1
(cd "$src" && pkg_env dh binary --no-act) > "$work/seq-plain.out" 2>&1
if grep -q '^ *dh_strip' "$work/seq-without.out" && ! grep -q dh_elfpmd "$work/seq-without.out" \
	&& grep -q '^ *dh_strip' "$work/seq-plain.out" && ! grep -q dh_elfpmd "$work/seq-plain.out"; then
	pass "without the add-on, or with --without elfpmd, no dh_elfpmd"
else
	fail "dh_elfpmd in a sequence without the add-on"
	cat "$work/seq-without.out" "$work/seq-plain.out" | grep -E 'strip|elfpmd|rror' | sed 's/^/      /'
fi

# ---------------------------------------------------------------------------
# 2. Two package builds, with and without elfpmd.

# build_package NAME DEB_BUILD_OPTIONS [cmake [VAR=VALUE...]]: build the package in $src into
# $work/NAME (.debs, NAME.log, the logged elfpmd runs), unpack it into
# $work/NAME/x (the package), $work/NAME/dbg (the -dbgsym package) and
# $work/NAME/control, and list it into $work/NAME/contents.  The source tree
# stays for part 3.
build_package () {
	local name=$1 out=$work/$1 opts=$2 deb dbg start
	shift 2
	make_source "${1:-}" || return 1
	[ $# -gt 0 ] && shift
	sig_old=$(file_signature "$src/testdata/old.so")
	sig_tracked=$(file_signature "$src/testdata/tracked.so" 2>/dev/null)
	reset_log
	mkdir -p "$out"
	start=$(date +%s)
	if ! (cd "$src" && pkg_env DEB_BUILD_OPTIONS="$opts" DH_VERBOSE=1 "$@" dpkg-buildpackage -b -uc -us) > "$out.log" 2>&1; then
		fail "$name: dpkg-buildpackage failed (DEB_BUILD_OPTIONS=$opts)"
		tail -15 "$out.log" | sed 's/^/      /'
		return 1
	fi
	pass "$name: dpkg-buildpackage -b with DEB_BUILD_OPTIONS=$opts $* ($(( $(date +%s) - start )) s)"
	mv "$work/build/"*.deb "$out/" && { mv "$work/build/"*.ddeb "$work/build/"*.buildinfo "$out/" 2>/dev/null; true; } \
		&& cp -p "$work/elfpmd.args" "$work/elfpmd.list" "$out/" 2>/dev/null
	# What the package's tests ran (the upstream check target's copies).
	[ -d "$src/tested" ] && cp -pr "$src/tested" "$out/tested"
	for t in "$src"/obj-*/tested; do [ -d "$t" ] && cp -pr "$t" "$out/tested"; done
	check "$name: the source's prebuilt testdata/old.so left alone" test "$sig_old" = "$(file_signature "$src/testdata/old.so")"
	[ -z "$sig_tracked" ] || check "$name: the source's prebuilt testdata/tracked.so (new, tracked by git) left alone" \
		test "$sig_tracked" = "$(file_signature "$src/testdata/tracked.so")"
	deb=$(ls "$out/${pkg}_"*.deb 2>/dev/null | head -1)
	dbg=$(ls "$out/$pkg-dbgsym_"*.deb "$out/$pkg-dbgsym_"*.ddeb 2>/dev/null | head -1)
	[ -n "$deb" ] || { fail "$name: no ${pkg}_*.deb built: $(ls "$out")"; return 1; }
	dpkg-deb -x "$deb" "$out/x" && dpkg-deb -e "$deb" "$out/control" && dpkg-deb -c "$deb" > "$out/contents" \
		|| { fail "$name: cannot unpack $deb"; return 1; }
	if [ -n "$dbg" ]; then
		dpkg-deb -x "$dbg" "$out/dbg" && dpkg-deb -f "$dbg" Build-Ids > "$out/build-ids" \
			|| fail "$name: cannot unpack $dbg"
	fi
}

# no_debuglink FILE NAME: a copy of FILE (its name printed) with its
# .gnu_debuglink zeroed: the debug file dh_strip makes of a rewritten file
# describes its layout, so it is another file than the noelfpmd build's,
# with another CRC, and named by another build-id.
no_debuglink () {
	local out=$work/nodebuglink.$2 off size
	cp "$1" "$out" || return 1
	read -r off size < <(readelf -SW "$out" | awk '$2 == ".gnu_debuglink" { print $5, $6; exit }')
	[ -n "$off" ] && head -c $(( 0x$size )) /dev/zero | dd of="$out" bs=1 seek=$(( 0x$off )) conv=notrunc status=none
	echo "$out"
}

# listing FILE: dpkg-deb -c output without sizes and dates: modes, owners,
# names and link targets.
listing () { awk '{ $3 = ""; $4 = ""; $5 = ""; print }' "$1"; }

elfs="usr/bin/$pkg usr/lib/lib$pkg.so.1"
A=$work/aligned
B=$work/noelfpmd
built=true
build_package aligned "parallel=2" || built=false
$built && { build_package noelfpmd "parallel=2 noelfpmd" || built=false; }
if ! $built; then
	finish
fi

# What dh_elfpmd_buildtree and dh_elfpmd ran: one elfpmd for the build
# tree (before the tests), one for the package, with the options, on all
# names of the ELF files (symlinks, the script, debug files, the objects
# and the source's own files left out).
elfpmd_args="--json --no-sync --files-from=- -0"
check "aligned: two elfpmd runs (build tree with -p and the stash as --known-links, package) with $elfpmd_args -j 2" \
	test "$(cat "$A/elfpmd.args" 2>/dev/null)" = "$elfpmd_args -j 2 -p --known-links=debian/.debhelper/elfpmd/buildtree"$'\n'"$elfpmd_args -j 2"
# The stash keeps a hard link of each file of the build tree: elfpmd is told
# so, and the log has no warning about it (it had one per file before).
check "aligned: the build log has no warning about a hard link keeping the old contents" \
	sh -c "! grep -q 'hard link.*keep.*the old contents' '$A.log'"
printf '%s\n' "./$pkg" "./lib$pkg.so.1" "debian/$pkg/usr/bin/$pkg" "debian/$pkg/usr/bin/$pkg-link" "debian/$pkg/usr/lib/lib$pkg.so.1" > "$work/want-build.list"
if [ -f "$A/elfpmd.list" ] && tr '\0' '\n' < "$A/elfpmd.list" | cmp -s - "$work/want-build.list"; then
	pass "aligned: elfpmd was given the build tree's two ELF files, then the package's three names of two, sorted, NUL-terminated"
else
	fail "aligned: elfpmd was given: $( [ -f "$A/elfpmd.list" ] && tr '\0' ' ' < "$A/elfpmd.list")"
fi
grep -v '^\./' "$work/want-build.list" > "$work/want.list"
grep -qF -- "| $work/bin/elfpmd-logged $elfpmd_args -j 2" "$A.log" \
	&& pass "aligned: DH_VERBOSE shows the elfpmd command" || fail "aligned: no elfpmd command line in $A.log"
grep -E '^   dh_[a-z_]+( |$)' "$A.log" > "$work/ran"
check "aligned: dh_elfpmd ran right before dh_strip" test "$(next_after dh_elfpmd "$work/ran")" = dh_strip
check "aligned: dh_elfpmd_buildtree ran right before dh_auto_test, dh_elfpmd_buildtree_restore right after" \
	test "$(next_after dh_elfpmd_buildtree "$work/ran") $(next_after dh_auto_test "$work/ran")" = "dh_auto_test dh_elfpmd_buildtree_restore"
for f in $pkg lib$pkg.so.1; do
	if text_aligned "$A/tested/$f" && ! text_aligned "$B/tested/$f"; then
		pass "aligned: the package's tests ran $f aligned ($(describe_text "$A/tested/$f")), the noelfpmd build's not"
	else
		fail "aligned: the tests ran $f: $(describe_text "$A/tested/$f"); noelfpmd: $(describe_text "$B/tested/$f")"
	fi
done
check "noelfpmd: dh_elfpmd ran" grep -qE '^   dh_elfpmd( |$)' "$B.log"
check "noelfpmd: dh_elfpmd did not run elfpmd" test ! -e "$B/elfpmd.args"

# The ELF files.
have_elflint=false
have eu-elflint && have_elflint=true || skip "eu-elflint not found (package elfutils): lint not checked"
for f in $elfs; do
	if text_aligned "$A/x/$f"; then
		pass "aligned: $f: text $(describe_text "$A/x/$f")"
	else
		fail "aligned: $f: text not aligned: $(describe_text "$A/x/$f")"
	fi
	if text_aligned "$B/x/$f"; then
		fail "noelfpmd: $f: text aligned all the same: $(describe_text "$B/x/$f")"
	else
		pass "noelfpmd: $f: text not aligned: $(describe_text "$B/x/$f")"
	fi
	if "$PHDR_DUMP" --bytemap "$(no_debuglink "$B/x/$f" b)" "$(no_debuglink "$A/x/$f" a)" > "$work/bytemap.out" 2>&1; then
		pass "aligned: $f is the noelfpmd build's with holes: $(head -1 "$work/bytemap.out")"
	else
		fail "aligned: $f is not the noelfpmd build's with holes"
		head -5 "$work/bytemap.out" | sed 's/^/      /'
	fi
	$have_elflint && elflint_no_worse "aligned: $f" "$A/x/$f" "$B/x/$f" "noelfpmd build"
done

# The program runs and prints what the unrewritten one prints.
run_prog "$A/x" > "$work/a.run"
run_prog "$B/x" > "$work/b.run"
if grep -qE "^$pkg: ok [0-9]+\$" "$work/b.run" && grep -qx 'exit status 0' "$work/b.run"; then
	pass "noelfpmd: the program runs: $(head -1 "$work/b.run")"
	cmp -s "$work/a.run" "$work/b.run" && pass "aligned: the program prints the same and exits 0" \
		|| fail "aligned: the program prints $(tr '\n' ' ' < "$work/a.run")"
else
	skip "the unrewritten program does not run here: $(tr '\n' ' ' < "$work/b.run")"
fi

# Hard link, symlinks, script, modes, md5sums.
read -r ino1 n1 < <(stat -c '%i %h' "$A/x/usr/bin/$pkg")
read -r ino2 n2 < <(stat -c '%i %h' "$A/x/usr/bin/$pkg-link")
[ "$ino1" = "$ino2" ] && [ "$n1" = 2 ] && pass "aligned: $pkg-link is still a hard link of $pkg (inode $ino1, 2 links)" \
	|| fail "aligned: hard link lost: inodes $ino1 $ino2, links $n1 $n2"
grep -q "^h.* \./usr/bin/$pkg-link link to \./usr/bin/$pkg\$" "$A/contents" \
	&& pass "aligned: the .deb stores $pkg-link as a hard link" || fail "aligned: no hard link in $(grep "$pkg-link" "$A/contents")"
check "aligned: $pkg-alias is still a symlink to $pkg" test "$(readlink "$A/x/usr/bin/$pkg-alias")" = "$pkg"
check "aligned: lib$pkg.so is still a symlink" test "$(readlink "$A/x/usr/lib/lib$pkg.so")" = "lib$pkg.so.1"
printf '#!/bin/sh\nexec elfpmd-pkgtest "$@"\n' > "$work/want.script"
check "aligned: the script is unchanged" cmp -s "$work/want.script" "$A/x/usr/bin/$pkg-script"
if diff <(listing "$B/contents") <(listing "$A/contents" | grep -v " \./usr/lib/elfpmd/") > "$work/listing.diff"; then
	pass "aligned: modes, owners, names and links as in the noelfpmd build (but for the prime list)"
else
	fail "aligned: the .deb's listing differs from the noelfpmd build's"
	sed 's/^/      /' "$work/listing.diff" | head -10
fi
check "noelfpmd: $pkg is -rwsr-xr-- (the mode check can fail)" grep -q "^-rwsr-xr-- .* \./usr/bin/$pkg\$" "$B/contents"
check "aligned: $pkg is -rwsr-xr--" grep -q "^-rwsr-xr-- .* \./usr/bin/$pkg\$" "$A/contents"
(cd "$A/x" && md5sum --quiet -c "$A/control/md5sums") > "$work/md5.out" 2>&1 \
	&& pass "aligned: DEBIAN/md5sums matches the rewritten files" || fail "aligned: md5sums: $(head -3 "$work/md5.out")"

# The -dbgsym package: its build-id files match the rewritten binaries.
if ! have readelf && ! have eu-readelf; then
	skip "neither readelf nor eu-readelf: build-ids not checked"
elif [ ! -d "$A/dbg" ]; then
	fail "aligned: no $pkg-dbgsym package: $(ls "$A")"
else
	for f in $elfs; do
		id=$(build_id "$A/x/$f")
		if [ -z "$id" ]; then
			fail "aligned: $f has no build-id note"
			continue
		fi
		check "aligned: $f has another build-id than the noelfpmd build's ($id)" test "$id" != "$(build_id "$B/x/$f")"
		d=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -f "$A/dbg/$d" ] && [ "$(build_id "$A/dbg/$d")" = "$id" ]; then
			pass "aligned: $f: the -dbgsym package has $d with that build-id"
		else
			fail "aligned: $f: no $d with build-id $id in the -dbgsym package"
		fi
		check "aligned: $f: the -dbgsym package's Build-Ids lists $id" grep -qw "$id" "$A/build-ids"
	done
fi

# ---------------------------------------------------------------------------
# 3. dh_elfpmd by hand, in the noelfpmd build's tree (its files as dh_strip
# left them, not aligned).
tree=$src/debian/$pkg
mkdir -p "$work/orig"
cp -p "$tree/usr/bin/$pkg" "$tree/usr/lib/lib$pkg.so.1" "$work/orig/" \
	|| hard_error "the noelfpmd build left no $tree"
text_aligned "$tree/usr/bin/$pkg" && fail "the noelfpmd build's tree has an aligned $pkg"

# dh_elfpmd_run NAME [VAR=VALUE...] -- ARG...: run dh_elfpmd ARG... in $src
# (output in $work/NAME.out, status in rc), under a timeout: a FIFO opened
# for reading would block.
dh_elfpmd_run () {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	reset_log
	(cd "$src" && pkg_env "${envs[@]}" timeout 120 dh_elfpmd "$@") > "$work/$name.out" 2>&1
	rc=$?
}
sig_prog=$(file_signature "$tree/usr/bin/$pkg")
sig_link=$(file_signature "$tree/usr/bin/$pkg-link")
sig_lib=$(file_signature "$tree/usr/lib/lib$pkg.so.1")

dh_elfpmd_run noact -- --no-act -v -- --madvise
if [ "$rc" -eq 0 ] && grep -qF -- "| $work/bin/elfpmd-logged $elfpmd_args -j 1 --madvise" "$work/noact.out"; then
	pass "--no-act -v -- --madvise: prints the command, -j 1 without parallel=, --madvise last"
else
	fail "--no-act -v -- --madvise: exit $rc: $(cat "$work/noact.out")"
fi
check "--no-act: elfpmd not run" test ! -e "$work/elfpmd.args"
check "--no-act: files untouched" test "$sig_prog $sig_lib" = "$(file_signature "$tree/usr/bin/$pkg") $(file_signature "$tree/usr/lib/lib$pkg.so.1")"

# -X one name of the hard-linked program, --madvise, parallel=3.
dh_elfpmd_run exclude DEB_BUILD_OPTIONS=parallel=3 -- -X"$pkg-link" -- --madvise
check "-X$pkg-link -- --madvise: exit 0" test "$rc" -eq 0
check "-X$pkg-link -- --madvise: elfpmd run with -j 3 --madvise" test "$(logged_args)" = "$elfpmd_args -j 3 --madvise"
check "-X$pkg-link: only the library given (the hard link stays whole)" test "$(logged_names)" = "debian/$pkg/usr/lib/lib$pkg.so.1"
check "-X$pkg-link: $pkg untouched" test "$sig_prog" = "$(file_signature "$tree/usr/bin/$pkg")"
check "-X$pkg-link: $pkg-link untouched" test "$sig_link" = "$(file_signature "$tree/usr/bin/$pkg-link")"
if text_aligned "$tree/usr/lib/lib$pkg.so.1" && "$ELFPMD" -n --json --madvise "$tree/usr/lib/lib$pkg.so.1" | grep -q '"present":true'; then
	pass "-- --madvise: the library is aligned and has the stub"
else
	fail "-- --madvise: library $(describe_text "$tree/usr/lib/lib$pkg.so.1"), stub: $("$ELFPMD" -n --json --madvise "$tree/usr/lib/lib$pkg.so.1" | grep -o '"stub":{[^}]*}')"
fi
"$PHDR_DUMP" --bytemap "$work/orig/lib$pkg.so.1" "$tree/usr/lib/lib$pkg.so.1" > "$work/bytemap.out" 2>&1 \
	&& pass "-- --madvise: the library is the original with holes and the stub" \
	|| fail "-- --madvise: bytemap: $(head -3 "$work/bytemap.out")"
sig_lib_stub=$(file_signature "$tree/usr/lib/lib$pkg.so.1")

# A file elfpmd fails on: noelfpmd does nothing; otherwise a warning names
# it and its reason, the file is left as it was and the others are
# rewritten; with strictness asked for (dh_elfpmd --strict, or strict in
# DEB_BUILD_OPTIONS's elfpmd=) the build fails.
head -c 8192 "$work/orig/lib$pkg.so.1" > "$tree/usr/lib/libbroken.so.1"
sig_broken=$(file_signature "$tree/usr/lib/libbroken.so.1")
dh_elfpmd_run noelfpmd DEB_BUILD_OPTIONS="parallel=2 noelfpmd" --
check "noelfpmd: exit 0 with a broken file" test "$rc" -eq 0
check "noelfpmd: elfpmd not run" test ! -e "$work/elfpmd.args"
dh_elfpmd_run broken --
if [ "$rc" -eq 0 ] && grep -q "dh_elfpmd: warning: debian/$pkg/usr/lib/libbroken.so.1: elfpmd failed: .*; left as it was" "$work/broken.out"; then
	pass "a truncated library: a warning naming it and its reason, exit 0: $(grep 'warning: .*libbroken' "$work/broken.out")"
else
	fail "a truncated library: exit $rc: $(head -5 "$work/broken.out")"
fi
check "a truncated library: left as it was" test "$sig_broken" = "$(file_signature "$tree/usr/lib/libbroken.so.1")"
check "a truncated library: the program rewritten all the same" text_aligned "$tree/usr/bin/$pkg"
for how in "--strict" "DEB_BUILD_OPTIONS=elfpmd=strict"; do
	case $how in --*) dh_elfpmd_run strict -- "$how" ;; *) dh_elfpmd_run strict "$how" -- ;; esac
	if [ "$rc" -ne 0 ] && grep -q "warning: .*libbroken.so.1: elfpmd failed" "$work/strict.out" \
		&& grep -q "dh_elfpmd: error: 1 file(s) not rewritten as asked (strict" "$work/strict.out"; then
		pass "a truncated library with $how: the build fails (exit $rc), the file named"
	else
		fail "a truncated library with $how: exit $rc: $(head -5 "$work/strict.out")"
	fi
done
rm -f "$tree/usr/lib/libbroken.so.1"

# A refusal: a library with text relocations gets no stub; the warning
# gives elfpmd's reason (and strict would fail).
(cd "$work" && cc -O2 -fno-pic -mcmodel=large -c "$upstream/lib.c" -o textrel.o \
	&& cc -g -DNAME=lib_text -c "$upstream/bigtext.S" -o textrel-text.o \
	&& cc -shared -Wl,-z,notext -o "$tree/usr/lib/libtextrel.so.1" textrel.o textrel-text.o) > "$work/textrel.cc" 2>&1
if [ -f "$tree/usr/lib/libtextrel.so.1" ]; then
	dh_elfpmd_run textrel -- -- --madvise
	if [ "$rc" -eq 0 ] && grep -q "dh_elfpmd: warning: debian/$pkg/usr/lib/libtextrel.so.1: no startup stub: the object has text relocations" "$work/textrel.out"; then
		pass "-- --madvise on a TEXTREL library: exit 0, the refusal in the log: $(grep 'libtextrel' "$work/textrel.out" | head -1)"
	else
		fail "-- --madvise on a TEXTREL library: exit $rc: $(head -5 "$work/textrel.out")"
	fi
	check "-- --madvise on a TEXTREL library: aligned all the same" text_aligned "$tree/usr/lib/libtextrel.so.1"
	rm -f "$tree/usr/lib/libtextrel.so.1"
else
	skip "no TEXTREL library could be linked: $(head -2 "$work/textrel.cc")"
fi

# Options archive-wide: elfpmd=WORD,... in DEB_BUILD_OPTIONS, each passed
# on as --WORD after dh_elfpmd's own; an option dh_elfpmd does not pass on
# is an error naming it; the switch through DH_EXTRA_ADDONS without elfpmd
# in DEB_BUILD_OPTIONS (which .buildinfo records) is warned about.
dh_elfpmd_run buildopts DEB_BUILD_OPTIONS="parallel=2 elfpmd=madvise,rule=kernel,no-pad" -- --no-act -v
check "DEB_BUILD_OPTIONS elfpmd=madvise,rule=kernel,no-pad: passed on as --madvise --rule=kernel --no-pad" \
	grep -qF -- "| $work/bin/elfpmd-logged $elfpmd_args -j 2 --madvise --rule=kernel --no-pad" "$work/buildopts.out"
dh_elfpmd_run badopt DEB_BUILD_OPTIONS="elfpmd=madvise,output=/tmp/x" -- --no-act
if [ "$rc" -ne 0 ] && grep -q 'dh_elfpmd: error: DEB_BUILD_OPTIONS elfpmd=...: "output=/tmp/x" is not an elfpmd option' "$work/badopt.out"; then
	pass "DEB_BUILD_OPTIONS elfpmd=output=...: refused, named (exit $rc)"
else
	fail "DEB_BUILD_OPTIONS elfpmd=output=...: exit $rc: $(head -3 "$work/badopt.out")"
fi
dh_elfpmd_run extra DH_EXTRA_ADDONS=elfpmd -- --no-act
check "DH_EXTRA_ADDONS=elfpmd without elfpmd in DEB_BUILD_OPTIONS: warned" \
	grep -q 'warning: enabled by DH_EXTRA_ADDONS, which .buildinfo does not record' "$work/extra.out"
dh_elfpmd_run extra2 DH_EXTRA_ADDONS=elfpmd DEB_BUILD_OPTIONS=elfpmd -- --no-act
check "DH_EXTRA_ADDONS=elfpmd with elfpmd in DEB_BUILD_OPTIONS: no warning" test "$rc.$(grep -c warning "$work/extra2.out")" = 0.0

# dh_elfpmd_buildtree and dh_elfpmd_buildtree_restore by hand, in the same
# source tree (the noelfpmd build's products are there): nocheck does
# nothing; a run rewrites the two files the build made and keeps them as
# built; a second run (as after tests that failed) puts them back first
# and keeps one stash; the restore puts back the very files (the same
# bytes, times and inodes), also with noelfpmd; without a stash it does
# nothing.
stash=$src/debian/.debhelper/elfpmd/buildtree
rm -rf "$src/tested"    # (the copies the build's make check made)
built_sig () { for f in "$src/$pkg" "$src/lib$pkg.so.1"; do stat -c '%i %s %Y' "$f"; md5sum < "$f"; done; }
sig_built=$(built_sig)
(cd "$src" && pkg_env DEB_BUILD_OPTIONS=nocheck timeout 120 dh_elfpmd_buildtree) > "$work/tree-nocheck.out" 2>&1
check "dh_elfpmd_buildtree with nocheck: exit 0, nothing run, no stash" \
	test "$?.$(logged_args)" = 0. -a ! -e "$stash.list"
reset_log
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree) > "$work/tree1.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(logged_names | tr '\n' ' ')" = "./$pkg ./lib$pkg.so.1 " ] && text_aligned "$src/$pkg" && text_aligned "$src/lib$pkg.so.1"; then
	pass "dh_elfpmd_buildtree: the build's program and library rewritten (not testdata/*.so, not debian/)"
else
	fail "dh_elfpmd_buildtree: exit $rc, given: $(logged_names | tr '\n' ' '): $(head -3 "$work/tree1.out")"
fi
check "dh_elfpmd_buildtree: elfpmd -p kept the files' modification times" \
	test "$(stat -c %Y "$src/$pkg" "$src/lib$pkg.so.1")" = "$(printf '%s\n' "$sig_built" | awk 'NR % 2 == 1 { print $3 }')"
check "dh_elfpmd_buildtree: the stash lists two files" test "$(tr -cd '\0' < "$stash.list" | wc -c)" -eq 4
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree) > "$work/tree2.out" 2>&1
check "dh_elfpmd_buildtree again: exit 0, one stash of two files, still aligned" \
	test "$?.$(ls "$stash" | wc -l).$(text_aligned "$src/$pkg" && echo aligned)" = 0.2.aligned
(cd "$src" && pkg_env DEB_BUILD_OPTIONS=noelfpmd timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-restore.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ "$(built_sig)" = "$sig_built" ] && [ ! -e "$stash" ] && [ ! -e "$stash.list" ]; then
	pass "dh_elfpmd_buildtree_restore (with noelfpmd): the files as built are back (inodes, sizes, times, bytes), the stash gone"
else
	fail "dh_elfpmd_buildtree_restore: exit $rc: $(built_sig | tr '\n' ' ') vs $(printf '%s' "$sig_built" | tr '\n' ' '); $(head -3 "$work/tree-restore.out")"
fi
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-restore2.out" 2>&1
check "dh_elfpmd_buildtree_restore without a stash: exit 0, nothing changed" test "$?.$(built_sig)" = "0.$sig_built"
# Within one second (a build started right after dch): debian/changelog
# written at T.3, the program at T.7 is the build's, the library at T.1 is
# not.  (A comparison in whole seconds took neither.)
for f in debian/changelog $pkg lib$pkg.so.1; do touch -r "$src/$f" "$work/time.${f##*/}"; done
t=$(date +%s)
touch -d "@$t.3" "$src/debian/changelog" && touch -d "@$t.7" "$src/$pkg" && touch -d "@$t.1" "$src/lib$pkg.so.1"
reset_log
(cd "$src" && pkg_env timeout 120 dh_elfpmd_buildtree && pkg_env timeout 120 dh_elfpmd_buildtree_restore) > "$work/tree-second.out" 2>&1
check "dh_elfpmd_buildtree: newer than debian/changelog to the nanosecond (the program at T.7, not the library at T.1, changelog at T.3)" \
	test "$?.$(logged_names | tr '\n' ' ')" = "0../$pkg "
for f in debian/changelog $pkg lib$pkg.so.1; do touch -r "$work/time.${f##*/}" "$src/$f"; done
check "dh_elfpmd_buildtree_restore: the files as built again" test "$(built_sig)" = "$sig_built"
(cd "$src" && pkg_env ELFPMD="$work/no-such-elfpmd" timeout 120 dh_elfpmd) > "$work/missing.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "cannot run $work/no-such-elfpmd" "$work/missing.out" \
	&& pass "an elfpmd that cannot run fails dh_elfpmd (exit $rc)" || fail "missing elfpmd: exit $rc: $(cat "$work/missing.out")"

# What is left alone: usr/lib/debug, .build-id, another machine's ELF file
# (elfpmd itself fails on it: no PMD size for MIPS), a FIFO, and the
# packages of Architecture: all and udeb (added to debian/control now).
mkdir -p "$tree/usr/lib/debug/usr/bin" "$tree/usr/share/$pkg/.build-id/ab" "$tree/usr/lib/firmware"
cp "$work/orig/$pkg" "$tree/usr/lib/debug/usr/bin/$pkg"
cp "$work/orig/$pkg" "$tree/usr/share/$pkg/.build-id/ab/cdef"
cp "$work/orig/$pkg" "$tree/usr/lib/firmware/mips.elf"
printf '\010\000' | dd of="$tree/usr/lib/firmware/mips.elf" bs=1 seek=18 conv=notrunc status=none
"$ELFPMD" -n "$tree/usr/lib/firmware/mips.elf" > /dev/null 2>&1
check "elfpmd itself refuses the MIPS copy named alone (exit 2: a machine without a PMD size)" test $? -eq 2
mkfifo "$tree/usr/share/$pkg/fifo"
cat >> "$src/debian/control" <<EOF

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
EOF
mkdir -p "$src/debian/$pkg-data/usr/bin" "$src/debian/$pkg-udeb/usr/bin"
cp "$work/orig/$pkg" "$src/debian/$pkg-data/usr/bin/$pkg"
cp "$work/orig/$pkg" "$src/debian/$pkg-udeb/usr/bin/$pkg"
left_alone="$tree/usr/lib/debug/usr/bin/$pkg $tree/usr/share/$pkg/.build-id/ab/cdef $tree/usr/lib/firmware/mips.elf
	$src/debian/$pkg-data/usr/bin/$pkg $src/debian/$pkg-udeb/usr/bin/$pkg"
sigs_before=$(for f in $left_alone; do file_signature "$f"; done)

# nostrip does not stop dh_elfpmd.
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
if text_aligned "$tree/usr/bin/$pkg"; then
	pass "$pkg aligned: $(describe_text "$tree/usr/bin/$pkg")"
else
	fail "$pkg not aligned: $(describe_text "$tree/usr/bin/$pkg")"
fi
read -r ino1 n1 m1 < <(stat -c '%i %h %a' "$tree/usr/bin/$pkg")
read -r ino2 n2 < <(stat -c '%i %h' "$tree/usr/bin/$pkg-link")
[ "$ino1" = "$ino2" ] && [ "$n1" = 2 ] && pass "$pkg-link is still a hard link of $pkg" \
	|| fail "hard link lost: inodes $ino1 $ino2, links $n1 $n2"
check "$pkg keeps mode 4754" test "$m1" = 4754
check "the library (aligned with the stub before) is not rewritten again" test "$sig_lib_stub" = "$(file_signature "$tree/usr/lib/lib$pkg.so.1")"

# ---------------------------------------------------------------------------
# 4. Install-time priming.

list_path=usr/lib/elfpmd/prime.d/$pkg:$(dpkg --print-architecture).list
# The regular ELF files of the .deb (hard links after the first name are 'h'
# entries) with at least one whole PMD chunk of text, by phdr-dump.
awk '$1 ~ /^-/ { print $NF }' "$A/contents" | sed 's|^\./||' | sort | while read -r f; do
	[ "$(od -An -tx1 -N4 "$A/x/$f" | tr -d ' \n')" = 7f454c46 ] && [ "$(ideal_chunks "$A/x/$f")" -ge 1 ] && echo "/$f"
done > "$work/want-prime.list"
check "the package's ELF files with whole chunks: $(tr '\n' ' ' < "$work/want-prime.list")" \
	test "$(wc -l < "$work/want-prime.list")" -eq 2
if [ -f "$A/x/$list_path" ] && cmp -s "$A/x/$list_path" "$work/want-prime.list"; then
	pass "aligned: $list_path names exactly those"
else
	fail "aligned: $list_path: $( [ -f "$A/x/$list_path" ] && tr '\n' ' ' < "$A/x/$list_path" || echo missing)"
fi
check "aligned: the list is -rw-r--r-- root/root in the .deb" grep -q "^-rw-r--r-- root/root .* \./$list_path\$" "$A/contents"
check "aligned: the list is in DEBIAN/md5sums" grep -q " $list_path\$" "$A/control/md5sums"
check "noelfpmd: no prime list" test ! -e "$B/x/usr/lib/elfpmd"
# --no-prime-list, by hand in the tree of part 3 (aligned now): no list
# written, one from before left alone; without it, the list is rewritten.
mkdir -p "$tree/usr/lib/elfpmd/prime.d" && echo /stale > "$tree/$list_path"
dh_elfpmd_run noprime -- --no-prime-list
check "--no-prime-list: exit 0, the old list left as it was" test "$rc.$(cat "$tree/$list_path")" = 0./stale
dh_elfpmd_run withprime --
check "without --no-prime-list: the list rewritten: $(tr '\n' ' ' < "$tree/$list_path")" \
	cmp -s "$tree/$list_path" "$work/want-prime.list"
# Names are bytes: "caf\xe9" (not UTF-8) and "café" (UTF-8), two copies of
# the program, come back from elfpmd's JSON as two names, each its exact
# bytes in the list (before file_hex, the first was reported as "café",
# a file dh_elfpmd was not given, and left out).
latin1=$(printf 'caf\351') utf8=$(printf 'caf\303\251')
cp "$tree/usr/bin/$pkg" "$tree/usr/bin/$latin1" && cp "$tree/usr/bin/$pkg" "$tree/usr/bin/$utf8" \
	|| hard_error "cannot copy $pkg to two new names"
dh_elfpmd_run names --
{ cat "$work/want-prime.list"; printf '/usr/bin/%s\n' "$latin1" "$utf8"; } | LC_ALL=C sort > "$work/want-names.list"
if [ "$rc" -eq 0 ] && ! grep -q 'not given' "$work/names.out" \
	&& LC_ALL=C sort "$tree/$list_path" | cmp -s - "$work/want-names.list"; then
	pass "names: caf\\xe9 and café both in the prime list, byte for byte, no warning"
else
	fail "names: exit $rc, list $(od -c "$tree/$list_path" | head -5 | tr '\n' ' '); $(head -3 "$work/names.out")"
fi
rm -f "$tree/usr/bin/$latin1" "$tree/usr/bin/$utf8"
dh_elfpmd_run withprime --

# The elfpmd package's hook, installed with dpkg into a scratch root.
hook=$work/hook
root=$work/root
debian_dist=$TESTS_SRCDIR/../dist/debian
mkdir -p "$hook/DEBIAN" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$work/prime-bin" \
	&& : > "$root/var/lib/dpkg/status" && : > "$root/var/lib/dpkg/available" \
	|| hard_error "cannot create $hook and $root"
cp "$debian_dist/elfpmd.triggers" "$hook/DEBIAN/triggers"
sed '/^#DEBHELPER#$/d' "$debian_dist/elfpmd.postinst" > "$hook/DEBIAN/postinst"
chmod 755 "$hook/DEBIAN/postinst"
printf '%s\n' 'Package: elfpmd-hooktest' 'Version: 1.0' 'Architecture: all' \
	'Maintainer: elfpmd tests <elfpmd-tests@localhost>' \
	"Description: the elfpmd package's trigger and postinst (tests/run-deb.sh)" ' Nothing else.' \
	> "$hook/DEBIAN/control"
# elfpmd in the postinst's PATH: logs its arguments, its directory and the
# names it reads, then runs the real one.
printf '%s\n' '#!/bin/sh' '{ printf "%s\n" "$*"; pwd; } >> "$PRIME_LOG.args"' \
	'tee -a "$PRIME_LOG.names" | "$ELFPMD_REAL" "$@"' > "$work/prime-bin/elfpmd"
chmod 755 "$work/prime-bin/elfpmd"
dpkg-deb --root-owner-group -b "$hook" "$work/hook.deb" > "$work/hook-build.out" 2>&1 \
	|| fail "dpkg-deb --build of the hook package: $(cat "$work/hook-build.out")"
check "dpkg-deb -I: the hook package's triggers file is dist/debian/elfpmd.triggers" \
	cmp -s <(dpkg-deb -I "$work/hook.deb" triggers) "$debian_dist/elfpmd.triggers"
# root_dpkg ARG...: dpkg on the scratch root, maintainer scripts without
# chroot (dpkg sets DPKG_ROOT for them), elfpmd the logging one.
root_dpkg () {
	[ -d "$root/var/lib/dpkg" ] || return 99
	env -u DPKG_ROOT PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" \
		dpkg --root="$root" --force-script-chrootless --force-not-root --force-depends "$@"
}
# run_postinst ARG...: the postinst by hand, as dpkg runs it on the root.
run_postinst () {
	(cd "$root" && env DPKG_ROOT="$root" PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" \
		PRIME_LOG="$work/prime" sh "$debian_dist/elfpmd.postinst" "$@")
}
prime_log_reset () { rm -f "$work/prime.args" "$work/prime.names"; }
prime_log_reset
root_dpkg -i "$work/hook.deb" > "$work/dpkg-hook.out" 2>&1
check "dpkg --root -i the hook package: exit 0 ($(tail -1 "$work/dpkg-hook.out"))" test $? -eq 0
check "dpkg registered the file trigger" grep -qx '/usr/lib/elfpmd/prime.d elfpmd-hooktest/noawait' "$root/var/lib/dpkg/triggers/File"
check "configure: the stamp is set, nothing primed" test -e "$root/var/lib/elfpmd/primed" -a ! -e "$work/prime.args"
aligned_deb=$(ls "$A/${pkg}_"*.deb | head -1)
root_dpkg -i "$aligned_deb" > "$work/dpkg-pkg.out" 2>&1
rc=$?
check "dpkg --root -i the aligned package: exit 0, the trigger ran ($(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-pkg.out"))" \
	test $rc -eq 0 -a "$(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-pkg.out")" = 1
check "the trigger ran elfpmd prime -q -T - once, in the root: $(tr '\n' ' ' < "$work/prime.args" 2>/dev/null)" \
	test "$(cat "$work/prime.args" 2>/dev/null)" = "prime -q -T -
$root"
check "... on the list's paths, relative to the root" \
	test "$(cat "$work/prime.names" 2>/dev/null)" = "$(sed 's|^/||' "$work/want-prime.list")"
while read -r f; do
	"$ELFPMD" prime --json "$root$f" > "$work/after.json" 2>&1
	want=$(ideal_chunks "$root$f")
	if grep -q '"reason":null' "$work/after.json"; then
		check "after the trigger, $f: all $want chunks in PMD-sized folios already ($(cat "$work/after.json"))" \
			grep -q "\"chunks\":$want,\"pmd_folios\":$want,\"already\":$want,\"primed\":0," "$work/after.json"
	else
		skip "$f: elfpmd prime cannot prime here: $(cat "$work/after.json")"
	fi
done < "$work/want-prime.list"
# The trigger again, with no list written since: nothing run.
prime_log_reset
run_postinst triggered /usr/lib/elfpmd/prime.d > "$work/again.out" 2>&1
check "triggered again, no new list: exit 0, elfpmd not run" test $? -eq 0 -a ! -e "$work/prime.args"
# A list written anew (as an upgrade does), one of its files gone, the
# trigger named among others.
cp "$root/$list_path" "$root/$list_path.new" && echo /usr/bin/gone >> "$root/$list_path.new" \
	&& mv "$root/$list_path.new" "$root/$list_path"
run_postinst triggered "other /usr/lib/elfpmd/prime.d" > "$work/new.out" 2>&1
rc=$?
check "a list written anew, a path gone: exit 0, its 3 paths given, nothing printed ($(cat "$work/new.out"))" \
	test "$rc.$(wc -l < "$work/prime.names" 2>/dev/null).$(wc -c < "$work/new.out")" = "0.3.0"
# Without elfpmd: nothing, exit 0.
cp "$root/$list_path" "$root/$list_path.new" && mv "$root/$list_path.new" "$root/$list_path"
(cd "$root" && env DPKG_ROOT="$root" PATH=/usr/bin:/bin sh "$debian_dist/elfpmd.postinst" \
	triggered /usr/lib/elfpmd/prime.d) > "$work/noelfpmd.out" 2>&1
check "no elfpmd in PATH: exit 0 ($(cat "$work/noelfpmd.out"))" test $? -eq 0
# Reapply after an upgrade, under DPKG_ROOT: a file of the installed
# package converted by hand (--madvise) with the root's manifest, and a file
# outside the root (this machine's, as an image's manifest may name) listed
# in it too; dpkg installs the package again (its own bytes over the first),
# the second is changed as an upgrade would change it.  The trigger on
# /usr/bin must not reapply: the manifest's paths would be resolved on this
# system.
f=$(head -1 "$work/want-prime.list")
manifest=$root/var/lib/elfpmd/manifest
host_file=$work/host-prog
stub_in () { "$ELFPMD" -n --json --madvise "$1" 2>/dev/null | grep -q '"present":true'; }
cp "$root$f" "$host_file"
"$ELFPMD" -q --madvise --manifest="$manifest" "$root$f" "$host_file"
check "converted by hand with the root's manifest: the stub in $f and in $host_file" \
	eval 'stub_in "$root$f" && stub_in "$host_file"'
prime_log_reset
root_dpkg -i "$aligned_deb" > "$work/dpkg-again.out" 2>&1
rc=$?
cmp -s "$host_file" "$root$f" || cp "$root$f" "$host_file"
check "dpkg --root -i the package again: exit 0, the trigger ran" \
	test $rc -eq 0 -a "$(grep -c 'Processing triggers for elfpmd-hooktest' "$work/dpkg-again.out")" = 1
check "under DPKG_ROOT the trigger says it does not reapply ($(grep -m1 'not reapplying' "$work/dpkg-again.out"))" \
	grep -q "elfpmd: not reapplying $manifest: DPKG_ROOT is set" "$work/dpkg-again.out"
check "and runs no elfpmd reapply ($(tr '\n' ' ' < "$work/prime.args" 2>/dev/null))" \
	eval '! grep -q "^reapply" "$work/prime.args" 2>/dev/null'
check "after the upgrade, $f is the package's again (no stub)" eval '! stub_in "$root$f"'
cp "$root$f" "$host_file"
run_postinst triggered /usr/bin > "$work/reapply-by-hand.out" 2>&1
rc=$?
check "the postinst by hand under DPKG_ROOT: exit 0, $host_file untouched" \
	eval '[ $rc -eq 0 ] && cmp -s "$host_file" "$root$f"'
# The sanity arm: the reapply the postinst ran before converts the file
# outside the root from the image's manifest.
"$ELFPMD" reapply -q --manifest="$manifest" < /dev/null > "$work/reapply-sanity.out" 2>&1
check "sanity: elfpmd reapply on the root's manifest converts $host_file (outside the root)" stub_in "$host_file"
rm -f "$manifest" "$host_file"

# 5. Multi-Arch: same.  libsynth1 for amd64 and i386 from bigtext.S, each
# tree aligned by dh_elfpmd for its architecture (DEB_HOST_*), and
# packed by dpkg-deb.
ma=$work/multiarch
# synth_deb ARCH VERSION [LISTNAME]: debian/libsynth1 of a source tree of
# its own for ARCH, dh_elfpmd over it, the .deb; with LISTNAME the list is
# renamed to it (the old, shared name) before packing.
synth_deb () {
	local arch=$1 version=$2 rename=${3:-} s=$ma/src-$1-$2 m triplet
	case $arch in amd64) m=-m64 triplet=x86_64-linux-gnu ;; i386) m=-m32 triplet=i386-linux-gnu ;; esac
	mkdir -p "$s/debian/libsynth1/usr/lib/$triplet"
	printf '%s\n' 'Source: libsynth' 'Maintainer: elfpmd tests <elfpmd-tests@localhost>' \
		'Build-Depends: debhelper-compat (= 13)' '' 'Package: libsynth1' 'Architecture: any' \
		'Multi-Arch: same' 'Description: a library with 4.5 MiB of text' ' For tests/run-deb.sh.' \
		> "$s/debian/control"
	cc $m -shared -DNAME=synth_text -o "$s/debian/libsynth1/usr/lib/$triplet/libsynth.so.1" \
		"$upstream/bigtext.S" || return 1
	# (the DEB_HOST_* variables dpkg-buildpackage -aARCH sets)
	local archenv
	mapfile -t archenv < <(dpkg-architecture -a"$arch" 2> /dev/null | grep '^DEB_HOST_')
	(cd "$s" && pkg_env "${archenv[@]}" timeout 120 dh_elfpmd -plibsynth1) > "$s.dh.out" 2>&1 || return 1
	local d=$s/debian/libsynth1/usr/lib/elfpmd/prime.d
	[ -z "$rename" ] || mv "$d/libsynth1:$arch.list" "$d/$rename" || return 1
	mkdir -p "$s/debian/libsynth1/DEBIAN"
	printf '%s\n' 'Package: libsynth1' "Version: $version" "Architecture: $arch" 'Multi-Arch: same' \
		'Maintainer: elfpmd tests <elfpmd-tests@localhost>' 'Description: a library with 4.5 MiB of text' \
		' For tests/run-deb.sh.' > "$s/debian/libsynth1/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$s/debian/libsynth1" "$ma/libsynth1_${version}_$arch.deb" > "$s.deb.out" 2>&1
}
mkdir -p "$ma"
if [ "$(dpkg --print-architecture)" != amd64 ] || ! echo 'int x;' | cc -m32 -c -x c -o "$ma/m32.o" - 2> /dev/null; then
	skip "Multi-Arch: not an amd64 host with gcc -m32 (Debian: gcc-multilib)"
elif ! synth_deb amd64 1.0 || ! synth_deb i386 1.0; then
	fail "Multi-Arch: building libsynth1: $(cat "$ma"/src-*.dh.out "$ma"/src-*.deb.out 2>/dev/null | head -5)"
else
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
	# The same pair with one list name for both (the naming before): dpkg
	# refuses the second, the check that the names matter.
	if synth_deb amd64 0.9 libsynth1.list && synth_deb i386 0.9 libsynth1.list; then
		root_dpkg -i "$ma/libsynth1_0.9_amd64.deb" "$ma/libsynth1_0.9_i386.deb" > "$work/ma-old.out" 2>&1
		rc=$?
		check "one shared list name: dpkg refuses the pair (exit $rc: $(grep -o 'trying to overwrite shared [^,]*' "$work/ma-old.out" | head -1))" \
			grep -q "trying to overwrite shared '/usr/lib/elfpmd/prime.d/libsynth1.list'" "$work/ma-old.out"
		root_dpkg -r libsynth1:amd64 libsynth1:i386 > /dev/null 2>&1
	else
		fail "Multi-Arch: building the old-style pair failed"
	fi
fi

# The postinst never fails dpkg, whatever the disk's state: each state
# under dash (set -e, as dpkg runs it), with a new list waiting.
# postinst_in STATE ARG...: run the postinst by hand with dash, the list
# written anew first; PASS when it exits 0 within 20 s.
postinst_in () {
	local what=$1 out=$work/state.out rc
	shift
	cp "$root/$list_path" "$root/$list_path.new" && mv "$root/$list_path.new" "$root/$list_path"
	(cd "$root" && env DPKG_ROOT="$root" PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" \
		PRIME_LOG="$work/prime" timeout -k 5 20 dash "$debian_dist/elfpmd.postinst" "$@") > "$out" 2>&1
	rc=$?
	check "postinst $* with $what: exit 0 ($rc; $(head -c 200 "$out" | tr '\n' ' '))" test "$rc" -eq 0
}
stampdir=$root/var/lib/elfpmd
if have dash && [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1M,nr_inodes=8 elfpmd-test "$stampdir" 2>/dev/null; then
	# No inode left: the stamp cannot be made.
	i=0
	while : 2>/dev/null > "$stampdir/fill$i"; do i=$((i + 1)); [ $i -lt 100 ] || break; done
	postinst_in "a full /var/lib/elfpmd (no inode left)" triggered /usr/lib/elfpmd/prime.d
	postinst_in "a full /var/lib/elfpmd (no inode left)" configure
	umount "$stampdir"
	# Read-only.
	if mount --bind "$stampdir" "$stampdir" 2>/dev/null; then
		if mount -o remount,ro,bind "$stampdir" 2>/dev/null; then
			postinst_in "a read-only /var/lib/elfpmd" triggered /usr/lib/elfpmd/prime.d
			postinst_in "a read-only /var/lib/elfpmd" configure
		else
			skip "postinst with a read-only /var/lib/elfpmd: cannot remount it read-only here"
		fi
		umount "$stampdir"
	fi
	# A list naming a FIFO: elfpmd prime opens no FIFO, so nothing blocks.
	mkfifo "$root/usr/bin/elfpmd-test-fifo"
	printf '/usr/bin/elfpmd-test-fifo\n' > "$root/usr/lib/elfpmd/prime.d/fifo.list"
	prime_log_reset
	postinst_in "a list naming a FIFO" triggered /usr/lib/elfpmd/prime.d
	rm -f "$root/usr/bin/elfpmd-test-fifo" "$root/usr/lib/elfpmd/prime.d/fifo.list"
else
	skip "postinst in a full or read-only /var: needs dash, root and a tmpfs mount"
fi

# Removing the package removes its list; the trigger runs and primes nothing.
prime_log_reset
root_dpkg -r "$pkg" > "$work/dpkg-remove.out" 2>&1
check "dpkg --root -r the package: exit 0, list gone, elfpmd not run" \
	test $? -eq 0 -a ! -e "$root/$list_path" -a ! -e "$work/prime.args"

# ---------------------------------------------------------------------------
# 6. The distribution's switch on a package of the shape of x265 and
# cppcheck: CMake out of the source tree, a shared library and a program
# linked with it (an RPATH to the build tree that cmake's install removes,
# editing the rewritten file), tested with ctest; debian/rules a plain
# "dh $@ --buildsystem=cmake".  Turned on the way a distribution does:
# DH_EXTRA_ADDONS=elfpmd, options in DEB_BUILD_OPTIONS (elfpmd=madvise).
# The .buildinfo records them; the tests ran the rewritten files; the
# .deb's files are aligned with the stub, run as the noelfpmd build's do;
# the -dbgsym package's debug files describe the stub's section, so that
# eu-unstrip joins each file with its debug file and gdb loads them without
# a warning.
S=$work/switch
SB=$work/switch-noelfpmd
if ! have cmake; then
	skip "the switch build: cmake not found (Debian: package cmake)"
elif build_package switch "parallel=2 elfpmd=madvise" cmake DH_EXTRA_ADDONS=elfpmd \
	&& build_package switch-noelfpmd "parallel=2 noelfpmd" cmake DH_EXTRA_ADDONS=elfpmd; then
	bi=$(ls "$S"/*.buildinfo 2>/dev/null | head -1)
	if [ -n "$bi" ] && grep -qx ' DEB_BUILD_OPTIONS="parallel=2 elfpmd=madvise"' "$bi"; then
		pass "switch: the .buildinfo records the options: $(grep -x ' DEB_BUILD_OPTIONS=.*' "$bi")"
	else
		fail "switch: the .buildinfo ($bi) does not record DEB_BUILD_OPTIONS=\"parallel=2 elfpmd=madvise\""
	fi
	check "switch: no warning about the switch" test "$(grep -c 'which .buildinfo does not record' "$S.log")" -eq 0
	grep -E '^   dh_[a-z_]+( |$)' "$S.log" > "$work/ran-switch"
	check "switch: dh_elfpmd_buildtree ran before dh_auto_test, dh_elfpmd before dh_strip" \
		test "$(next_after dh_elfpmd_buildtree "$work/ran-switch") $(next_after dh_elfpmd "$work/ran-switch")" = "dh_auto_test dh_strip"
	b=$(ls -d "$src"/obj-*/ | head -1)
	if [ -n "$b" ] && ! text_aligned "$b/$pkg" && ! text_aligned "$b/lib$pkg.so.1" && [ ! -e "$src/debian/.debhelper/elfpmd/buildtree" ]; then
		pass "switch: after the tests the build tree's files are as built again, the stash gone"
	else
		fail "switch: after the tests: $b/$pkg $(describe_text "$b/$pkg"); $(ls "$src/debian/.debhelper/elfpmd" 2>&1)"
	fi
	lib=$(cd "$S/x" && ls usr/lib/*/lib$pkg.so.1 2>/dev/null | head -1)
	for f in usr/bin/$pkg "$lib"; do
		b=$(basename "$f")
		if text_aligned "$S/tested/$b" && "$ELFPMD" -n --json --madvise "$S/tested/$b" | grep -q '"present":true'; then
			pass "switch: ctest ran $b aligned, with the stub ($(describe_text "$S/tested/$b"))"
		else
			fail "switch: ctest ran $b: $(describe_text "$S/tested/$b"), stub: $("$ELFPMD" -n --json --madvise "$S/tested/$b" 2>&1 | grep -o '"stub":{[^}]*}')"
		fi
		check "switch-noelfpmd: ctest ran $b unaligned" eval '! text_aligned "$SB/tested/$b"'
		if text_aligned "$S/x/$f" && "$ELFPMD" -n --json --madvise "$S/x/$f" | grep -q '"present":true'; then
			pass "switch: $f in the .deb aligned, with the stub"
		else
			fail "switch: $f in the .deb: $(describe_text "$S/x/$f")"
		fi
		id=$(build_id "$S/x/$f")
		d=$S/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -z "$id" ] || [ ! -f "$d" ]; then
			fail "switch: $f: no debug file for build-id '$id' in the -dbgsym package"
			continue
		fi
		check "switch: $f: its debug file has the stub's section (NOBITS)" \
			eval "readelf -SW '$d' | grep -q '\.elfpmd\.stub *NOBITS'"
		if have eu-unstrip; then
			if eu-unstrip -o "$work/unstripped" "$S/x/$f" "$d" > "$work/unstrip.out" 2>&1; then
				pass "switch: eu-unstrip joins $f and its debug file"
			else
				fail "switch: eu-unstrip $f: $(head -2 "$work/unstrip.out")"
			fi
		fi
	done
	LD_LIBRARY_PATH=$(dirname "$S/x/$lib") timeout 60 "$S/x/usr/bin/$pkg" > "$work/s.run" 2>&1; echo "exit status $?" >> "$work/s.run"
	LD_LIBRARY_PATH=$(dirname "$SB/x/$lib") timeout 60 "$SB/x/usr/bin/$pkg" > "$work/sb.run" 2>&1; echo "exit status $?" >> "$work/sb.run"
	if grep -qE "^$pkg: ok [0-9]+\$" "$work/sb.run" && cmp -s "$work/s.run" "$work/sb.run"; then
		pass "switch: the program prints what the noelfpmd build's prints: $(head -1 "$work/s.run")"
	else
		fail "switch: the program: $(tr '\n' ' ' < "$work/s.run"); noelfpmd: $(tr '\n' ' ' < "$work/sb.run")"
	fi
	# Under systemd 252's @system-service allow-list (tests/fixtures/
	# invseccomp.c: every other call kills the process, as a unit's
	# SystemCallFilter= does), the stubbed program and library run as the
	# noelfpmd build's do (the stub made mincore calls, which killed them).
	if [ "$(uname -m)" = x86_64 ] && cc -O2 -o "$work/invseccomp" "$TESTS_SRCDIR/fixtures/invseccomp.c" 2> "$work/invseccomp.cc"; then
		for d in "$S" "$SB"; do
			LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 60 "$work/invseccomp" system-service "$d/x/usr/bin/$pkg" > "$d.service" 2>&1
			echo "exit status $?" >> "$d.service"
		done
		if grep -qE "^$pkg: ok [0-9]+\$" "$work/switch-noelfpmd.service" && cmp -s "$work/switch.service" "$work/switch-noelfpmd.service"; then
			pass "switch: under the @system-service allow-list the stubbed program prints what the noelfpmd build's does: $(tr '\n' ' ' < "$work/switch.service")"
		else
			fail "switch: under the @system-service allow-list: $(tr '\n' ' ' < "$work/switch.service"); noelfpmd: $(tr '\n' ' ' < "$work/switch-noelfpmd.service")"
		fi
	else
		skip "switch: no @system-service filter here (x86-64 only; $(head -1 "$work/invseccomp.cc" 2>/dev/null))"
	fi
	if have gdb; then
		# (The frames of the program itself are nameless in both builds:
		# its debug file's DWARF is in the dwz file under /usr/lib/debug/.dwz,
		# which is not installed here.)
		for d in "$S" "$SB"; do
			LD_LIBRARY_PATH=$(dirname "$d/x/$lib") timeout 120 gdb -nx -batch \
				-ex "set debug-file-directory $d/dbg/usr/lib/debug" -ex 'break pkgtest_lib' -ex run -ex bt \
				"$d/x/usr/bin/$pkg" > "$d.gdb" 2>&1
			grep -E '^#|warning' "$d.gdb" | sed 's/0x[0-9a-f]*//g' > "$d.gdb.bt"
		done
		if grep -q 'pkgtest_lib (n=3) at .*lib.c' "$S.gdb.bt" && ! grep -qi 'warning' "$S.gdb.bt" \
			&& cmp -s "$S.gdb.bt" "$SB.gdb.bt"; then
			pass "switch: gdb loads the debug files without a warning, its backtrace in pkgtest_lib is the noelfpmd build's"
		else
			fail "switch: gdb: $(head -4 "$S.gdb.bt" | tr '\n' ' '); noelfpmd: $(head -4 "$SB.gdb.bt" | tr '\n' ' ')"
		fi
	fi
fi

finish
