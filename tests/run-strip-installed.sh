#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-strip-installed.sh: copies of this machine's libgrpc, librustc_driver
# and terraform, when they are installed, checked as the fixtures of
# run-strip-gnu-hash.sh and run-strip-go.sh are (lib.sh: strip_case).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

strip_fixture
n=0
for g in /usr/lib/x86_64-linux-gnu/libgrpc.so.*.*.* /usr/lib/x86_64-linux-gnu/librustc_driver-*.so; do
	[ -f "$g" ] || continue
	b=${g##*/}
	cp "$g" "$WORK/$b"
	strip_case "${b%%.so*}" lib "$WORK/$b" -
	n=$((n + 1))
done
[ $n -gt 0 ] || skip "neither libgrpc nor librustc_driver is installed: the real libraries are not checked (the fixture is)"
tf=$(command -v terraform 2>/dev/null)
if [ -n "$tf" ]; then
	cp "$tf" "$WORK/terraform"
	strip_case terraform prog "$WORK/terraform"
else
	skip "terraform is not installed: the real Go program is not checked (the fixture is)"
fi
test_finish
