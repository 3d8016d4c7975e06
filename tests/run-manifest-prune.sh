#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-prune.sh: a kept original that an upgrade superseded is
# removed once elfpmd reapply has converted the new file (and kept its
# original); reapply -n removes nothing.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
mkdir -p "$W/pt" && cp "$W/orig/prog" "$W/pt/prog" \
	&& "$ELFPMD" -q --madvise --manifest="$W/M6" --keep-originals="$W/K6" "$W/pt/prog" \
	|| hard_error "cannot convert $W/pt/prog"
old_hash=$(sha256sum <"$W/orig/prog" | cut -c1-64)
new_hash=$(sha256sum <"$W/orig/prog-v2" | cut -c1-64)
cp "$W/orig/prog-v2" "$W/pt/prog.new" && mv "$W/pt/prog.new" "$W/pt/prog"
"$ELFPMD" reapply -n --manifest="$W/M6" >/dev/null 2>&1
check "reapply -n: the kept original of the old version stays" test -e "$W/K6/$old_hash"
"$ELFPMD" reapply --manifest="$W/M6" >"$W/prune.out" 2>&1
holds "reapply after an upgrade: the new original kept, the superseded one removed ($(ls "$W/K6" | tr '\n' ' '))" \
	'[ -e "$W/K6/$new_hash" ] && [ ! -e "$W/K6/$old_hash" ] && grep -q "pt/prog: its superseded kept original removed" "$W/prune.out"'
finish
