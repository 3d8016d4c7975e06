#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-debuglink.sh: elfpmd map finds the DWARF of exec-dl in the file
# its .gnu_debuglink names (exec-g.debug) beside it, in .debug/ beside it,
# and under the debug root + the file's directory, and names it in the
# report.  (exec-dl has exec-g's build ID, which is looked up first: the
# debug root here has no build-ID tree.)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start exec-dl exec-dl.dbg
export ELFPMD_DEBUG_ROOT=$WORK/root-dl
fb=exec-dl
cp exec-dl.dbg exec-g.debug
$dwarf && fb=$WORK/exec-g.debug:.gnu_debuglink
map_check exec-dl-beside exec-dl $src "$fb"
rm exec-g.debug
mkdir -p .debug && cp exec-dl.dbg .debug/exec-g.debug
$dwarf && fb=$WORK/.debug/exec-g.debug:.gnu_debuglink
map_check exec-dl-dotdebug exec-dl $src "$fb"
rm -r .debug
mkdir -p "root-dl$WORK" && cp exec-dl.dbg "root-dl$WORK/exec-g.debug"
$dwarf && fb=$WORK/root-dl$WORK/exec-g.debug:.gnu_debuglink
map_check exec-dl-root exec-dl $src "$fb"
test_finish
