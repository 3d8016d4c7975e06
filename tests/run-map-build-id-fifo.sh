#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-build-id-fifo.sh: a FIFO under the name of exec-bid's debug file
# (the build ID under the debug root) is passed over, never opened:
# opening it would block.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start exec-bid
mkdir -p "root-fifo/.build-id/${id:0:2}" && mkfifo "root-fifo/.build-id/${id:0:2}/${id:2}.debug" \
	|| hard_error "cannot make a FIFO in $WORK/root-fifo"
ELFPMD_DEBUG_ROOT=$WORK/root-fifo timeout 60 "$ELFPMD" map exec-bid >fifo.txt 2>&1
st=$?
holds "exec-bid, a FIFO under the build ID's name: passed over, not opened (exit $st)" \
	'[ $st = 0 ] && grep -q "^names: " fifo.txt && ! grep -q "^names: DWARF" fifo.txt'
test_finish
