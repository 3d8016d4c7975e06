#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-mad.sh: elfpmd prime of elfpmd --madvise's rewrite (mad), cold,
# cached in 4 KiB folios and freshly written (lib.sh: prime_states): every
# whole chunk in a PMD-sized folio, the first start has all its text
# PMD-mapped and its stub has nothing to repair (strace: no fadvise64).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require orig mad
prime_states mad
test_finish
