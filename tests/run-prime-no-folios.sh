#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-no-folios.sh: where elfpmd prime can give no PMD-sized folios
# it says why and exits 0: under PR_SET_THP_DISABLE (fixtures/thp-off); on
# tmpfs; on ext4 mounted data=journal on a loop device (no large folios),
# where a second prime reads at most one chunk again (SKIP where loop mounts
# fail).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
drop_caches
out=$("$THP_OFF" "$ELFPMD" prime "$WORK/align/mad-pie" 2>&1)
rc=$?
holds "under PR_SET_THP_DISABLE: exit 0 (got $rc) and says so ($out)" \
	'[ $rc = 0 ] && [[ $out == *"PR_SET_THP_DISABLE"* ]]'
if [ -d /dev/shm ] && [ "$(df -PT /dev/shm | awk 'NR == 2 { print $2 }')" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/elfpmd-prime.XXXXXX)
	cp "$WORK/align/mad-pie" "$shm/mad-pie"
	out=$("$ELFPMD" prime "$shm/mad-pie" 2>&1)
	rc=$?
	rm -rf "$shm"
	holds "on tmpfs: exit 0 (got $rc) and says why not ($out)" '[ $rc = 0 ] && [[ $out == *tmpfs* ]]'
else
	skip "no tmpfs at /dev/shm"
fi
if journal_mount "$WORK" 100M >"$WORK/loop.why" 2>&1; then
	cp "$WORK/align/mad-pie" "$MNTED/mad-pie"
	sync
	"$ELFPMD" prime "$MNTED/mad-pie" >/dev/null 2>&1
	b0=$(loop_read)
	out=$("$ELFPMD" prime "$MNTED/mad-pie" 2>&1)
	rc=$?
	b1=$(loop_read)
	holds "ext4 data=journal: exit 0 (got $rc), says the file gets no PMD-sized folios ($out)" \
		'[ $rc = 0 ] && [[ $out == *"no PMD-sized folios"* ]]'
	check "ext4 data=journal: a second prime reads at most one chunk again ($(((b1 - b0) / 1024)) KiB)" \
		[ $((b1 - b0)) -le $((2 << 20)) ]
	journal_umount
else
	skip "ext4 data=journal: loop mounts fail here: $(tail -1 "$WORK/loop.why")"
fi
test_finish
