#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-output.sh: -o from a signed file writes a new file, without
# security.* attributes (nothing in the report about IMA), and leaves the
# input and its signature untouched.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_fresh osig
ima set "$W/osig" sig
attrs=$(ima dump "$W/osig")
rm -f "$W/osig.new"
"$ELFPMD" --json -o "$W/osig.new" "$W/osig" >"$W/osig.json" 2>"$W/osig.err"
status=$?
holds "-o from a signed file: exit 0, the input untouched, the output without security.* attributes" \
	'[ $status -eq 0 ] && [ "$attrs" = "$(ima dump "$W/osig")" ] && cmp -s "$W/osig" "$PIE" && [ -z "$(ima dump "$W/osig.new")" ]'
ima_json_is "-o" "$W/osig.json" '"ima" in R' False
test_finish
