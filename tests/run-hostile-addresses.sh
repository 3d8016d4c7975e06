#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile-addresses.sh: hostile addresses and sizes on mad-pie's last
# PT_LOAD with --madvise (lib.sh: hostile numbers, check_case): ending 16
# bytes below 2^64 (no room for the stub's segment), above 2^63 (signed
# overflow in the stub's relative addresses, with a small PMD so that the
# stub has work), a 1 GiB .bss (the stub's segment goes after the contents,
# not after the gigabyte); and a page size the machine does not have, also
# with --pmd-size, refused (the stub's own refusal of segments that are not
# congruent modulo the page size is tested in check_layout).

set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hostile_setup mad-pie
pie=$O/mad-pie
n=$("$PHDR_DUMP" "$pie" | awk '$2 == "LOAD"' | wc -l)
last=$("$PHDR_DUMP" "$pie" | awk '$2 == "LOAD" { i = $1 } END { print i }')
last_off=$(field "$pie" LOAD 4 "$n")
last_filesz=$(field "$pie" LOAD 6 "$n")
# The last segment ends within a page of 2^64: no room for the stub's.
f=$WORK/top
cp "$pie" "$f"
poke "$f" phdr "$last" vaddr "$(u64 $((0xfffffffffffff000 - 0x10000 + (last_off & 0xfff))))" \
	phdr "$last" memsz $((0x10000 - 0x10 - (last_off & 0xfff)))
check_case "a PT_LOAD ending 16 bytes below 2^64" "$f" \
	'not R["stub"]["injected"] and "address space" in R["stub"]["reason"]' --madvise
# A PT_LOAD at an address above 2^63 (signed overflow in the stub's
# relative addresses), with a small PMD so that the stub has work.
f=$WORK/high
cp "$pie" "$f"
poke "$f" phdr "$last" vaddr "$(u64 $((0x8000000000000000 + last_off)))"
check_case "a PT_LOAD above 2^63, --pmd-size=64K" "$f" '' --madvise --pmd-size=64K
# A 1 GiB .bss: the stub's segment goes after the contents, not after
# the gigabyte of address space.
f=$WORK/bss
cp "$pie" "$f"
poke "$f" phdr "$last" memsz $((last_filesz + (1 << 30)))
check_case "a 1 GiB .bss" "$f" \
	'R["stub"]["injected"] and R["size_after"] < R["size_before"] + (1 << 20)' --madvise
# A page size the machine does not have, also with --pmd-size: refused
# (the stub's own refusal of segments that are not congruent modulo
# the page size is tested in check_layout).
check_case "--page-size=16K on x86-64" "$pie" '' --madvise --pmd-size=2M --page-size=16K
test_finish
