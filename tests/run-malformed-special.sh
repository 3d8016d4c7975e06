#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-special.sh: files that are not ELF or not regular (empty,
# text, archives, a directory, symbolic links, a FIFO, a device, a sparse
# 5 GiB file), unreadable files and directories, full and read-only file
# systems, kept owner, set-id bits, xattrs and capabilities, and batches
# with failures among them (tests/malformed.sh, part "special").
MALFORMED_PARTS=special
# shellcheck source=tests/malformed.sh
. "$(dirname "${BASH_SOURCE[0]}")/malformed.sh"
