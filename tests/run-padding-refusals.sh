#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-refusals.sh: files crafted so that padding must be refused (a segment or a section
# spanning the text's start, the program headers in a PT_LOAD at the end, a
# later segment that would need a second hole): the reason is reported and
# the file left alone or aligned without a hole
# (tests/padding.sh, part refusals).
PADDING_PARTS=refusals
# shellcheck source=tests/padding.sh
. "$(dirname "${BASH_SOURCE[0]}")/padding.sh"
