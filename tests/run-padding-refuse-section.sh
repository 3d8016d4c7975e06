#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-refuse-section.sh: a section that spans the text's start
# (lld-pie's section before the text grown into it) forbids the hole there:
# elfpmd exits 0, reports "padding refused" for a split section, and leaves
# the file alone.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
w=$WORK

read -r _ t_off _ <<<"$(text_segment "$O/lld-pie")"
read -r s_index s_off _ <<<"$(section_before "$O/lld-pie" "$t_off")"
[ -n "$s_index" ] || skip_all "refusal by a section: no section before the text of lld-pie"
cp "$O/lld-pie" "$w/section"
poke "$w/section" shdr "$s_index" size $((t_off - s_off + 0x10))
check_refusal "$w/section" "split section" no
finish
