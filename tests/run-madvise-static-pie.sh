#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-static-pie.sh: elfpmd --madvise on a gcc -static-pie program
# with 17 MiB of text: the report, the same output, eu-elflint, phdr-dump
# --bytemap, a second run, FilePmdMapped >= 95% of the ideal cold, warm,
# order-0, fresh, three at once and sampled, THP disabled, valgrind, gdb,
# failing system calls, strip (tests/madvise.sh, part static-pie).
MADVISE_PARTS=static-pie
# shellcheck source=tests/madvise.sh
. "$(dirname "${BASH_SOURCE[0]}")/madvise.sh"
