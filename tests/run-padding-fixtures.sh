#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-fixtures.sh: the lld and GNU ld fixtures padded or aligned in place, their reports,
# runs, eu-elflint, phdr-dump --bytemap, a second run, --no-pad, strip and
# gdb afterwards
# (tests/padding.sh, part fixtures).
PADDING_PARTS=fixtures
# shellcheck source=tests/padding.sh
. "$(dirname "${BASH_SOURCE[0]}")/padding.sh"
