#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-build-id-reapply.sh: elfpmd reapply, converting again a file that an
# upgrade put back as it was, makes the same bytes as the conversion the
# manifest recorded, with the derived build-id and with --build-id=keep
# (which the manifest's line records).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/build-id-lib.sh"

bid_start
bid_prog "$W/prog"
mkdir -p "$W/tree"
cp "$W/prog" "$W/tree/derive" && cp "$W/prog" "$W/tree/keep" || hard_error "cannot copy the program"
M=$W/manifest
"$ELFPMD" -q --manifest="$M" "$W/tree/derive" && "$ELFPMD" -q --build-id=keep --manifest="$M" "$W/tree/keep" \
	|| fail "the conversions failed"
check "the manifest records --build-id=keep" grep -q '"file":"[^"]*/keep".*"options":\["--build-id=keep"\]' "$M"
check "and no --build-id for the default" grep -q '"file":"[^"]*/derive".*"options":\[\]' "$M"
for f in derive keep; do
	cp "$W/tree/$f" "$W/$f.converted"
	# The upgrade: the original renamed over the converted file.
	cp "$W/prog" "$W/tree/.$f.new" && mv "$W/tree/.$f.new" "$W/tree/$f"
done
"$ELFPMD" reapply -q --manifest="$M" || fail "elfpmd reapply failed"
for f in derive keep; do
	check "$f: reapply makes the bytes the manifest's conversion made" cmp -s "$W/tree/$f" "$W/$f.converted"
done
old=$(build_ids "$W/prog") new=$(build_ids "$W/tree/derive") kept=$(build_ids "$W/tree/keep")
holds "the build-ids: derived ($new) and kept ($kept)" '[ "$new" != "$old" ] && [ "$kept" = "$old" ]'
finish
