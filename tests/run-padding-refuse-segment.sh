#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-refuse-segment.sh: a segment that spans the text's start
# (lld-pie's PT_GNU_EH_FRAME grown into it) forbids the hole there: elfpmd
# exits 0, reports "padding refused" naming PT_GNU_EH_FRAME, and leaves the
# file alone, there being nothing else to do.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
w=$WORK

read -r _ t_off _ <<<"$(text_segment "$O/lld-pie")"
eh_index=$(phdr_field "$O/lld-pie" GNU_EH_FRAME 1)
[ -n "$eh_index" ] || skip_all "refusal by a segment: lld-pie has no PT_GNU_EH_FRAME"
eh_off=$(phdr_field "$O/lld-pie" GNU_EH_FRAME 4)
cp "$O/lld-pie" "$w/segment"
poke "$w/segment" phdr "$eh_index" filesz $((t_off - eh_off + 0x10)) \
	phdr "$eh_index" memsz $((t_off - eh_off + 0x10))
check_refusal "$w/segment" "PT_GNU_EH_FRAME $eh_index" no
finish
