#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-build-id-notes.sh: a file with two build-id notes (one added by
# objcopy) gets a new build-id in each, different from each other's as
# they were, the notes' places and lengths unchanged; a file without a
# build-id is rewritten without one, and its report says none.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/build-id-lib.sh"

bid_start
bid_prog "$W/prog"
# A second GNU build-id note of 20 bytes, in a section of its own.
printf '\004\000\000\000\024\000\000\000\003\000\000\000GNU\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' \
	> "$W/note"
objcopy --add-section .note.second="$W/note" --set-section-flags .note.second=readonly \
	"$W/prog" "$W/two" || hard_error "objcopy --add-section failed"
mapfile -t before < <(build_ids "$W/two")
[ "${#before[@]}" -eq 2 ] || hard_error "the fixture has ${#before[@]} build-ids, not 2"
"$ELFPMD" -q -o "$W/two.out" "$W/two" || fail "elfpmd failed on a file with two build-ids"
mapfile -t after < <(build_ids "$W/two.out")
holds "each of the two notes has a new build-id (${after[*]})" \
	'[ "${#after[@]}" -eq 2 ] && [ "${after[0]}" != "${before[0]}" ] && [ "${after[1]}" != "${before[1]}" ] && [ "${after[0]}" != "${after[1]}" ]'
check "phdr-dump --bytemap: nothing else changed" \
	grep -q 'bytemap ok:.*, build-id changed$' <("$PHDR_DUMP" --bytemap "$W/two" "$W/two.out")

bid_prog "$W/none" -Wl,--build-id=none
[ -z "$(build_ids "$W/none")" ] || hard_error "the fixture has a build-id"
"$ELFPMD" -v -o "$W/none.out" "$W/none" > "$W/none.txt" || fail "elfpmd failed on a file without a build-id"
"$ELFPMD" -n --json "$W/none" > "$W/none.json"
holds "a file without a build-id: rewritten, none added, none reported" \
	'[ -z "$(build_ids "$W/none.out")" ] && ! grep -q build-id "$W/none.txt" && ! grep -q build_id "$W/none.json"'
finish
