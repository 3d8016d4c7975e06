#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm.sh: the RPM integration (dist/rpm/brp-elfpmd, dist/rpm/macros.elfpmd)
# with the rpm and rpmbuild installed here, the files taken from the source
# tree (nothing installed).
#   - macros: where rpm reads macros.elfpmd after the platform file (the
#     /etc/rpm form, and --load) %__os_install_post is the platform's
#     followed by %__brp_elfpmd, without a recursion error; where it reads it
#     before (the macros.d form) the platform's hides the hook until a spec
#     asks for it; the hook runs once when read twice; the opt-out; the
#     order in %__spec_install_post: debuginfo, strip, elfpmd;
#   - brp-elfpmd with a stand-in elfpmd that logs its arguments: the command
#     line, RPM_BUILD_NCPUS, the buildroot checks, the paths;
#   - a package of tests/pkg/upstream built with the hook: every ELF file in
#     it has its text PT_LOAD aligned to 2 MiB, as tests/phdr-dump reads it,
#     passes eu-elflint --gnu-ld, runs and prints what the unhooked build
#     prints; the hard link, symbolic links, script, modes (set-user-ID from
#     the buildroot, %attr) and file capabilities (%caps) are as in the
#     package built without the hook; the debuginfo package's build-id files
#     and .gnu_debuglink CRCs match the rewritten binaries;
#   - the same package with %global __brp_elfpmd %{nil} in the spec: nothing
#     aligned (which also shows the checks above can fail);
#   - with %_elfpmd_options --madvise: the startup stub's segment is there,
#     the program runs, eu-elflint and the debuginfo package as above;
#   - an elfpmd failure fails the build;
#   - install-time priming: a package carrying dist/rpm/elfpmd-triggers.inc
#     has the file trigger (rpm -qp --filetriggers); its script, run by hand
#     as rpm runs it (the hooked package's paths on standard input, relative
#     to its extracted tree), gives them all to elfpmd prime -q -T -, prints
#     nothing, exits 0, and a second prime finds every chunk of the ELF files
#     in PMD-sized folios already (skipped with elfpmd's reason where file
#     THP does not work here); without elfpmd, exit 0.  The hooked spec's
#     %posttrans %elfpmd_prime (rpm -qp --scripts) likewise, its paths
#     moved into a fresh extraction.
#
# Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and TESTS_BUILDDIR
# set, or by hand from the source tree: bash tests/run-rpm.sh.  Works in
# $TESTS_BUILDDIR/rpm-work, removed at the end unless a check failed.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rpm-lib.sh"
require_slow "RPM packages built with rpmbuild"

PMD=$((0x200000))
dist=$(cd "$TESTS_SRCDIR/../dist/rpm" && pwd) || hard_error "no dist/rpm next to $TESTS_SRCDIR"
macros=$dist/macros.elfpmd
brp=$dist/brp-elfpmd
upstream=$TESTS_SRCDIR/pkg/upstream

require_elfpmd
case $ELFPMD in /*) ;; *) ELFPMD=$(pwd)/$ELFPMD ;; esac
for tool in rpm rpmbuild rpm2cpio cpio; do
	have $tool || skip_all "$tool not found (Debian: packages rpm, rpm2cpio and cpio)"
done
{ have make && have "${CC:-cc}"; } || skip_all "make or a C compiler not found: cannot build the package"

work=$TESTS_BUILDDIR/rpm-work
rm -rf "$work"
mkdir -p "$work/tmp" || hard_error "cannot create $work"
trap '[ "$n_fail" -eq 0 ] && rm -rf "$work"' EXIT
require_phdr_dump "$work/tools"

# ---------------------------------------------------------------------------
# The macros, with rpm --eval.

# eval_post ARG...: rpm --eval '%__os_install_post' with ARG... before it,
# the empty lines dropped; rpm's stderr in $work/eval.err.
eval_post () {
	rpm "$@" --eval '%__os_install_post' 2>"$work/eval.err" | sed '/^[[:space:]]*$/d'
}
rpm --showrc > "$work/showrc" 2>&1 || hard_error "rpm --showrc fails"
macro_path=$(sed -n 's/^Macro path: //p' "$work/showrc")
[ -n "$macro_path" ] || hard_error "no 'Macro path:' line in rpm --showrc"
note "macro path: $macro_path"

# The /etc/rpm form: a copy of macros.elfpmd where rpm looks for
# /etc/rpm/macros.*, after the platform file.  The script is named as make
# install names it.
mkdir -p "$work/etc-rpm" "$work/macros.d"
sed "s|^%__elfpmd_brp_script[[:space:]].*|%__elfpmd_brp_script	$brp|" "$macros" > "$work/etc-rpm/macros.elfpmd"
cp "$work/etc-rpm/macros.elfpmd" "$work/macros.d/macros.elfpmd"
# base_path: the macro path without this machine's /etc/rpm/macros.*, where
# an installed macros.elfpmd (the /etc/rpm form) would be, and without
# ~/.rpmmacros: every rpm and rpmbuild below reads base_path or one of the two
# made from it.
mkdir -p "$work/no-etc-rpm"
base_path=$(printf '%s' "$macro_path" | sed -e "s|/etc/rpm/macros\\.\\*|$work/no-etc-rpm/macros.*|" -e 's|:~/\.rpmmacros||')
etc_path=$(printf '%s' "$base_path" | sed "s|$work/no-etc-rpm/macros\\.\\*|$work/etc-rpm/macros.*|")
dotd_path=$(printf '%s' "$base_path" | sed "s|\\(/usr/lib/rpm/macros\\.d/macros\\.\\*\\)|\\1:$work/macros.d/macros.*|")
[ "$base_path" != "$macro_path" ] || hard_error "no /etc/rpm/macros.* in the macro path"
[ "$dotd_path" != "$base_path" ] || hard_error "no /usr/lib/rpm/macros.d/macros.* in the macro path"

plain=$(eval_post --macros "$base_path")
# (rpm leaves two blanks where the empty %_elfpmd_options was.)
brp_line=$(rpm --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" --eval '%__brp_elfpmd' | tr -s ' ')
case $brp_line in
"$brp -- /usr/bin "*) pass "%__brp_elfpmd is the script with -- and the paths: $brp_line" ;;
*) fail "%__brp_elfpmd: '$brp_line'" ;;
esac
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
plain_again () {
	local got
	got=$(eval_post "$@")
	[ "$got" = "$plain" ] && [ ! -s "$work/eval.err" ] && return 0
	diff <(echo "$plain") <(echo "$got") | sed 's/^/      /'
	sed 's/^/      stderr: /' "$work/eval.err"
	return 1
}
case $plain in
*brp-strip*) pass "the platform's %__os_install_post runs brp-strip" ;;
*) fail "the platform's %__os_install_post has no brp-strip: $plain" ;;
esac
check "/etc/rpm form: %__os_install_post is the platform's, then brp-elfpmd" hooked --macros "$etc_path"
check "--load: the same" hooked --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp"
check "expanded twice: the same both times" test "$(rpm --macros "$etc_path" --eval '%__os_install_post' --eval '%__os_install_post' 2>&1 | grep -c brp-elfpmd)" = 2
check "read twice (/etc/rpm and --load): brp-elfpmd once" hooked --macros "$etc_path" --load "$work/etc-rpm/macros.elfpmd"
check "macros.d form: the platform's %__os_install_post hides the hook" plain_again --macros "$dotd_path"
check "macros.d form: %__brp_elfpmd is defined" test "$(rpm --macros "$dotd_path" --eval '%__brp_elfpmd' | tr -s ' ')" = "$brp_line"
check "macros.d form, spec's %define __os_install_post %{__elfpmd_os_install_post}: hooked" \
	hooked --macros "$dotd_path" --define '__os_install_post %{__elfpmd_os_install_post}'
check "/etc/rpm form and the spec's %define too: brp-elfpmd once" \
	hooked --macros "$etc_path" --define '__os_install_post %{__elfpmd_os_install_post}'
# The hook puts its definition back as it was, a body with more than the
# hook in it too (a backslash, lines after it), and expands the same twice.
body_after_expansion () {
	rpm "$@" --eval '%__os_install_post' --eval '@@@' --eval '%{macrobody:__os_install_post}' 2>&1 | sed '1,/^@@@$/d'
}
check "/etc/rpm form: %__os_install_post's definition unchanged by an expansion" \
	test "$(body_after_expansion --macros "$etc_path")" = '%{__elfpmd_os_install_post}'
printf '%s\n' '%__os_install_post %{__elfpmd_os_install_post}\' 'echo "a \\ b"\' '%{nil}' > "$work/spec-like.macros"
got=$(body_after_expansion --macros "$etc_path" --load "$work/spec-like.macros")
check "a body around the hook: definition unchanged by an expansion" \
	test "$got" = "$(rpm --macros "$etc_path" --load "$work/spec-like.macros" --eval '%{macrobody:__os_install_post}')"
got=$(rpm --macros "$etc_path" --load "$work/spec-like.macros" --eval '%__os_install_post' --eval '%__os_install_post' 2>&1 \
	| grep -e brp-elfpmd -e '^echo' | tr -s ' ' | tr '\n' '|')
check "a body around the hook: brp-elfpmd, then the body's own line, twice: $got" \
	test "$got" = "$brp_line|echo \"a \\ b\"|$brp_line|echo \"a \\ b\"|"
check "opt-out (%__brp_elfpmd %{nil}): the platform's alone" plain_again --macros "$etc_path" --define '__brp_elfpmd %{nil}'
got=$(rpm --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" --define "_elfpmd_options --madvise -p" --define '_elfpmd_paths /opt/x' --eval '%__brp_elfpmd')
check "%_elfpmd_options and %_elfpmd_paths reach the script's command line ($got)" \
	test "$got" = "$dist/brp-elfpmd --madvise -p -- /opt/x"
# In %__spec_install_post: debuginfo extraction, then the platform's brp
# scripts (strip), then elfpmd.
rpm --macros "$etc_path" --define '__debug_package 1' --eval '%__spec_install_post' > "$work/spec_install_post" 2>&1
order=$(grep -n -e '__find_debuginfo\|find-debuginfo' -e 'brp-strip ' -e 'brp-elfpmd' "$work/spec_install_post" \
	| sed 's/^\([0-9]*\):.*\(find-debuginfo\|brp-strip\|brp-elfpmd\).*/\2/' | tr '\n' ' ')
check "%__spec_install_post order: $order" test "$order" = "find-debuginfo brp-strip brp-elfpmd "

# ---------------------------------------------------------------------------
# brp-elfpmd alone, with a stand-in elfpmd that logs its directory and
# arguments and exits with $FAKE_STATUS.
cat > "$work/fake-elfpmd" <<'EOF'
#!/bin/sh
{ pwd; for a do printf '[%s]' "$a"; done; echo; } >> "$FAKE_LOG"
exit "${FAKE_STATUS:-0}"
EOF
chmod +x "$work/fake-elfpmd"
fakeroot=$work/fake-root
mkdir -p "$fakeroot/usr/bin" "$fakeroot/usr/lib64" "$fakeroot/opt/app" "$fakeroot/usr/share"
ln -s usr/lib64 "$fakeroot/lib64"
export FAKE_LOG=$work/fake.log
# brp ENV... -- ARG...: run brp-elfpmd with the stand-in and ENV...; its
# status in $status, its output in $work/brp.out, the log in $log.
brp () {
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	: > "$FAKE_LOG"
	env ELFPMD="$work/fake-elfpmd" RPM_BUILD_NCPUS= "${env[@]}" sh "$brp" "$@" > "$work/brp.out" 2>&1
	status=$?
	log=$(cat "$FAKE_LOG")
}
brp RPM_BUILD_ROOT= --
check "RPM_BUILD_ROOT empty: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT=/ --
check "RPM_BUILD_ROOT /: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT="$fakeroot" RPM_BUILD_NCPUS=3 -- --madvise -p -- /usr/bin /usr/sbin usr/lib64/ /lib64 //opt
check "the command line: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][3][-q][--build-id=keep][--madvise][-p][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" --
check "no arguments: the default places that exist, -j 1: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=keep][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- --rule=kernel --
check "options and -- without paths: the default places: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=keep][--rule=kernel][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- --build-id=derive --
check "--build-id in the options: no --build-id=keep: $(echo "$log" | tail -1)" \
	test "$status.$log" = "0.$fakeroot
[-r][-j][1][-q][--build-id=derive][--][usr/bin][usr/lib64][opt]"
brp RPM_BUILD_ROOT="$fakeroot" -- -- /srv /usr/share/none
check "no path in the buildroot: exit 0, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 0.
brp RPM_BUILD_ROOT="$fakeroot" -- -- /usr/bin /usr/../../etc
check "a path with '..': exit 1, elfpmd not run ($(cat "$work/brp.out"))" test "$status.$log" = 1.
brp RPM_BUILD_ROOT="$fakeroot" FAKE_STATUS=3 -- -- /usr/bin
check "elfpmd's exit status is the script's (3)" test "$status" = 3
brp RPM_BUILD_ROOT="$fakeroot" ELFPMD="$work/no-such-elfpmd" -- -- /usr/bin
check "elfpmd missing: exit 1 ($(cat "$work/brp.out"))" test "$status" = 1

# ---------------------------------------------------------------------------
# The package.  Built twice in the same _topdir (so that both builds see the
# same paths): with the hook, then with %global __brp_elfpmd %{nil}.

# The debuginfo package needs find-debuginfo (Debian: package debugedit).
find_debuginfo=$(rpm --eval '%{__find_debuginfo}')
debuginfo=false
if [ -x "$find_debuginfo" ]; then debuginfo=true
else skip "$find_debuginfo not found (Debian: package debugedit): no debuginfo package, build-id check skipped"; fi
# %caps needs an rpm built with libcap.
caps=false
if grep -q 'rpmlib(FileCaps)' "$work/showrc"; then caps=true
else skip "this rpm has no rpmlib(FileCaps): no %caps in the spec, file capability check skipped"; fi

top=$work/top
# build NAME SPEC RPMBUILD-ARG...: rpmbuild -bb SPEC with the hook's macros
# from the source tree, the log in $work/NAME.log; the packages are moved to
# $work/NAME/.
build () {
	local name=$1 spec=$2 rc
	shift 2
	rm -rf "$top"
	ELFPMD=$ELFPMD rpmbuild -bb --nodeps --define "_topdir $top" --define "_tmppath $work/tmp" \
		--define "_sourcedir $upstream" --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" \
		"$@" "$spec" > "$work/$name.log" 2>&1
	rc=$?
	mkdir -p "$work/$name"
	[ $rc -eq 0 ] && mv "$top"/RPMS/*/*.rpm "$work/$name/"
	return $rc
}

write_spec "$work/hook.spec" false
write_spec "$work/optout.spec" true
t0=$(date +%s.%N)
if build hook "$work/hook.spec" --define '_smp_build_ncpus 3'; then
	pass "rpmbuild with the hook ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'))"
else
	fail "rpmbuild with the hook failed"
	tail -20 "$work/hook.log" | sed 's/^/      /'
	finish
fi
if build optout "$work/optout.spec"; then
	pass "rpmbuild with %global __brp_elfpmd %{nil}"
else
	fail "rpmbuild with %global __brp_elfpmd %{nil} failed"
	tail -20 "$work/optout.log" | sed 's/^/      /'
	finish
fi

# The logs: brp-elfpmd ran after brp-strip (and find-debuginfo), with -j 3
# (not this machine's CPU count, which elfpmd would take by default),
# and only in the hooked build.
if grep -qi 'recursion' "$work/hook.log"; then fail "macro recursion in the build log"; fi
order=$(grep -E '^\+ .*(find-debuginfo|brp-strip |brp-elfpmd)' "$work/hook.log" \
	| sed -E 's/.*(find-debuginfo|brp-strip|brp-elfpmd).*/\1/' | tr '\n' ' ')
want="brp-strip brp-elfpmd "
$debuginfo && want="find-debuginfo $want"
check "build log: $order" test "$order" = "$want"
check "build log: brp-elfpmd ran elfpmd with -j 3 (%_smp_build_ncpus)" \
	grep -q '^brp-elfpmd: aligning ELF text under .* (-j 3)$' "$work/hook.log"
check "opt-out build log: brp-elfpmd not run" test "$(grep -c 'brp-elfpmd' "$work/optout.log")" = 0

main_rpm () { echo "$work/$1/elfpmd-pkgtest-1.0-1."*.rpm; }
hook_rpm=$(main_rpm hook)
optout_rpm=$(main_rpm optout)
[ -f "$hook_rpm" ] && [ -f "$optout_rpm" ] || hard_error "no package in $work/hook or $work/optout"
for b in hook optout; do
	mkdir -p "$work/x-$b"
	(cd "$work/x-$b" && rpm2cpio "$(main_rpm "$b")" | cpio -idm --quiet) || hard_error "cannot extract $(main_rpm "$b")"
done

is_elf () { [ "$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n')" = 7f454c46 ]; }
# text_loads FILE: "ALIGN CONGRUENT" of each executable PT_LOAD of FILE, as
# phdr-dump reads it (ALIGN in hex); CONGRUENT is yes when p_offset = p_vaddr
# (mod 2 MiB).
text_loads () {
	local a o v s
	exec_loads "$1" | while read -r a o v s; do
		printf '0x%x %s\n' "$a" "$([ $(((v - o) % PMD)) -eq 0 ] && echo yes || echo no)"
	done
}

elfs=$(cd "$work/x-hook" && find . -type f | sort | while read -r f; do is_elf "$f" && echo "${f#./}"; done | tr '\n' ' ')
check "the ELF files in the package: $elfs" \
	test "$elfs" = "usr/bin/elfpmd-pkgtest usr/bin/elfpmd-pkgtest-link usr/lib64/libelfpmd-pkgtest.so.1 "
have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
for f in $elfs; do
	h=$work/x-hook/$f
	o=$work/x-optout/$f
	got=$(text_loads "$h" | tr '\n' ' ')
	check "$f: text PT_LOAD p_align 0x200000, p_offset = p_vaddr mod 2 MiB ($got)" test "$got" = "0x200000 yes "
	check "$f: at least one whole 2 MiB chunk of text PMD-mappable" test "$(ideal_chunks "$h")" -ge 1
	got=$(text_loads "$o" | tr '\n' ' ')
	case $got in
	*0x200000*) fail "$f: aligned in the opt-out build ($got)" ;;
	"") fail "$f: no text PT_LOAD in the opt-out build" ;;
	*) pass "$f: not aligned in the opt-out build ($got)" ;;
	esac
	check "$f: nothing PMD-mappable in the opt-out build" test "$(ideal_chunks "$o")" -eq 0
	if $have_elflint; then
		# No message, or those of the unhooked build and no more.
		if [ "$(elflint_messages "$h")" = "$(elflint_messages "$o")" ]; then
			pass "$f: eu-elflint --gnu-ld: $(elflint_count "$h") messages, as the unhooked build's"
		else
			fail "$f: eu-elflint --gnu-ld complains more than about the unhooked build's"
			diff <(elflint_messages "$o") <(elflint_messages "$h") | head -10 | sed 's/^/      /'
		fi
	fi
done

# The program runs, from the package's files alone, and prints what the
# unhooked build's prints; the script too.
run_pkg () {
	local x=$work/x-$1
	LD_LIBRARY_PATH=$x/usr/lib64 timeout 60 "$x/usr/bin/$2" 2>&1
	echo "exit status $?"
}
for prog in elfpmd-pkgtest elfpmd-pkgtest-link elfpmd-pkgtest-alias; do
	want=$(run_pkg optout $prog)
	got=$(run_pkg hook $prog)
	case $want in
	"elfpmd-pkgtest: ok "[0-9]*"
exit status 0") ;;
	*) fail "$prog from the opt-out build: $want"; continue ;;
	esac
	check "$prog runs and prints what the unhooked build's does ($(echo "$got" | head -1))" test "$got" = "$want"
done
got=$(PATH=$work/x-hook/usr/bin:$PATH LD_LIBRARY_PATH=$work/x-hook/usr/lib64 timeout 60 "$work/x-hook/usr/bin/elfpmd-pkgtest-script" 2>&1)
check "the script runs the program ($got)" test "$got" = "$(run_pkg optout elfpmd-pkgtest | head -1)"

# Hard link, symbolic links, script, modes, capabilities.
h=$work/x-hook/usr/bin
check "hard link: one inode, 2 links, after extraction" \
	test "$(stat -c '%i %h' "$h/elfpmd-pkgtest")" = "$(stat -c '%i 2' "$h/elfpmd-pkgtest-link")"
inodes () { rpm -qp --qf '[%{FILEINODES} %{FILENAMES}\n]' "$1" | awk '$2 ~ /^\/usr\/bin\/elfpmd-pkgtest(-link)?$/ { print $1 }' | sort -u | wc -l; }
check "hard link: one inode for both names in the package's header" test "$(inodes "$hook_rpm")" = 1
check "symbolic links unchanged" \
	test "$(readlink "$h/elfpmd-pkgtest-alias") $(readlink "$work/x-hook/usr/lib64/libelfpmd-pkgtest.so")" = \
		"elfpmd-pkgtest libelfpmd-pkgtest.so.1"
check "the script is the unhooked build's, byte for byte" \
	cmp -s "$h/elfpmd-pkgtest-script" "$work/x-optout/usr/bin/elfpmd-pkgtest-script"
modes=$(rpm -qlvp "$hook_rpm" | awk '{ p = $1 ~ /^l/ ? $(NF - 2) : $NF } p ~ /^\/usr\/bin\// { print $1 }' | tr '\n' ' ')
check "rpm -qlvp: program and hard link -rwsr-xr-x (buildroot), script -rwxr-x--- (%attr): $modes" \
	test "$modes" = "-rwsr-xr-x lrwxrwxrwx -rwsr-xr-x -rwxr-x--- "
check "extracted: mode 4755 kept by the rewrite" test "$(stat -c %a "$h/elfpmd-pkgtest")" = 4755
if $caps; then
	got=$(rpm -qp --filecaps "$hook_rpm" | awk '$1 ~ /^\/usr\/bin\/elfpmd-pkgtest(-link)?$/ { print $2 }' | tr '\n' ' ')
	check "rpm -qp --filecaps: cap_net_raw=ep on both names ($got)" test "$got" = "cap_net_raw=ep cap_net_raw=ep "
fi
# Everything but sizes, times and digests as in the unhooked build: paths,
# modes, owners, flags, link targets, capabilities.
dump () {
	rpm -qp --dump "$1" | awk '{ $2 = $3 = $4 = "-"; print }'
	$caps && rpm -qp --filecaps "$1"
}
if diff <(dump "$optout_rpm") <(dump "$hook_rpm") > "$work/dump.diff"; then
	pass "rpm -qp --dump and --filecaps: as in the unhooked build but for sizes, dates and digests"
else
	fail "rpm -qp --dump differs from the unhooked build's"
	sed 's/^/      /' "$work/dump.diff" | head -20
fi

# The debuginfo package's build-id files are the rewritten binaries', and
# their .gnu_debuglink names a file of the package with the right CRC.
# debuglink_check NAME FILE: FILE's .gnu_debuglink (name, CRC-32) in build
# NAME names a file in usr/lib/debug/DIR-OF-FILE of its debuginfo package
# with that CRC.
debuglink_check () {
	local name=$1 f=$2 got
	if ! have objcopy || ! have python3; then
		skip "$f: objcopy or python3 not found: .gnu_debuglink check skipped"
		return
	fi
	objcopy --dump-section .gnu_debuglink="$work/debuglink" "$work/x-$name/$f" "$work/debuglink.o" 2>/dev/null \
		|| { fail "$name: $f: no .gnu_debuglink section"; return; }
	got=$(python3 - "$work/debuglink" "$work/xd-$name/usr/lib/debug/${f%/*}" <<'EOF'
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
build_id () { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1; }
# check_debuginfo NAME: the checks above on build NAME (extracted in
# $work/x-NAME) and its debuginfo package.
check_debuginfo () {
	local name=$1 dbg_rpm f id link
	$debuginfo || return 0
	if ! have readelf; then
		skip "readelf not found: build-id checks skipped"
		return
	fi
	dbg_rpm=$(echo "$work/$name/elfpmd-pkgtest-debuginfo-1.0-1."*.rpm)
	if [ ! -f "$dbg_rpm" ]; then
		fail "$name: no debuginfo package: $(ls "$work/$name")"
		return
	fi
	mkdir -p "$work/xd-$name"
	(cd "$work/xd-$name" && rpm2cpio "$dbg_rpm" | cpio -idm --quiet)
	for f in usr/bin/elfpmd-pkgtest usr/lib64/libelfpmd-pkgtest.so.1; do
		id=$(build_id "$work/x-$name/$f")
		if [ -z "$id" ]; then fail "$name: $f: no build-id"; continue; fi
		link=$work/xd-$name/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		if [ -f "$link" ] && [ "$(build_id "$link")" = "$id" ]; then
			pass "$name: $f: the debuginfo package's .build-id/${id:0:2}/${id:2}.debug has build-id $id"
		else
			fail "$name: $f: build-id $id: ${link#"$work/xd-$name/"} $( [ -e "$link" ] && echo "has build-id $(build_id "$link")" || echo missing)"
		fi
		check "$name: $f: rpm provides debuginfo(build-id) = $id" \
			grep -q "^debuginfo(build-id) = $id\$" <(rpm -qp --provides "$dbg_rpm")
		debuglink_check "$name" "$f"
	done
}
check_debuginfo hook

# %_elfpmd_options in a build: --madvise adds the startup stub in a segment
# of its own (the build-id note may move into it).
if build madvise "$work/hook.spec" --define '_elfpmd_options --madvise'; then
	pass "rpmbuild with %_elfpmd_options --madvise"
	check "build log: brp-elfpmd --madvise -- ..." grep -q '^+ .*/brp-elfpmd --madvise -- /usr/bin ' "$work/madvise.log"
	mkdir -p "$work/x-madvise"
	(cd "$work/x-madvise" && rpm2cpio "$(main_rpm madvise)" | cpio -idm --quiet) || hard_error "cannot extract $(main_rpm madvise)"
	for f in $elfs; do
		got=$(text_loads "$work/x-madvise/$f" | tr '\n' ' ')
		case $got in
		"0x200000 yes "*" "*" ") pass "$f: text aligned, the stub's executable PT_LOAD after it ($got)" ;;
		*) fail "$f: with --madvise: executable PT_LOADs $got" ;;
		esac
		if $have_elflint; then
			check "$f: with --madvise: eu-elflint --gnu-ld as for the unhooked build" \
				test "$(elflint_messages "$work/x-madvise/$f")" = "$(elflint_messages "$work/x-optout/$f")"
		fi
	done
	check "with --madvise: the program prints what the unhooked build's does" \
		test "$(run_pkg madvise elfpmd-pkgtest)" = "$(run_pkg optout elfpmd-pkgtest)"
	check_debuginfo madvise
else
	fail "rpmbuild with %_elfpmd_options --madvise failed"
	tail -20 "$work/madvise.log" | sed 's/^/      /'
fi

# An elfpmd failure fails the build (here: an option elfpmd refuses).
write_spec "$work/fail.spec" false
if build fail "$work/fail.spec" --define '_elfpmd_options --no-such-option'; then
	fail "rpmbuild succeeded although elfpmd failed"
else
	check "an elfpmd failure fails the build (elfpmd's message in the log)" \
		grep -q 'elfpmd.*no-such-option' "$work/fail.log"
fi

# ---------------------------------------------------------------------------
# Install-time priming.  The file trigger of dist/rpm/elfpmd-triggers.inc in
# a package of its own: rpm reads it, and its script, run as rpm runs it
# (standard input: the installed paths, here relative to the extracted
# hooked package, the working directory), primes the package's ELF files.
# Then %elfpmd_prime in the hooked package's %posttrans.

# prime_bin: an elfpmd that logs its arguments and the names it reads, then
# runs the real one.
mkdir -p "$work/prime-bin"
printf '%s\n' '#!/bin/sh' 'printf "%s\n" "$*" >> "$PRIME_LOG.args"' \
	'tee -a "$PRIME_LOG.names" | "$ELFPMD_REAL" "$@"' > "$work/prime-bin/elfpmd"
chmod 755 "$work/prime-bin/elfpmd"
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

{
	printf '%s\n' 'Name: elfpmd-hooktest' 'Version: 1.0' 'Release: 1' 'Summary: the file trigger' \
		'License: MIT' 'BuildArch: noarch' '%description' 'tests/run-rpm.sh' '%files'
	cat "$dist/elfpmd-triggers.inc"
} > "$work/trigger.spec"
rm -rf "$top"
if rpmbuild -bb --nodeps --define "_topdir $top" --define "_tmppath $work/tmp" --macros "$base_path" \
	"$work/trigger.spec" > "$work/trigger.log" 2>&1; then
	trigger_rpm=$(echo "$top"/RPMS/noarch/elfpmd-hooktest-1.0-1.noarch.rpm)
	rpm -qp --filetriggers "$trigger_rpm" > "$work/filetriggers" 2>&1
	check "rpm -qp --filetriggers: transfiletriggerin on %_elfpmd_paths' directories ($(head -1 "$work/filetriggers"))" \
		test "$(head -1 "$work/filetriggers")" = "transfiletriggerin scriptlet (using /bin/sh) -- /opt, /usr/bin, /usr/games, /usr/lib, /usr/lib64, /usr/libexec, /usr/sbin"
	rpm -qp --qf '[%{TRANSFILETRIGGERSCRIPTS}\n]' "$trigger_rpm" > "$work/trigger.sh"
	check "the trigger's script runs elfpmd prime -q -T -" grep -q '^	elfpmd prime -q -T - || :$' "$work/trigger.sh"
	prime_log_reset
	rpm -qlp "$hook_rpm" | sed 's|^/||' > "$work/installed"
	(cd "$work/x-hook" && env PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" \
		sh "$work/trigger.sh" < "$work/installed") > "$work/trigger.out" 2>&1
	rc=$?
	check "the trigger's script, run on the package's paths: exit 0, nothing printed ($(cat "$work/trigger.out"))" \
		test "$rc.$(wc -c < "$work/trigger.out")" = 0.0
	check "... it gave elfpmd prime all $(wc -l < "$work/installed") installed paths" \
		cmp -s "$work/installed" "$work/prime.names"
	elf_paths=()
	for f in $elfs; do elf_paths+=("$work/x-hook/$f"); done
	primed_already "${elf_paths[@]}"
	# Without elfpmd, the transaction goes on.
	(cd "$work/x-hook" && env PATH=/usr/bin:/bin sh "$work/trigger.sh" < "$work/installed") > "$work/trigger-none.out" 2>&1
	check "the trigger's script without elfpmd in PATH: exit 0, nothing printed" \
		test "$?.$(wc -c < "$work/trigger-none.out")" = 0.0
else
	fail "rpmbuild of a package with dist/rpm/elfpmd-triggers.inc failed"
	tail -10 "$work/trigger.log" | sed 's/^/      /'
fi

# %elfpmd_prime in the hooked package's %posttrans; run by hand with its
# paths moved into a fresh extraction of the package.
rpm -qp --scripts "$hook_rpm" > "$work/scripts" 2>&1
sed -n '/^posttrans scriptlet/,$p' "$work/scripts" | sed 1d > "$work/posttrans.sh"
check "rpm -qp --scripts: %posttrans runs elfpmd prime -q -T - over the two paths ($(tr '\n' ' ' < "$work/posttrans.sh"))" \
	grep -q 'for elfpmd_f in /usr/bin/elfpmd-pkgtest /usr/lib64/libelfpmd-pkgtest.so.1; do .* | elfpmd prime -q -T - || :; fi' "$work/posttrans.sh"
rm -rf "$work/x-post" "$work/x-ctl" && mkdir -p "$work/x-post" "$work/x-ctl" \
	&& (cd "$work/x-post" && rpm2cpio "$hook_rpm" | cpio -idm --quiet) \
	&& (cd "$work/x-ctl" && rpm2cpio "$hook_rpm" | cpio -idm --quiet)
# The control: a fresh extraction is not primed yet, so that "already"
# after a hook means the hook primed it.
"$ELFPMD" prime --json "$work/x-ctl/usr/bin/elfpmd-pkgtest" > "$work/ctl.json" 2>&1
if grep -q '"reason":null' "$work/ctl.json"; then
	check "control: a fresh extraction's chunks are not in PMD-sized folios before a prime ($(cat "$work/ctl.json"))" \
		grep -q '"already":0,' "$work/ctl.json"
fi
prime_log_reset
sed "s| /usr/| $work/x-post/usr/|g" "$work/posttrans.sh" > "$work/posttrans-moved.sh"
env PATH="$work/prime-bin:$PATH" ELFPMD_REAL="$ELFPMD" PRIME_LOG="$work/prime" sh "$work/posttrans-moved.sh" > "$work/posttrans.out" 2>&1
check "%posttrans, run by hand: exit 0, nothing printed ($(cat "$work/posttrans.out"))" \
	test "$?.$(wc -c < "$work/posttrans.out")" = 0.0
primed_already "$work/x-post/usr/bin/elfpmd-pkgtest" "$work/x-post/usr/lib64/libelfpmd-pkgtest.so.1"

finish
