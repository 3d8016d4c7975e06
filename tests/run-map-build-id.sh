#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-build-id.sh: for exec-bid, stripped of everything, elfpmd map
# finds the DWARF by its build ID under the debug root
# (root/.build-id/XX/REST.debug) and names that file in the report.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start exec-bid root
export ELFPMD_DEBUG_ROOT=$WORK/root
if $dwarf; then
	map_check exec-bid exec-bid dwarf "$WORK/root/.build-id/${id:0:2}/${id:2}.debug:build-id"
else
	map_check exec-bid exec-bid symtab "$WORK/root/.build-id/${id:0:2}/${id:2}.debug"
fi
test_finish
