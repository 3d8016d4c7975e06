#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-align.sh: elfpmd prime of elfpmd's rewrite without the stub
# (align), cold, cached in 4 KiB folios and freshly written (lib.sh:
# prime_states): every whole chunk in a PMD-sized folio, and the first start
# has all its text PMD-mapped, which only the page cache can give it.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require orig align
prime_states align
test_finish
