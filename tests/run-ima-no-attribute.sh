#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-no-attribute.sh: a file without IMA's attributes is rewritten as
# before: exit 0, nothing in the report about IMA, its other attributes
# kept, no security.ima made, and it prints what the original prints.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_orig
ima_fresh plain
ima_user_attr "$W/plain"
"$ELFPMD" --json "$W/plain" >"$W/plain.json" 2>"$W/plain.err"
status=$?
check "no IMA attribute: exit 0" [ $status -eq 0 ]
ima_json_is "no IMA attribute" "$W/plain.json" 'R["status"], "ima" in R' "('changed', False)"
holds "no IMA attribute: user.elfpmd kept, no security.ima made" \
	'[ "$(ima dump "$W/plain")" = "user.elfpmd=$(printf kept | od -An -tx1 | tr -d " \n")" ]'
ima_run "$W/plain" "$W/plain.run"
check "no IMA attribute: the rewrite prints what the original prints" cmp -s "$W/orig.out" "$W/plain.run"
test_finish
