#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-stash.sh: the add-on's own stash gives no warning.  Before the
# package's tests, dh_elfpmd_buildtree keeps the build tree's files as built
# in a stash of hard links (debian/.debhelper/elfpmd/buildtree) and tells
# elfpmd so (--known-links), which then does not warn that another link
# keeps the old contents.  A build with the distribution's switch
# (DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS elfpmd=madvise) of the test
# package: the tests ran the rewritten files, and the log has no such
# warning.  The sanity arm: in the same tree, dh_elfpmd_buildtree with an
# elfpmd that drops --known-links warns once per file.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_slow "a Debian package built with debhelper"
require_elfpmd

have dpkg-buildpackage || skip_all "dpkg-buildpackage not found (Debian: package dpkg-dev)"
have dh || skip_all "dh not found (Debian: package debhelper)"
have cc || skip_all "no C compiler (cc)"

scratch_dir
require_phdr_dump "$work/tools"
# shellcheck source=tests/deb-lib.sh
. "$TESTS_SRCDIR/deb-lib.sh"
deb_tools
pkg=elfpmd-pkgtest
src=$work/build/$pkg-1.0
deb_switch_source "$src" run-deb-stash.sh || hard_error "cannot create the source package in $src"
warning_re='other hard link.* not in this run'

log=$work/build.log
if ! deb_switch_build "$src" "$log" "parallel=2 elfpmd=madvise"; then
	fail "dpkg-buildpackage with the switch failed"
	tail -15 "$log" | sed 's/^/      /'
	finish
fi
pass "dpkg-buildpackage -b with DH_EXTRA_ADDONS=elfpmd, DEB_BUILD_OPTIONS=\"parallel=2 elfpmd=madvise\""
check "dh_elfpmd_buildtree told elfpmd of its stash (--known-links=debian/.debhelper/elfpmd/buildtree)" \
	grep -q -- '-p --known-links=debian/.debhelper/elfpmd/buildtree$' "$work/elfpmd.args"
for f in $pkg lib$pkg.so.1; do
	check "the tests ran $f rewritten while the stash kept it ($(describe_text "$src/tested/$f"))" \
		text_aligned "$src/tested/$f"
done
check "the build log has no warning of another hard link ($(grep -c "$warning_re" "$log") lines)" \
	eval '! grep -q "$warning_re" "$log"'

# Sanity: without --known-links, the stash's links are warned about.
cat > "$work/bin/elfpmd-forgets" <<'EOF'
#!/bin/sh
# elfpmd without its --known-links argument.
for a; do
	shift
	case $a in --known-links=*) ;; *) set -- "$@" "$a" ;; esac
done
exec "$ELFPMD_REAL" "$@"
EOF
chmod 755 "$work/bin/elfpmd-forgets"
(cd "$src" && pkg_env ELFPMD="$work/bin/elfpmd-forgets" dh_elfpmd_buildtree \
	&& pkg_env dh_elfpmd_buildtree_restore) > "$work/forgets.out" 2>&1
check "sanity: without --known-links, dh_elfpmd_buildtree warns ($(grep -c "$warning_re" "$work/forgets.out") lines: $(grep -m1 "$warning_re" "$work/forgets.out"))" \
	grep -q "^elfpmd: ./$pkg: warning: 1 $warning_re" "$work/forgets.out"

finish
