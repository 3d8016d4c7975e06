#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-xfs.sh: elfpmd --madvise on the PIE on a loop-mounted xfs image
# (large folios since Linux 5.18): coverage cold, warm, order-0, fresh and
# three at once, and a cold start that runs none of the text reading at most 3
# chunks more than the original (tests/madvise.sh, part xfs).
MADVISE_PARTS=xfs
# shellcheck source=tests/madvise.sh
. "$(dirname "${BASH_SOURCE[0]}")/madvise.sh"
