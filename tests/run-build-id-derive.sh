#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-build-id-derive.sh: a file elfpmd changes gets a new build-id of the
# same length (--build-id=derive, the default), which the JSON report
# gives before and after; the same input twice gives the same bytes (also
# with the stub and its MiniDebugInfo); the output runs, passes eu-elflint
# --gnu-ld, and phdr-dump --bytemap finds nothing else changed but the
# build-id.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/build-id-lib.sh"

bid_start
have eu-elflint || skip_all "needs eu-elflint (Debian: elfutils)"
bid_prog "$W/prog"
old=$(build_ids "$W/prog")

"$ELFPMD" -q -o "$W/a" "$W/prog" && "$ELFPMD" -q -o "$W/b" "$W/prog" \
	|| fail "elfpmd failed on the program"
new=$(build_ids "$W/a")
holds "the rewritten file has a new build-id ($old -> $new)" '[ -n "$new" ] && [ "$new" != "$old" ]'
holds "of the same length (${#old} hex digits)" '[ ${#new} -eq ${#old} ]'
check "the same input twice gives the same bytes" cmp -s "$W/a" "$W/b"
strip -o "$W/stripped" "$W/prog" && "$ELFPMD" -q --madvise -o "$W/ma" "$W/stripped" \
	&& "$ELFPMD" -q --madvise -o "$W/mb" "$W/stripped" || fail "elfpmd --madvise failed on the stripped program"
check "also with --madvise and the stub's MiniDebugInfo (a stripped program)" cmp -s "$W/ma" "$W/mb"
"$W/a"
check "the rewritten program runs (exit 7)" test $? -eq 7
holds "eu-elflint --gnu-ld has nothing to say" '[ "$(elflint_count "$W/a")" -eq 0 ]'
check "phdr-dump --bytemap: only the alignment and the build-id changed" \
	grep -q 'bytemap ok:.* 0 holes.*, build-id changed$' <("$PHDR_DUMP" --bytemap "$W/prog" "$W/a")

"$ELFPMD" -n --json "$W/prog" > "$W/report.json"
check "the JSON report gives build_id_before and build_id_after" \
	grep -q "\"build_id_before\":\"$old\",\"build_id_after\":\"$new\"" "$W/report.json"
finish
