#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile-headers.sh: hostile program headers on lld-pie (lib.sh:
# hostile numbers, check_case): a PT_PHDR that does not describe the table
# (larger than it) is an ordinary header, which stays as it is, and the stub
# is refused with the reason; a PT_INTERP larger in memory than in the file,
# whose memory cannot move into the stub's segment with its bytes, so the
# table does not grow over it.

set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hostile_setup lld-pie
lld=$O/lld-pie
phdr_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "PHDR" { print $1; exit }')
if [ -n "$phdr_index" ]; then
	f=$WORK/phdrsize
	cp "$lld" "$f"
	poke "$f" phdr "$phdr_index" filesz 0x400 phdr "$phdr_index" memsz 0x400
	check_case "PT_PHDR larger than the table" "$f" 'R["padded_segments"] == 1'
	check_case "PT_PHDR larger than the table, --madvise" "$f" \
		'not R["stub"]["injected"] and "PT_PHDR" in R["stub"]["reason"]' --madvise --move-table --pmd-size=64K
fi
# PT_INTERP larger in memory than in the file: its memory cannot move
# into the stub's segment with its bytes, so the table does not grow
# over it.
interp_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "INTERP" { print $1; exit }')
if [ -n "$interp_index" ]; then
	f=$WORK/interpmem
	cp "$lld" "$f"
	poke "$f" phdr "$interp_index" memsz 0x10000
	check_case "PT_INTERP with p_memsz > p_filesz, --madvise" "$f" \
		'R["stub"]["injected"] and not R["stub"]["table_grown"]' --madvise --move-table --pmd-size=64K
fi
test_finish
