#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-seccomp-service.sh: the stub works under systemd's
# @system-service allow-list.  tests/fixtures/invseccomp.c system-service
# is systemd 252's SystemCallFilter=@system-service (a real unit needs
# systemd as PID 1, which this machine need not have): it kills the
# process on any other call, mincore and cachestat among them.  For
# inv-static-pie and inv-pie rewritten by elfpmd --madvise, from a cold,
# an order-0 and a warm page cache: the rewrite prints what the original
# prints under the filter, and its FilePmdMapped under the filter is at
# least 95% of the ideal wherever it is so without the filter, from the
# same state.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
inv_fixture static-pie
inv_fixture pie
stub_fixture inv-tools

for fx in static-pie pie; do
	if [ $fx = pie ]; then o=$P_ORIG m=$P_MAD; else o=$S_ORIG m=$S_MAD; fi
	for s in cold order-0 warm; do
		w=$WORK/seccomp.$fx.service.$s
		what="seccomp system-service, $fx, $s"
		run_logged "$w.orig" "$O/invseccomp" system-service "$o" "${ARGS[@]}"
		cache_state $s "$m"
		rm -f "$w.smaps" "$w.free.smaps"
		FIXTURE_SMAPS=$w.smaps run_logged "$w.mad" "$O/invseccomp" system-service "$m" "${ARGS[@]}"
		if [ "$(tail -1 "$w.orig")" != "exit status 42" ]; then
			fail "$what: the original $(tail -1 "$w.orig"): $(head -1 "$w.orig.err")"
		elif cmp -s "$w.orig" "$w.mad"; then
			pass "$what: the rewrite does what the original does under systemd 252's @system-service allow-list"
		else
			fail "$what: the rewrite $(tail -1 "$w.mad"), the original $(tail -1 "$w.orig")"
			diff "$w.orig" "$w.mad" | head -4 | sed 's/^/      /'
			continue
		fi
		cache_state $s "$m"
		FIXTURE_SMAPS=$w.free.smaps run_logged "$w.free" "$m" "${ARGS[@]}"
		read -r kb want _ <<<"$(pmd_coverage "$w.free.smaps" "$m")"
		read -r fkb _ _ <<<"$(pmd_coverage "$w.smaps" "$m")"
		if [ "${want:-0}" -gt 0 ] && [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
			check_pmd_coverage "$what (without the filter $kb kB)" "$w.smaps" "$m"
		else
			note "$what: FilePmdMapped ${fkb:-?} kB under the filter, ${kb:-?} kB without, of ${want:-?} kB ideal"
		fi
	done
done
stub_finish
