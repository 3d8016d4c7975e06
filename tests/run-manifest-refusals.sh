#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-refusals.sh: what revert and reapply refuse, exit 1 with the
# reason: revert of a file whose original was not kept (the reason names
# the package tools that can give it back), a kept original that was
# altered (the file is left converted), a malformed manifest (its line
# named), a missing manifest, and a manifest that cannot be opened (before
# any file is rewritten).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
mkdir -p "$W/tree/bin"
cp "$W/orig/prog" "$W/tree/bin/prog2"
"$ELFPMD" -q --madvise --manifest="$W/M2" "$W/tree/bin/prog2"
"$ELFPMD" revert --manifest="$W/M2" >/dev/null 2>"$W/nokeep.err"
holds "revert without a kept original: exit 1, the reason names dpkg -S and rpm -qf" \
	'[ $? -eq 1 ] && grep -q "prog2: the original was not kept.*dpkg -S, rpm -qf" "$W/nokeep.err"'
cp "$W/orig/prog" "$W/tree/bin/prog3"
"$ELFPMD" -q --madvise --manifest="$W/M3" --keep-originals="$W/K3" "$W/tree/bin/prog3"
chmod u+w "$W/K3"/* && printf x >>"$W/K3"/*
"$ELFPMD" revert --manifest="$W/M3" >/dev/null 2>"$W/altered.err"
holds "an altered kept original: exit 1, refused, the file left converted" \
	'[ $? -eq 1 ] && grep -q "is not what elfpmd kept" "$W/altered.err" && ! cmp -s "$W/tree/bin/prog3" "$W/orig/prog"'
printf '{"action":"convert","file":"x"}\n' >>"$W/M3"
"$ELFPMD" reapply --manifest="$W/M3" >/dev/null 2>"$W/bad.err"
holds "a malformed manifest: exit 1, its line named" '[ $? -eq 1 ] && grep -q "M3: line 2: not an entry elfpmd wrote" "$W/bad.err"'
"$ELFPMD" reapply --manifest="$W/nonexistent" >/dev/null 2>&1
check "reapply of a missing manifest: exit 1" test $? -eq 1
"$ELFPMD" -q --manifest="$W/nodir/M" "$W/tree/bin/prog2" 2>"$W/nom.err"
holds "a manifest that cannot be opened: exit 1 before any file" \
	'[ $? -eq 1 ] && grep -q "cannot append to the manifest" "$W/nom.err"'
finish
