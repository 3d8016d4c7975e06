#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-strip.sh: strip and eu-strip of a fixture given the stub keep
# the stub: elfpmd still finds it, and from a cold cache it still gets at
# least 95% of the whole chunks PMD-mapped.  GNU strip cannot rewrite a
# file whose program header table moved (no free slot, nothing after it
# could move): a known limit, documented, skipped.  Needs root, THP and
# file THP on the build tree's file system.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache

stripped () {
	local stripper sd
	mad_rewrite || return
	"$ELFPMD" -n --json --madvise "$w/orig/$file" >"$w/report.json" 2>&1
	for stripper in strip eu-strip; do
		if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
		if [ "$stripper" = strip ] && grep -q '"table_moved":true' "$w/report.json"; then
			skip "$name: strip: elfpmd reports that the program header table moved (no free slot, nothing after it could move), which GNU strip cannot rewrite (a known limit, documented)"
			continue
		fi
		sd=$w/$stripper
		mkdir -p "$sd"
		cp -p "$r" "$sd/$file"
		if ! $stripper "$sd/$file" 2>"$w/strip.err"; then
			fail "$name: $stripper fails on the rewritten file: $(head -1 "$w/strip.err")"
			continue
		fi
		"$ELFPMD" -n --json --madvise "$sd/$file" >"$w/strip.json" 2>&1
		check "$name: after $stripper, elfpmd still finds the stub" \
			grep -q '"stub":{"injected":false,"present":true' "$w/strip.json"
		"$PAGECACHE" evict "$sd/$file" >/dev/null 2>&1
		coverage "$stripper" "$sd" "$sd/$file"
	done
}
for_each_mad_fixture stripped
finish
