#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-textrel.sh: text relocations and execute-only text get no
# stub, and the result runs as the original in every cache state
# (tests/invisible.sh, cases 4).
INVISIBLE_PARTS=textrel
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
