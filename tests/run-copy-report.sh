#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-report.sh: --madvise=copy in the report (copy, copy_max, --copy-max
# rounded to whole chunks) and its usage errors (tests/copy.sh, part report).
COPY_PARTS=report
# shellcheck source=tests/copy.sh
. "$(dirname "${BASH_SOURCE[0]}")/copy.sh"
