#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Set up elfpmd on a fresh Debian or Ubuntu machine, from the source tree.
#
#   sh tools/setup.sh demo    install what is needed, build, and show elfpmd
#                             on a generated program with 8 MiB of text, and
#                             elfpmd status on it and its --madvise copy
#   sh tools/setup.sh check   install what is needed, build, and run the
#                             whole test suite: make check, the map tests
#                             against Debian 13's libdwarf 0.11 too, the
#                             malformed-input tests under AddressSanitizer and
#                             UBSan, make distcheck
#   sh tools/setup.sh build   install and build only
#
# demo and build install only what a user needs to build elfpmd
# (USER_PACKAGES, and autoconf and automake for a git checkout); check
# installs everything the test suite uses (about 1 GB: compilers for other
# machines, qemu, rpm, a Java runtime...).  Builds go to _build/ (and
# _build-asan/, _build-dwarf0/) in the source tree; nothing is installed but Debian
# packages.  Run as root, or with sudo available.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-check}
jobs=$(nproc 2>/dev/null || echo 2)

# What a user needs to build elfpmd from a release tarball: a C compiler,
# pkg-config, libelf (elfutils), liblzma (xz-utils: the stub's
# MiniDebugInfo), Nettle (the manifest's SHA-256), Jansson (the manifest's
# lines read back) and, optionally, libdwarf for elfpmd map's names; from
# git also autoconf and automake.  (README, Install; doc/design.md,
# "Libraries".)
USER_PACKAGES="build-essential pkg-config libelf-dev liblzma-dev nettle-dev libjansson-dev libdwarf-dev"
GIT_PACKAGES="autoconf automake"
# The test suite's.
PACKAGES="$USER_PACKAGES $GIT_PACKAGES check elfutils
	clang lld attr libcap2-bin python3 e2fsprogs gdb strace bsdutils bash-completion"
# (elfpmd map reads DWARF with libdwarf, optional at build time; Debian 12's
# is 20210528, the API before 0.1, without a libdwarf.pc: configure looks for
# it directly.  check also builds elfpmd against Debian 13's libdwarf 0.11,
# the 0.x API, fetched into a cache: dwarf0 below.)
# The debhelper integration: dh_elfpmd(1) made from its POD (pod2man, in
# perl), and tests/run-deb-*.sh's package builds (no fakeroot: its test
# package says Rules-Requires-Root: no).
PACKAGES="$PACKAGES debhelper dpkg-dev perl"
# tests/run-deb-rules-*.sh build a cdbs package with dist/cdbs/elfpmd.mk.
PACKAGES="$PACKAGES cdbs"
# The build systems whose recipes tests/run-buildsys-*.sh run (doc/integration.md);
# cargo brings rustc (about 60 MB to download, 9 s to install here).
PACKAGES="$PACKAGES cmake meson libtool dwz cargo"
# The RPM integration: tests/run-rpm-*.sh build packages with rpmbuild (the
# rpm package; it pulls rpm2cpio and, from Debian 12 on, debugedit's
# find-debuginfo) and unpacks them with cpio.
PACKAGES="$PACKAGES rpm cpio"
# tests/run-packages-*.sh build elfpmd's own packages and check them with
# lintian.
PACKAGES="$PACKAGES lintian"
# elfpmd-prime.service: systemd-analyze verify in tests/run-prime-unit.sh, and
# configure's default unit directory (systemd.pc).
PACKAGES="$PACKAGES systemd"
# tests/run-real-programs.sh: the distribution's Java runtime, whose
# libjvm.so bench/real-programs.sh rewrites and java loads (about 200 MB
# installed; Debian 12: OpenJDK 17).
PACKAGES="$PACKAGES default-jre-headless"
# tests/run-licence.sh: a second opinion on every file's licence.
PACKAGES="$PACKAGES licensecheck"
# The VM harness (tests/run-vm.sh, tests/run-vm-aarch64.sh,
# tests/run-vm-riscv64.sh, bench/vm-kernels.sh), installed without the
# recommended packages (qemu's would add a desktop stack, ~140 packages);
# optional: the tests skip without them.  qemu-system-arm holds
# qemu-system-aarch64 (43 MB), qemu-system-misc qemu-system-riscv64 (and
# other machines: 208 MB; QEMU's OpenSBI comes with qemu-system-data); the
# guests' programs are built with CROSS_PACKAGES' cross compilers and their
# busybox is downloaded with the kernel.
VM_PACKAGES="qemu-system-x86 qemu-system-arm qemu-system-misc busybox-static xfsprogs xz-utils cpio"
# The aarch64 and riscv64 stubs (tools/gen-stub.sh ARCH, tests/run-stub.sh)
# and tests/run-cross-*.sh, which run cross-built fixtures under qemu-user:
# the two cross toolchains with their C libraries (about 130 MB installed
# each) and qemu-user (about 100 MB: every user-mode target), installed
# without the recommended qemu-user-binfmt, so that the host does not start
# running foreign binaries by itself; optional: the tests skip without them.
CROSS_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user"
# tests/run-deb-nostub.sh cross-builds a Debian package for i386, an
# architecture without a stub (dpkg-buildpackage -a i386): the i386 cross
# compiler and its C library (18 packages, about 145 MB installed, 22 s
# here), and no dpkg --add-architecture (debhelper, the one build
# dependency, is Architecture: all); optional: the test skips without them.
CROSS_PACKAGES="$CROSS_PACKAGES gcc-i686-linux-gnu libc6-dev-i386-cross"

# The 32-bit and x32 C libraries and GCC's support files for them, so that
# gcc -m32 and -mx32 make test inputs (run-malformed-*.sh): what gcc-multilib
# brings, without gcc-multilib itself, which Debian makes conflict with the
# cross compilers above.  Named for the installed gcc's major version;
# optional.
multilib_packages () {
	v=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
	[ -n "$v" ] && echo "libc6-dev-i386 libc6-dev-x32 lib32gcc-$v-dev libx32gcc-$v-dev"
}

# not_installed PACKAGE...: those of PACKAGE... that dpkg does not list as installed.
not_installed () {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || printf ' %s' "$p"
	done
}

# install_packages user|all: install what a user needs to build, or what
# the whole test suite uses.
install_packages () {
	if [ "$1" = user ]; then
		# shellcheck disable=SC2086  # the lists are words
		missing=$(not_installed $USER_PACKAGES $GIT_PACKAGES)
		[ -z "$missing" ] && return 0
		echo "== installing:$missing"
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo apt-get update -qq
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing > /dev/null
		return 0
	fi
	# shellcheck disable=SC2086  # the lists are words
	missing=$(not_installed $PACKAGES)
	# shellcheck disable=SC2086
	vm_missing=$(not_installed $VM_PACKAGES)
	# shellcheck disable=SC2086
	cross_missing=$(not_installed $CROSS_PACKAGES)
	# shellcheck disable=SC2046  # the list is words
	multi_missing=$(not_installed $(multilib_packages))
	[ -z "$missing$multi_missing$vm_missing$cross_missing" ] && return 0
	echo "== installing:$missing$multi_missing$vm_missing$cross_missing"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	if [ -n "$missing" ]; then
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing > /dev/null
	fi
	# shellcheck disable=SC2046  # the list is words
	multi_missing=$(not_installed $(multilib_packages))
	if [ -n "$multi_missing" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $multi_missing > /dev/null \
			|| echo "== could not install$multi_missing: no 32-bit test inputs"
	fi
	if [ -n "$vm_missing" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $vm_missing > /dev/null \
			|| echo "== could not install$vm_missing: tests/run-vm.sh will skip"
	fi
	if [ -n "$cross_missing" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $cross_missing > /dev/null \
			|| echo "== could not install$cross_missing: tests/run-cross-*.sh, tests/run-deb-nostub.sh and part of tests/run-stub.sh will skip"
	fi
}

build () {
	dir=$1
	shift
	echo "== building in $dir $*"
	(cd "$top" && autoreconf -fi > /dev/null 2>&1) || (cd "$top" && autoreconf -fi)
	configure_make "$dir" "$@"
}

# configure_make DIR ARG...: configure (with ARG...) and make in DIR; says
# which libdwarf API elfpmd map reads DWARF with there.
configure_make () {
	dir=$1
	shift
	mkdir -p "$dir"
	(cd "$dir" && "$top/configure" -q "$@" && make -s -j"$jobs") || return 1
	api=$(sed -n 's/^#define LIBDWARF_API "\(.*\)"$/\1/p' "$dir/config.h")
	echo "== $dir: elfpmd map reads DWARF with libdwarf: ${api:-no, built without it}"
}

# cli_tests: the tests of the command line (tests/run-cli-*.sh, one
# behaviour each), for make check's TESTS.
cli_tests () {
	(cd "$top" && printf '%s ' tests/run-cli-*.sh)
}

# map_tests: the tests of elfpmd map over its fixture of three compilation
# units (tests/run-map-*.sh, one behaviour each: all but run-map-demangle.sh
# and run-map-libdwarf.sh, which build fixtures of their own), for make
# check's TESTS.
map_tests () {
	(cd "$top" && for t in tests/run-map-*.sh; do
		case $t in *-demangle.sh | *-libdwarf.sh) ;; *) printf '%s ' "$t" ;; esac
	done)
}

# dwarf0: elfpmd built in _build-dwarf0 against Debian 13's libdwarf (0.11,
# the 0.x API; tools/libdwarf-trixie.sh fetches it into a cache), the map
# tests run there, and both builds' maps compared (tests/run-map-libdwarf.sh,
# which make check in _build runs again with ELFPMD_OTHER_LIBDWARF, set
# here).  Skipped, with the reason, when trixie's packages cannot be had
# from the mirror; any other failure fails.
dwarf0 () {
	start=$(date +%s)
	echo "== libdwarf 0.x: elfpmd against Debian 13's libdwarf in _build-dwarf0, and the map tests there"
	st=0
	vars=$(bash "$top/tools/libdwarf-trixie.sh") || st=$?
	case $st in
	0) ;;
	77) echo "== skipped: no libdwarf 0.x build (the reason above)"; return 0 ;;
	*) echo "== tools/libdwarf-trixie.sh failed (exit $st)"; exit 1 ;;
	esac
	cflags=$(printf '%s\n' "$vars" | sed -n 's/^LIBDWARF_CFLAGS=//p')
	libs=$(printf '%s\n' "$vars" | sed -n 's/^LIBDWARF_LIBS=//p')
	configure_make "$top/_build-dwarf0" --with-libdwarf=yes LIBDWARF_CFLAGS="$cflags" LIBDWARF_LIBS="$libs" || exit 1
	(cd "$top/_build-dwarf0" && ELFPMD_OTHER_LIBDWARF=$top/_build/src/elfpmd make -s -j"$jobs" check \
		TESTS="$(map_tests) tests/run-map-demangle.sh tests/run-map-libdwarf.sh") \
		|| { cat "$top"/_build-dwarf0/tests/run-map*.log; exit 1; }
	ELFPMD_OTHER_LIBDWARF=$top/_build-dwarf0/src/elfpmd
	export ELFPMD_OTHER_LIBDWARF
	echo "== the libdwarf 0.x build and its map tests took $(($(date +%s) - start)) s"
}

demo () {
	tool=$top/_build/src/elfpmd
	work=$(mktemp -d)
	pids=
	trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
	echo "== generating a PIE with 8 MiB of text in $work"
	printf '.text\n.globl big\nbig: .fill 0x800000,1,0xc3\n' > "$work/big.S"
	cat > "$work/demo.c" <<'C'
#include <stdio.h>
#include <unistd.h>
extern char big[];
int main (int argc, char **argv)
{
  for (long off = 0; off < 0x800000; off += 0x100000)
    ((void (*) (void)) (big + off)) ();
  puts ("demo ran through 8 MiB of text");
  fflush (stdout);
  /* "demo stay": keep running, text mapped, until killed.  */
  if (argc > 1)
    for (;;)
      pause ();
  return 0;
}
C
	cc -O2 -fPIE -pie -Wa,--noexecstack -o "$work/demo" "$work/demo.c" "$work/big.S"
	cp "$work/demo" "$work/demo.orig"
	echo "== before: elfpmd --dry-run demo"
	"$tool" --dry-run "$work/demo"
	"$work/demo"
	echo "== rewriting: elfpmd demo"
	"$tool" "$work/demo"
	echo "== after: elfpmd --dry-run demo"
	"$tool" --dry-run "$work/demo"
	"$work/demo"
	echo "== a copy with the startup stub: elfpmd --madvise -o demo.mad demo"
	"$tool" --madvise -o "$work/demo.mad" "$work/demo"
	echo "== the original and demo.mad running side by side: elfpmd status"
	"$work/demo.orig" stay > "$work/orig.out" &
	pids="$pids $!"
	"$work/demo.mad" stay > "$work/mad.out" &
	pids="$pids $!"
	n=0
	while { [ ! -s "$work/orig.out" ] || [ ! -s "$work/mad.out" ]; } && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	# shellcheck disable=SC2086  # the PIDs are words
	"$tool" status $pids
	mad_kb=$("$tool" status --json $pids | sed -n 's/.*"path":"[^"]*demo\.mad","text_kb":[0-9]*,"whole_chunks":[0-9]*,"pmd_mapped_chunks":[0-9]*,"file_pmd_mapped_kb":\([0-9]*\).*/\1/p')
	if [ "${mad_kb:-0}" -gt 0 ]; then
		echo "== demo.mad's text is on PMD pages ($mad_kb kB), the original's is not"
	else
		echo "== this kernel did not map demo.mad's text with PMD pages: kernel $(uname -r)," \
			"THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo missing)," \
			"file system $(df -PT "$work" | awk 'NR == 2 { print $2 }'); file text gets PMD" \
			"pages only where the page cache has PMD-sized folios and THP is not never:" \
			"see elfpmd-stub(7), BY KERNEL AND FILE SYSTEM (man man/elfpmd-stub.7)"
	fi
}

# make distcheck builds the tarball out of its tree, with the sources read-only,
# and runs make check-quick's tests there (the unit tests, the command line,
# the fixtures built from the tarball's sources, a tenth of the malformed
# inputs) and run-stub.sh (the stubs built from the tarball's stub/).  The
# rest already ran in make check above; what else distcheck is for is done
# there too: dist_complete checks that every file git tracks is in the
# tarball, and tests/run-packages-*.sh build the Debian and RPM packages from
# make dist's tarball.
DISTCHECK_EXTRA_TESTS="tests/run-stub.sh"

# dist_complete: fails if a file git tracks (but .gitignore) is not in
# make dist's tarball; says so and returns when the tree is not a git checkout.
dist_complete () {
	if ! files=$(git -C "$top" ls-files 2>/dev/null) || [ -z "$files" ]; then
		echo "== not a git checkout: the tarball's contents are not compared with git ls-files"
		return 0
	fi
	(cd "$top/_build" && make -s dist > /dev/null) || exit 1
	name=$(cd "$top/_build" && make -s -f Makefile -f - print-distdir <<'MK'
print-distdir:
	@echo $(distdir)
MK
)
	tar -tzf "$top/_build/$name.tar.gz" | sed -n "s|^$name/||p" | sort > "$top/_build/dist.list"
	missing=$(printf '%s\n' "$files" | grep -v -x -e .gitignore | sort | comm -23 - "$top/_build/dist.list")
	if [ -n "$missing" ]; then
		echo "== files git tracks but make dist leaves out (add them to EXTRA_DIST):"
		printf '   %s\n' $missing
		exit 1
	fi
}

check () {
	build "$top/_build"
	dwarf0
	# Every suite, the slow ones too (VM boots, cross builds, packaging and
	# build systems: tests/lib.sh, require_slow), here and in distcheck.
	ELFPMD_SLOW_TESTS=1
	export ELFPMD_SLOW_TESTS
	echo "== make check (with the slow suites)"
	(cd "$top/_build" && make -s -j"$jobs" check) || { cat "$top"/_build/tests/*.log; exit 1; }
	echo "== sanitizer build: unit, command-line and malformed-input tests under ASan+UBSan"
	build "$top/_build-asan" --enable-sanitizers
	# A quarter of the malformed inputs (other flip seeds than make check's
	# full set draws): all 3,850 under ASan took more than 16 minutes here.
	(cd "$top/_build-asan" && make -s -j"$jobs" check MALFORMED_PERCENT=25 \
		TESTS="tests/check_phdr_align tests/check_sizes tests/check_report tests/check_layout tests/check_text_chunks tests/check_smaps tests/check_manifest_file $(cli_tests) tests/run-malformed-mutations.sh tests/run-malformed-batch.sh tests/run-malformed-not-elf.sh tests/run-malformed-not-regular.sh tests/run-malformed-permissions.sh tests/run-malformed-full-fs.sh tests/run-malformed-keep-attributes.sh $(map_tests)") \
		|| { cat "$top"/_build-asan/tests/*.log; exit 1; }
	# Asked of _build-asan, configured last: the autoreconf of its build made
	# _build's Makefile older than configure, and make there would first rerun
	# config.status, whose messages would land in the list (CI, 2026-12-05).
	# The last line is the list whatever make printed before it.
	quick=$(cd "$top/_build-asan" && make -s -f Makefile -f - print-quick <<'MK' | tail -n 1
print-quick:
	@echo QUICK: $(QUICK_TESTS)
MK
)
	case $quick in
	"QUICK: "?*) tests="${quick#QUICK: } $DISTCHECK_EXTRA_TESTS" ;;
	*) echo "== could not read QUICK_TESTS from _build-asan/Makefile: $quick"; exit 1 ;;
	esac
	echo "== make distcheck (tests: $tests)"
	dist_complete
	(cd "$top/_build" && make -s distcheck TESTS="$tests" MALFORMED_PERCENT=10 > distcheck.log 2>&1) \
		|| { tail -100 "$top/_build/distcheck.log"; exit 1; }
	tail -4 "$top/_build/distcheck.log"
	echo "== test logs"
	grep -h -E '^# (pass|TOTAL|PASS|FAIL|SKIP|XFAIL|ERROR)' "$top"/_build/test-suite.log "$top"/_build-asan/test-suite.log \
		"$top"/_build-dwarf0/test-suite.log 2>/dev/null || true
	grep -h -E '^[0-9]+%: Checks' "$top"/_build/tests/check_*.log || true
	grep -h -E '^[0-9]+ passed, [0-9]+ failed' "$top"/_build/tests/*.log || true
}

case $what in
demo) install_packages user; build "$top/_build"; demo ;;
check) install_packages all; check ;;
build) install_packages user; build "$top/_build" ;;
*) echo "usage: sh tools/setup.sh demo|check|build" >&2; exit 64 ;;
esac
