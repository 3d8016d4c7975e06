#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-selftest.sh: the independent checker's self-test: phdr-dump --bytemap and
# elfpmd's own read-back checker must each catch every kind of damage done
# to a padded output and to outputs of --madvise
# (tests/padding.sh, part selftest).
PADDING_PARTS=selftest
# shellcheck source=tests/padding.sh
. "$(dirname "${BASH_SOURCE[0]}")/padding.sh"
