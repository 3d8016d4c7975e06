#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-macros.sh: where rpm reads dist/rpm/macros.elfpmd, by rpm --eval
# with the rpm installed here and the file from the source tree
# (rpm-lib.sh, rpm_macros_setup): read after the platform file (the
# /etc/rpm form, and --load), %__os_install_post is the platform's
# (which runs brp-strip) followed by %__brp_elfpmd, the script with -- and
# the paths, without a recursion error, the same when expanded twice, with
# brp-elfpmd once when the file is read twice; read before it (the
# macros.d form), the platform's definition hides the hook, which is
# defined all the same, until a spec asks for it with %define
# __os_install_post %{__elfpmd_os_install_post} (once, also in the
# /etc/rpm form).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_macros_setup

case $brp_line in
"$brp -- /usr/bin "*) pass "%__brp_elfpmd is the script with -- and the paths: $brp_line" ;;
*) fail "%__brp_elfpmd: '$brp_line'" ;;
esac
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
finish
