#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols-strip.sh: strip and eu-strip of the --madvise rewrite of
# a stripped file (which carries the stub's MiniDebugInfo) keep the program
# running.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_symbols_start
for tool in strip eu-strip; do
	have "$tool" || continue
	"$tool" -o "rw.$tool" rw 2>"$tool.log"
	"./rw.$tool"
	check "$tool: the program still runs (exit $?)" test "$?" = 7
done
test_finish
