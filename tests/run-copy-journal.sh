#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-journal.sh: on ext4 mounted data=journal, only the copy gives huge
# pages: exactly the ideal, cold, warm and order-0, one mremap; --copy-max,
# PR_SET_THP_DISABLE, executable anonymous memory refused, the copies' name
# (tests/copy.sh, part journal).
COPY_PARTS=journal
# shellcheck source=tests/copy.sh
. "$(dirname "${BASH_SOURCE[0]}")/copy.sh"
