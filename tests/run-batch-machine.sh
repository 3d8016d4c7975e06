#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-machine.sh: --machine: only the host's files; the MIPS copy in
# the staging tree is "other machine" (not looked at further), every other
# ELF file is the host's; the counts are those of the plain dry run but for
# that one file.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_tree "$WORK/mach"
"$ELFPMD" -n -r "$WORK/mach" > "$WORK/mach-all" 2>&1
"$ELFPMD" -n -r --machine=host "$WORK/mach" > "$WORK/mach-host" 2>&1
st=$?
# shellcheck disable=SC2034  # holds evaluates them
all=$(tail -1 "$WORK/mach-all") host=$(tail -1 "$WORK/mach-host")
holds "--machine=host: exit 0, the MIPS file skipped as other machine, the rest as without it ($host)" \
	'[ $st -eq 0 ] && [ "${host/, 1 other machine/}" = "${all/, 1 machine without PMD size/}" ] && [ "$host" != "$all" ] && [ "${host/machine without/}" = "$host" ]'
"$ELFPMD" -n -r --machine=mips "$WORK/mach" > "$WORK/mach-mips" 2>&1
check "--machine=mips: every host file skipped, the MIPS one left to the PMD rule" \
	grep -q ' 0 would change, .*(.*1 machine without PMD size.*other machine' "$WORK/mach-mips"
"$ELFPMD" -n -r --machine=host --machine=i386 --json "$WORK/mach" | tail -1 > "$WORK/mach-json"
check "--machine twice, --json: other_machine in skipped_by_reason" grep -q '"other_machine":1' "$WORK/mach-json"
test_finish
