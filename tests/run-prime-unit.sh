#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-unit.sh: the systemd unit (dist/systemd/elfpmd-prime.service.in,
# its paths those of the test): systemd-analyze verify --man=no says nothing
# (SKIP without it); its ExecStart command, run by hand on a list of the
# test's, exits 0 silently and primes a file cached in small folios; it
# bounds the boot's wait (TimeoutStartSec).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
unit=$WORK/unit/elfpmd-prime.service
mkdir -p "$WORK/unit" "$WORK/etc/elfpmd" "$WORK/list"
sed -e "s|@bindir@|${ELFPMD%/*}|g" -e "s|@sysconfdir@|$WORK/etc|g" \
	"$TESTS_SRCDIR/../dist/systemd/elfpmd-prime.service.in" >"$unit" || hard_error "cannot make $unit"
check "the unit has a start timeout (TimeoutStartSec)" grep -q '^TimeoutStartSec=' "$TESTS_SRCDIR/../dist/systemd/elfpmd-prime.service.in"
if [ "${ELFPMD##*/}" != elfpmd ]; then
	skip "ELFPMD ($ELFPMD) is not named elfpmd: the unit's command cannot name it"
	test_finish
elif have systemd-analyze; then
	systemd-analyze verify --man=no "$unit" >"$WORK/verify.out" 2>&1
	rc=$?
	good=false; [ $rc = 0 ] && [ ! -s "$WORK/verify.out" ] && good=true
	check "systemd-analyze verify --man=no elfpmd-prime.service: exit 0 (got $rc), no complaint ($(cat "$WORK/verify.out"))" $good
else
	skip "systemd-analyze not found (Debian: package systemd): the unit is not verified"
fi
# Its command, run by hand on a list of its form (its own path replaced by
# a test list): it primes a file whose chunks were dropped, prints nothing,
# exits 0.
cp "$WORK/align/mad-pie" "$WORK/list/mad-pie"
ideal=$(ideal_chunks "$WORK/list/mad-pie")
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
printf '%s\n' '# files to prime at boot' "$WORK/list/mad-pie" "$WORK/list/gone" >"$WORK/etc/elfpmd/prime.list"
"$PAGECACHE" evict "$WORK/list/mad-pie" >/dev/null && "$PAGECACHE" order0 "$WORK/list/mad-pie" >/dev/null \
	|| hard_error "pagecache evict, order0 failed"
# shellcheck disable=SC2086
out=$($exec_start 2>&1)
rc=$?
good=false; [ $rc = 0 ] && [ -z "$out" ] && good=true
check "the unit's ExecStart ($exec_start): exit 0 (got $rc), nothing printed ($out)" $good
"$ELFPMD" prime --json "$WORK/list/mad-pie" >"$WORK/unit.json"
good=false; [ "$(json "$WORK/unit.json" already)" = "$ideal" ] && [ "$(json "$WORK/unit.json" primed)" = 0 ] && good=true
check "... the listed file's $ideal chunks were primed ($(cat "$WORK/unit.json"))" $good
test_finish
