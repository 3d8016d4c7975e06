#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-reapply.sh: after an upgrade (a new build of a converted
# program renamed over it as dpkg does, a converted library replaced by a
# script), elfpmd reapply converts the program again with the options the
# manifest recorded, leaves the script alone, records the new conversion,
# and has nothing to do the second time; reapply -n writes nothing.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
manifest_tree || hard_error "cannot convert $W/tree"
manifest_upgrade
"$ELFPMD" reapply -n --manifest="$M" >"$W/reapply-n.out" 2>&1
holds "reapply -n: prog would be converted again, the script left alone, nothing written ($(tail -1 "$W/reapply-n.out"))" \
	'grep -q "bin/prog: would be converted again" "$W/reapply-n.out" && grep -q "libbig.so: left alone: no longer an ELF file" "$W/reapply-n.out" && [ "$(wc -l <"$M")" -eq 3 ]'
"$ELFPMD" reapply --manifest="$M" >"$W/reapply.out" 2>&1
check "reapply: exit 0 ($(tail -1 "$W/reapply.out"))" test $? -eq 0
"$W/tree/bin/prog"
check "the new program, converted again, runs (exit 8)" test $? -eq 8
"$ELFPMD" -n --json --madvise "$W/tree/bin/prog" >"$W/again.json" 2>&1
check "it carries the stub again" grep -q '"present":true' "$W/again.json"
manifest_verify "$W/tree/bin/prog:$W/orig/prog-v2:$K"
"$ELFPMD" reapply --manifest="$M" >"$W/reapply2.out" 2>&1
check "reapply again: nothing to do ($(tail -1 "$W/reapply2.out"))" grep -q ' 0 converted again' "$W/reapply2.out"
finish
