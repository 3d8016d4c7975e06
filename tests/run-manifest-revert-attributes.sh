#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-revert-attributes.sh: as root, with root's own originals
# directory: the kept copy keeps the original's times, and revert puts back
# the contents, the set-user-ID bit, a file capability, a user.* attribute
# and the modification time, and removes the copy it used.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root_nobody "the originals directory of root's own"
manifest_start
T=$W/trust
mkdir -p "$T" && chmod 755 "$T"
cp "$W/orig/prog" "$T/p"
chmod 4755 "$T/p"; touch -d '2020-01-02 03:04:05' "$T/p"
have setcap && setcap cap_net_raw+ep "$T/p"
have setfattr && setfattr -n user.elfpmd -v kept "$T/p" 2>/dev/null
caps_before=$(getcap "$T/p" 2>/dev/null | awk '{print $2}')
attr_before=$(getfattr --only-values -n user.elfpmd "$T/p" 2>/dev/null)
"$ELFPMD" -q --manifest="$T/m" --keep-originals="$T/k" "$T/p"
check "root's own originals directory: converted" sh -c "! cmp -s '$T/p' '$W/orig/prog'"
"$ELFPMD" revert -q --manifest="$T/m" 2>"$T/err"
holds "revert: the contents, mode 4755, capability ${caps_before:-none}, user.elfpmd=${attr_before:-none} and the time back, the kept copy removed ($(head -1 "$T/err"))" \
	'cmp -s "$T/p" "$W/orig/prog" && [ "$(stat -c %a "$T/p")" = 4755 ] \
	 && [ "$(getcap "$T/p" 2>/dev/null | awk "{print \$2}")" = "$caps_before" ] \
	 && [ "$(getfattr --only-values -n user.elfpmd "$T/p" 2>/dev/null)" = "$attr_before" ] \
	 && [ "$(stat -c %Y "$T/p")" = "$(date -d "2020-01-02 03:04:05" +%s)" ] && [ -z "$(ls -A "$T/k")" ]'
finish
