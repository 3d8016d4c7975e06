#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-small-folios.sh: the page cache states the stub repairs give
# each fixture at least 95% of its whole chunks PMD-mapped: the file cached
# in 4 KiB folios (dropped, then read through a MADV_RANDOM mapping), a
# copy just written in 4 KiB writes (dirty order-0 folios), three runs
# started at once on an order-0 cache (lib.sh: coverage_small_folios).
# Needs root, THP and file THP on the build tree's file system.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup cache

small () { mad_rewrite && coverage_small_folios "$dir" "$w/fresh"; }
for_each_mad_fixture small
finish
