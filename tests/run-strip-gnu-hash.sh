#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-strip-gnu-hash.sh: a shared object whose program header table is
# followed by a PT_NOTE and a .gnu.hash larger than 64 KiB (libgrpc,
# librustc_driver; lib.sh: libhash.so): elfpmd --madvise moves both into the
# stub's segment and grows the table in place, and strip, strip -g, eu-strip
# and objcopy after it keep a working library that still carries the stub
# (lib.sh: strip_case).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

strip_fixture
strip_case libhash lib "$W/libhash.so" f11999
test_finish
