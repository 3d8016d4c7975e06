#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-locks.sh: another user's locks on the file (flock, faked
# progress, an OFD read lock, a worker and a pretender) delay a start by the
# bounded amount only, for one library and for 24 loaded by one program, and
# a fork while the stub holds its lock leaves no lock behind
# (tests/invisible.sh, cases 7, 7b, 12).
INVISIBLE_PARTS=locks
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
