#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-here.sh: where file THP works here, the copy rewrite gets every
# whole chunk file-backed on PMDs, cold, warm and order-0, and makes no
# mremap: no copy (tests/copy.sh, part here).
COPY_PARTS=here
# shellcheck source=tests/copy.sh
. "$(dirname "${BASH_SOURCE[0]}")/copy.sh"
