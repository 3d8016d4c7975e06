#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-report.sh: elfpmd --json's report of a rewrite in place agrees
# with the file written and with the dry run (-n --json, which writes
# nothing): the lld fixtures' text PT_LOAD "padded and aligned" with one
# hole of a multiple of 4 KiB below 2 MiB, the GNU ld ones' only "aligned".

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
have python3 || skip_all "python3 not found: it reads the JSON reports"
work_dir

report () {
	local msg
	dry_run_alone "$orig"
	pad_rewrite || return
	pass "$name: elfpmd rewrites it in place (exit 0)"
	if msg=$(check_pad_report "$w/real.json" "$padded" "$orig" "$new" "$w/dry.json" 2>&1); then
		pass "$name: JSON report agrees with the file and the dry run: $msg"
	else
		fail "$name: JSON report: $msg"
	fi
}
for_each_padding_fixture report
finish
