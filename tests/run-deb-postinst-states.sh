#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-postinst-states.sh: the elfpmd package's postinst never fails
# dpkg, whatever the disk's state: run by hand under dash (set -e, as dpkg
# runs it), with a new list waiting, in a scratch root where dpkg --root
# installed the hook package and the aligned package of run-deb-build.sh
# (deb-lib.sh, deb_root_installed), it exits 0 within 20 s with
# /var/lib/elfpmd full (a tmpfs with no inode left: the stamp cannot be
# made), read-only, and with a list naming a FIFO (elfpmd prime opens no
# FIFO, so nothing blocks).  Needs dash, root and a tmpfs mount.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages installed with dpkg --root"
have dash || skip_all "postinst in a full or read-only /var: needs dash, root and a tmpfs mount"
[ "$(id -u)" = 0 ] || skip_all "postinst in a full or read-only /var: needs dash, root and a tmpfs mount"
scratch_dir
deb_root_installed

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
CLEANUP+=("umount -l '$stampdir'")
mount -t tmpfs -o size=1M,nr_inodes=8 elfpmd-test "$stampdir" 2>/dev/null \
	|| skip_all "postinst in a full or read-only /var: needs dash, root and a tmpfs mount"
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
mkfifo "$root/usr/bin/elfpmd-test-fifo"
printf '/usr/bin/elfpmd-test-fifo\n' > "$root/usr/lib/elfpmd/prime.d/fifo.list"
prime_log_reset
postinst_in "a list naming a FIFO" triggered /usr/lib/elfpmd/prime.d
finish
