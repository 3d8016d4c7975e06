#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-bolt.sh: BOLT's layout: the program headers in a later, already aligned
# segment, with and without PT_PHDR, in a program and in libraries
# (tests/padding.sh, part bolt).
PADDING_PARTS=bolt
# shellcheck source=tests/padding.sh
. "$(dirname "${BASH_SOURCE[0]}")/padding.sh"
