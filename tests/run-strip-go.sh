#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-strip-go.sh: a program whose section header table follows the program
# header table inside the first PT_LOAD (the Go linker's layout: terraform;
# lib.sh: go): elfpmd --madvise writes the section headers anew after the
# stub and grows the table over their old place, and strip, strip -g,
# eu-strip and objcopy after it keep a working program that still carries
# the stub (lib.sh: strip_case).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

strip_fixture
strip_case go prog "$W/go"
test_finish
