#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-revert.sh: elfpmd revert puts back, byte for byte and with
# its mode, the original of every file as elfpmd last wrote it: after an
# upgrade and a reapply, the new build's original for the program, the
# first build's for a name that kept the first conversion; a file changed
# since (a script) is left alone and said so.  It appends its lines to the
# manifest; reapply then leaves the reverted files original; a second
# revert has nothing to do and says so in its summary.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
manifest_tree || hard_error "cannot convert $W/tree"
manifest_upgrade
"$ELFPMD" reapply -q --manifest="$M" >/dev/null 2>&1 || hard_error "reapply failed"
"$ELFPMD" revert --manifest="$M" >"$W/revert.out" 2>&1
check "revert: exit 0" test $? -eq 0
check "prog is the new build's original, byte for byte" cmp -s "$W/tree/bin/prog" "$W/orig/prog-v2"
check "prog-link (a name of the first build) gets the first original" cmp -s "$W/tree/bin/prog-link" "$W/orig/prog"
check "the script, changed since, is left alone and said so" \
	grep -q "libbig.so: left alone: changed since" "$W/revert.out"
check "mode kept (755)" test "$(stat -c %a "$W/tree/bin/prog")" = 755
check "revert lines appended (2)" test "$(grep -c '"action":"revert"' "$M")" -eq 2
"$ELFPMD" reapply --manifest="$M" >"$W/reapply3.out" 2>&1
holds "reapply after revert: the reverted files stay original" \
	'cmp -s "$W/tree/bin/prog" "$W/orig/prog-v2" && grep -q " 0 converted again" "$W/reapply3.out"'
"$ELFPMD" revert --manifest="$M" "$W/tree/bin/prog" >"$W/revert2.out" 2>&1
check "revert of a reverted file: nothing to do, exit 0" test $? -eq 0
holds "revert prints a summary ($(tail -1 "$W/revert2.out"))" \
	'tail -1 "$W/revert2.out" | grep -q "^elfpmd revert: 1 of the 3 files in $M: 0 put back, 1 original already, 0 left alone, 0 failed$"'
finish
