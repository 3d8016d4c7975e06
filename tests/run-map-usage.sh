#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-usage.sh: elfpmd map's usage errors exit 64 (no FILE, two FILEs,
# an unknown option), and map --help documents the perf command that makes
# a --hot profile.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
map_err_check "no FILE: usage error 64" 64 'no FILE' map
map_err_check "two FILEs: usage error 64" 64 'one FILE only' map exec-g exec-g
map_err_check "unknown option: usage error 64" 64 'unrecognized option' map --bogus exec-g
"$ELFPMD" map --help >help.out 2>&1
check "map --help documents the exit status and the perf command" \
	grep -q 'perf report --stdio --no-children -q --no-demangle' help.out
test_finish
