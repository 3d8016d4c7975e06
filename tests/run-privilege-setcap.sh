#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-privilege-setcap.sh: run-privilege-setuid.sh's checks with a file
# capability (setcap cap_net_bind_service+ep) instead of the set-user-ID
# bit; skipped without setcap.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

privilege_start "a file capability, running as nobody, drop_caches" inv-pie
{ have setcap && have getcap; } || skip_all "file capability: setcap not found (Debian: libcap2-bin)"
privileged "file capability" 'setcap cap_net_bind_service+ep "$P" 2>/dev/null && getcap "$P" | grep -q cap_net_bind_service'
finish
