#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-refuse-later.sh: lld-twoseg with .text grown into the .rodata
# segment's start: the text's hole would force a second one there, which
# cannot be, so .rodata (fewer whole chunks than the text) gives up its
# alignment, refused "moved by the padding before it", and the text is
# padded: one hole.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
build_fixture lld-twoseg || skip_all "refusal by a later segment: lld-twoseg was not built"
w=$WORK

cp "$O/lld-twoseg" "$w/later"
ro_off=$("$PHDR_DUMP" "$w/later" | awk "$AWK_HEX"' $2 == "LOAD" && $3 == "R--" && hex($4) > 0 { printf "%.0f\n", hex($4); exit }')
read -r s_index s_off _ <<<"$(section_before "$w/later" "${ro_off:-0}")"
[ -n "$ro_off" ] && [ -n "$s_index" ] || skip_all "refusal by a later segment: lld-twoseg does not have the expected layout"
poke "$w/later" shdr "$s_index" size $((ro_off - s_off + 0x10))
check_refusal "$w/later" "moved by the padding before it" hole rodata
finish
