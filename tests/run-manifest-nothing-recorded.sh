#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-nothing-recorded.sh: elfpmd reapply where nothing was ever
# converted with the default manifest (/var/lib/elfpmd/manifest) says so
# and exits 0.  A dry run: this machine's manifest is never touched, and
# where there is one the case is not run.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
if [ -e /var/lib/elfpmd/manifest ] || [ -L /var/lib/elfpmd/manifest ]; then
	skip_all "this machine has /var/lib/elfpmd/manifest: the fresh-system case is not run"
fi
out=$("$ELFPMD" reapply -n 2>&1)
rc=$?
holds "reapply -n without a manifest: exit 0 (got $rc), nothing recorded ($out)" \
	'[ $rc -eq 0 ] && printf "%s\n" "$out" | grep -qx "elfpmd reapply: nothing recorded (no /var/lib/elfpmd/manifest)"'
finish
