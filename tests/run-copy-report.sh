#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-report.sh: the report of elfpmd --madvise=copy (elfpmd-stub(7),
# THE COPY FALLBACK).  For mad-pie (tests/fixtures madbig.S, 17 MiB of text),
# elfpmd -n --json says "copy":true and a copy_max of all the whole 2 MiB
# chunks of its text; with --copy-max=5M, two chunks (rounded down to
# whole chunks); with plain --madvise, "copy":false and copy_max 0.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# copy_fields OPTION...: "COPY COPY_MAX" of the stub in elfpmd -n --json
# OPTION... mad-pie.
copy_fields () {
	"$ELFPMD" -n --json "$@" "$MADPIE" | python3 -c '
import json, sys
s = json.loads(sys.stdin.readline())["stub"]
print(str(s["copy"]).lower(), s["copy_max"])'
}

stub_test_start
copy_fixture

read -r copy max <<<"$(copy_fields --madvise=copy)"
holds "--madvise=copy: the report says copy $copy, copy_max $max = the $IDEAL whole chunks" \
	'[ "$copy" = true ] && [ "$max" -eq $((IDEAL * PMD)) ]'
read -r copy max <<<"$(copy_fields --madvise=copy --copy-max=5M)"
holds "--copy-max=5M: copy_max $max, two whole chunks" '[ "$max" -eq $((2 * PMD)) ]'
read -r copy max <<<"$(copy_fields --madvise)"
holds "plain --madvise: copy $copy, copy_max $max" '[ "$copy" = false ] && [ "$max" -eq 0 ]'
stub_finish
