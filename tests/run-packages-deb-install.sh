#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-packages-deb-install.sh: dpkg installs the elfpmd and dh-elfpmd
# packages of run-packages-deb-build.sh into a root of its own (dpkg
# --root; the maintainer scripts run chrootless, with DPKG_ROOT set, which
# the postinst is made for: it primes under the root): both installed, the
# installed elfpmd names the tarball's version, the postinst set its stamp
# under the root; dpkg --purge removes both, and the postrm
# /var/lib/elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/packages-lib.sh"
packages_require dpkg-buildpackage dh dpkg
scratch_dir
packages_need deb

root=$work/deb-root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" \
	&& : > "$root/var/lib/dpkg/status" && : > "$root/var/lib/dpkg/available" \
	|| hard_error "cannot make $root"
dpkg_root () { clean_env dpkg --root="$root" --force-script-chrootless --force-depends "$@"; }
dpkg_root -i "$deb" "$dhdeb" > "$work/install.log" 2>&1
st=$?
holds "dpkg --root installs both: exit 0, both 'ii'" \
	'[ $st -eq 0 ] && [ "$(dpkg_root -l elfpmd dh-elfpmd 2>/dev/null | grep -c "^ii ")" -eq 2 ]' \
	|| sed 's/^/      /' "$work/install.log"
check "installed: $root/usr/bin/elfpmd --version says $version" \
	sh -c "'$root/usr/bin/elfpmd' --version | head -1 | grep -qx 'elfpmd $version'"
check "installed: the postinst set its stamp under the root" test -e "$root/var/lib/elfpmd/primed"
dpkg_root --purge dh-elfpmd elfpmd > "$work/purge.log" 2>&1
check "dpkg --root --purge: both gone, the postrm removed /var/lib/elfpmd" \
	sh -c "[ ! -e '$root/usr/bin/elfpmd' ] && [ ! -e '$root/var/lib/elfpmd' ]"
finish
