#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-aarch64-bti.sh: aarch64's BTI.  First, whether qemu-user
# enforces BTI at all (crossbti.S: an indirect call to a function without a
# landing pad must fault in a BTI-marked static program, with one must
# not).  Then BTI-marked fixtures (-mbranch-protection=standard, -z
# force-bti: a PIE, and a library with its PIE) get the checks of every
# cross fixture (lib.sh: cross_fixture) under qemu -cpu max, keep their
# GNU property note through the rewrite (readelf -n), and run the same
# with the text guarded everywhere; with the stub's landing pad (bti jc at
# its entry point) overwritten by a NOP the rewritten program must fault,
# which shows the stub's segment is guarded and the landing pad is what
# lets ld.so in.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cross_start
cross_arch aarch64 bti CROSS_CFLAGS=-mbranch-protection=standard || cross_finish
qemu_opts=(-cpu max)
name=$arch/bti-probe
mkdir -p "$O" || hard_error "cannot create $O"
build_fixture cross-bti-probe "${make_vars[@]}" \
	|| skip_all "$name: cannot build crossbti (log: $O/cross-bti-probe.log): BTI checks skipped"
env -i "qemu-$arch" -cpu max "$O/crossbti" >/dev/null 2>&1; ok=$?
{ env -i "qemu-$arch" -cpu max "$O/crossbti" x >/dev/null 2>&1; bad=$?; } 2>/dev/null
[ "$ok" -eq 7 ] || skip_all "$name: the BTI probe does not even run with a landing pad (exit $ok): BTI checks skipped"
[ "$bad" -eq 132 ] || skip_all "qemu-$arch does not enforce BTI here (a call to a function without a landing pad in a BTI-marked program exits $bad, not 132, SIGILL): BTI checks skipped"
pass "$name: qemu-$arch -cpu max enforces BTI (a call without a landing pad: SIGILL; with one: exit 7)"

for f in "bti-pie cross-bti-pie cross-bti-pie cross-bti-pie e_entry" \
	"bti-lib cross-bti-lib libcrossbti.so usecrossbti DT_INIT"; do
	# shellcheck disable=SC2086
	set -- $f
	cross_fixture "$@"
	[ -f "$w/mad/$file" ] || continue
	note_orig=$(readelf -n "$w/orig/$file" 2>/dev/null | grep -c 'AArch64 feature: .*BTI')
	note_mad=$(readelf -n "$w/mad/$file" 2>/dev/null | grep -c 'AArch64 feature: .*BTI')
	if [ "$note_orig" -ge 1 ] && [ "$note_mad" -eq "$note_orig" ]; then
		pass "$name: the GNU property note (AArch64 feature: BTI) survives --madvise"
	else
		fail "$name: BTI marking: original $note_orig, rewritten $note_mad (readelf -n)"
	fi
	# The stub's jump to the old entry point or DT_INIT (br x16) into a
	# guarded page: with the kernel release faked to 5.10 (qemu -r) the
	# stub only advises the text (no chunk is mapped afresh, which under
	# qemu loses the guard: qemu's /proc/self/smaps shows no "bt" flag
	# for the stub to keep), so every page keeps its guard.
	cross_qemu "$w/old.out" "$w/mad" -cpu max -r 5.10.0
	cross_same "$w/old.out" "--madvise rewrite, text still guarded everywhere (qemu -r 5.10.0),"
	# The negative control: the stub's landing pad replaced by a NOP.
	if [ "$hook" = e_entry ]; then
		entry=$("$PHDR_DUMP" "$w/mad/$file" | sed -n 's/.* entry=\(0x[0-9a-f]*\).*/\1/p')
	else
		entry=$(readelf -dW "$w/mad/$file" | awk '$2 == "(INIT)" { print $3 }')
	fi
	entry_off=$(cross_file_offset "$w/mad/$file" "$(cross_dec "$entry")")
	if [ -z "$entry_off" ]; then
		fail "$name: cannot find the stub's entry point ($entry) in the file"
		continue
	fi
	mkdir -p "$w/nopad"
	cp "$w/mad/$file" "$w/nopad/$file"
	insn=$(od -An -tx4 -j "$entry_off" -N 4 "$w/nopad/$file" | tr -d ' ')
	if [ "$insn" != d50324df ]; then
		fail "$name: the stub's entry point does not start with bti jc (0xd50324df): 0x$insn"
		continue
	fi
	printf '\x1f\x20\x03\xd5' | dd of="$w/nopad/$file" bs=1 seek="$entry_off" conv=notrunc status=none
	cross_qemu "$w/nopad.out" "$w/nopad" -cpu max
	if [ "$(tail -1 "$w/nopad.out")" = "exit status 132" ]; then
		pass "$name: with the stub's bti jc overwritten by a NOP the program faults (SIGILL): the stub's segment is guarded, the landing pad lets ld.so in"
	else
		fail "$name: with the stub's landing pad gone the program still runs ($(tail -1 "$w/nopad.out")): is the stub's segment guarded?"
	fi
done
cross_finish
