#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-privilege-setuid.sh: a set-user-ID root copy of inv-pie rewritten with
# --madvise=copy, started by nobody, gains the stub nothing: it prints what
# the original prints and the stub reads no environment, writes no perf
# map, creates no file, takes no lock, evicts, syncs and drops nothing and
# never sleeps (lib.sh, privileged; the control, started by root, does lock
# and evict).  Needs root, strace, setarch, the user nobody, and a
# directory under /tmp not mounted nosuid; skips (77) without them.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

privilege_start "a set-user-ID file, running as nobody, drop_caches" inv-pie
privileged "set-user-ID root" 'chmod 4755 "$P"'
finish
