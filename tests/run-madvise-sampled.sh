#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-sampled.sh: a stub that samples (--populate-max=0: every range
# larger than the sample is sampled) still gets at least 95% of the whole
# chunks PMD-mapped, cold, warm (where it leaves the chunks it did not
# sample to the program's own faults) and from an order-0 cache (where it
# finds small folios and populates everything).  Needs root, THP and file
# THP on the build tree's file system.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache

sampled () {
	local s=$w/sampled
	mkdir -p "$s"
	if ! "$ELFPMD" -q --madvise --populate-max=0 -o "$s/$file" "$w/orig/$file" >"$w/sampled.log" 2>&1; then
		fail "$name: elfpmd --madvise --populate-max=0 failed: $(head -3 "$w/sampled.log")"
		return
	fi
	drop_caches
	coverage sampled-cold "$s" "$s/$file"
	coverage sampled-warm "$s" "$s/$file"
	drop_caches
	"$PAGECACHE" order0 "$s/$file" >/dev/null 2>&1
	coverage sampled-order-0 "$s" "$s/$file"
}
for_each_mad_fixture sampled
finish
