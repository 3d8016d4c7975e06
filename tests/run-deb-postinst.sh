#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-postinst.sh: the elfpmd package's postinst by hand, as dpkg runs
# it, in a scratch root where dpkg --root installed the hook package and
# then the aligned package of run-deb-build.sh (deb-lib.sh,
# deb_root_installed): triggered again with no list written since, it runs
# no elfpmd; a list written anew (as an upgrade does; one of its paths
# gone, the trigger named among others) is primed again, its paths given,
# nothing printed; with no elfpmd in PATH, exit 0.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
scratch_dir
deb_root_installed

prime_log_reset
run_postinst triggered /usr/lib/elfpmd/prime.d > "$work/again.out" 2>&1
check "triggered again, no new list: exit 0, elfpmd not run" test $? -eq 0 -a ! -e "$work/prime.args"
cp "$root/$list_path" "$root/$list_path.new" && echo /usr/bin/gone >> "$root/$list_path.new" \
	&& mv "$root/$list_path.new" "$root/$list_path"
run_postinst triggered "other /usr/lib/elfpmd/prime.d" > "$work/new.out" 2>&1
rc=$?
check "a list written anew, a path gone: exit 0, its 3 paths given, nothing printed ($(cat "$work/new.out"))" \
	test "$rc.$(wc -l < "$work/prime.names" 2>/dev/null).$(wc -c < "$work/new.out")" = "0.3.0"
cp "$root/$list_path" "$root/$list_path.new" && mv "$root/$list_path.new" "$root/$list_path"
(cd "$root" && env DPKG_ROOT="$root" PATH=/usr/bin:/bin sh "$debian_dist/elfpmd.postinst" \
	triggered /usr/lib/elfpmd/prime.d) > "$work/noelfpmd.out" 2>&1
check "no elfpmd in PATH: exit 0 ($(cat "$work/noelfpmd.out"))" test $? -eq 0
finish
