#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-second-run.sh: elfpmd run again on a file it padded or
# aligned finds nothing to do and leaves the file alone: its bytes, its
# inode, its modification time.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

second () { pad_rewrite && second_run_alone "$new"; }
for_each_padding_fixture second
finish
