#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-seccomp.sh: seccomp filters that make the stub's calls fail
# with EPERM or ENOSYS, or kill on calls it must never make: the rewrite does
# what the original does (tests/invisible.sh, cases 10).
INVISIBLE_PARTS=seccomp
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
