#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-rpm-contents.sh: elfpmd's rpm of run-packages-rpm-build.sh
# holds the tool, brp-elfpmd and macros.elfpmd where rpm finds them, the
# bash completion, the systemd unit and every man page (compressed or not),
# and has the file trigger over /usr/bin that runs elfpmd prime -q -T -.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require rpmbuild rpm
scratch_dir
packages_need rpm

rpm -qpl "$rpmfile" > "$work/rpm.list" 2>/dev/null
macrodir=$(rpm --eval '%{_rpmmacrodir}') configdir=$(rpm --eval '%{_rpmconfigdir}')
for f in /usr/bin/elfpmd "$configdir/brp-elfpmd" "$macrodir/macros.elfpmd" \
	/usr/share/bash-completion/completions/elfpmd /usr/lib/systemd/system/elfpmd-prime.service; do
	check "the rpm holds $f" grep -qx "$f" "$work/rpm.list"
done
mandir=$(rpm --eval '%{_mandir}')
for f in $(man_pages | sed "s|^\./usr/share/man/|$mandir/|; s|\.gz\$||"); do
	check "the rpm holds $f (compressed or not)" grep -qE "^$f(\.gz|\.bz2|\.xz|\.zst)?\$" "$work/rpm.list"
done
check "the rpm has the file trigger over /usr/bin" \
	sh -c "rpm -qp --filetriggers '$rpmfile' 2>/dev/null | grep -q '^transfiletriggerin.*/usr/bin' && rpm -qp --filetriggers '$rpmfile' 2>/dev/null | grep -q 'elfpmd prime -q -T -'"
finish
