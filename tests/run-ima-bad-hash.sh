#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-bad-hash.sh: a security.ima elfpmd cannot renew is refused before
# anything is written (lib.sh: ima_refused): another type (0x02), a
# malformed hash (type 0x04, SHA-256, 10 bytes), a hash of an algorithm
# the kernel cannot compute (rmd128), in a dry run too.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_fresh type2
ima set "$W/type2" type2
ima_refused "security.ima of type 0x02" type2 'carries an IMA attribute \(security\.ima\) of type 0x02 .*evmctl'
ima_fresh short
ima set "$W/short" short
ima_refused "malformed hash (0x04 0x04 and 10 bytes)" short 'malformed IMA hash \(security\.ima, 12 bytes for sha256\)'
ima_fresh rmd128
ima set "$W/rmd128" rmd128
ima_refused "hash of an algorithm the kernel lacks (rmd128)" rmd128 'cannot renew its IMA hash \(security\.ima, rmd128\)'
ima_refused "rmd128, --dry-run" rmd128 'cannot renew its IMA hash \(security\.ima, rmd128\)' -n
test_finish
