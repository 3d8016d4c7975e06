#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-deb-modes.sh: the aligned build's .deb (run-deb-build.sh) lists the
# same modes, owners, names and link targets as the noelfpmd build's but
# for the prime list (dpkg-deb -c without sizes and dates), the program is
# set-user-ID as debian/rules made it in both (so the mode check can
# fail), and DEBIAN/md5sums matches the rewritten files.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/deb-lib.sh"
deb_require "Debian packages built with debhelper"
scratch_dir
deb_need make
A=$DEB_BUILT/aligned
B=$DEB_BUILT/noelfpmd

# listing FILE: dpkg-deb -c output without sizes and dates: modes, owners,
# names and link targets.
listing () { awk '{ $3 = ""; $4 = ""; $5 = ""; print }' "$1"; }
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
finish
