#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile-sections.sh: a section without contents of lld-pie (lib.sh:
# hostile numbers, check_case) whose offset lies near 2^64 (SHT_NOBITS) or
# past the end (SHT_NULL at 2^40): the file is padded as it would be
# without.

set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hostile_setup lld-pie
lld=$O/lld-pie
nobits=$(readelf -SW "$lld" | awk '$3 == "NOBITS" || $4 == "NOBITS" { gsub(/[][]/, "", $1); print $1 + 0; exit }')
if [ -n "$nobits" ]; then
	f=$WORK/nobits
	cp "$lld" "$f"
	poke "$f" shdr "$nobits" offset 0xffffffffffffff00
	check_case "NOBITS section at offset 2^64 - 256" "$f" 'R["padded_segments"] == 1'
	f=$WORK/null
	cp "$lld" "$f"
	poke "$f" shdr "$nobits" type 0 shdr "$nobits" offset 0x10000000000
	check_case "SHT_NULL section at offset 2^40" "$f" 'R["padded_segments"] == 1'
fi
test_finish
