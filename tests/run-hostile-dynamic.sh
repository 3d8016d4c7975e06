#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile-dynamic.sh: hostile dynamic sections of libmadbig.so with
# --madvise (lib.sh: hostile numbers, check_case): a PT_DYNAMIC over the ELF
# header (its zero words are no spare DT_NULL); without DT_INIT the stub takes
# the first DT_NULL only when the entry right after it is DT_NULL too (a
# later one would turn what lies between into entries); a DT_INIT pointing
# where the stub's segment will go (the stub would call itself).

set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hostile_setup mad-lib
lib=$O/libmadbig.so
dyn=$("$PHDR_DUMP" "$lib" | awk '$2 == "DYNAMIC" { print $1; exit }')
# PT_DYNAMIC over the ELF header: its zero words are no spare DT_NULL.
f=$WORK/dynhdr
cp "$lib" "$f"
poke "$f" phdr "$dyn" offset 0 phdr "$dyn" filesz 0x40 phdr "$dyn" memsz 0x40 phdr "$dyn" vaddr 0
check_case "PT_DYNAMIC over the ELF header" "$f" \
	'"stub" not in R or not R["stub"]["injected"]' --madvise
# Without DT_INIT, the stub takes the first DT_NULL only when the entry
# right after it is DT_NULL too: a later one would turn what lies
# between into entries.
f=$WORK/nullgap
cp "$lib" "$f"
poke "$f" dyn DT_INIT val 0 dyn DT_INIT tag 21 dyn DT_NULL+1 val 0 dyn DT_NULL+1 tag 21
check_case "no DT_INIT, DT_NULL then another entry" "$f" \
	'not R["stub"]["injected"] and "spare" in R["stub"]["reason"]' --madvise
f=$WORK/nullpair
cp "$lib" "$f"
poke "$f" dyn DT_INIT val 0 dyn DT_INIT tag 21
check_case "no DT_INIT, two DT_NULLs" "$f" \
	'R["stub"]["injected"] and "spare" in R["stub"]["hook"]' --madvise
# DT_INIT pointing where the stub's segment will go: the stub would
# call itself.
entry=$("$ELFPMD" -n --json --madvise "$lib" | json_get /dev/stdin 'R["stub"]["entry"]')
f=$WORK/initself
cp "$lib" "$f"
poke "$f" dyn DT_INIT val "$entry"
check_case "DT_INIT at the stub's future entry" "$f" \
	'not R["stub"]["injected"] and "stub" in R["stub"]["reason"]' --madvise
test_finish
