#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-bolt-lib.sh: a shared object in BOLT's layout (libbolt.so,
# and libbolt-nophdr.so without PT_PHDR) is padded like any other: the
# text's hole moves everything after it, the program header table
# included, and the table's segment gets a hole of its own to stay
# congruent.  No refusal (ld.so, not the kernel, finds a library's table);
# every R-X PT_LOAD congruent modulo 2 MiB with p_align 2 MiB; the table
# where PT_PHDR says; phdr-dump --bytemap passing; all whole chunks
# PMD-mappable; eu-elflint no worse; the program prints what it printed
# (boltmain.c checks the table, the pattern in the later segment and
# unwinding through the library); a second run changes nothing.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi

# rx_congruent FILE: every R-X PT_LOAD of FILE congruent modulo PMD with
# p_align PMD or more; prints the ones that are not and fails then.
rx_congruent () {
	"$PHDR_DUMP" "$1" | awk -v pmd="$PMD" "$AWK_HEX"'
		$2 == "LOAD" && $3 ~ /X/ && $3 !~ /W/ && ((hex($5) - hex($4)) % pmd != 0 || hex($8) < pmd) {
			printf "PT_LOAD %s: offset %s address %s align %s\n", $1, $4, $5, $8; bad = 1 }
		END { exit bad }'
}

padded_lib () {
	local msg rule_out before after ideal
	check_original
	$have_elflint && lint_before=$(elflint_count "$orig")
	bolt_layout_ok || return
	dry_run_alone "$orig"
	"$ELFPMD" -n "$orig" >"$w/dry.txt" 2>&1
	pad_rewrite || return
	pass "$name: elfpmd rewrites it in place (exit 0)"
	bolt_reports dso
	if grep -q 'padding refused' "$w/dry.txt"; then
		fail "$name: refusal gone: -n still says: $(grep -m1 'padding refused' "$w/dry.txt" | sed 's/^ *//')"
	else
		pass "$name: refusal gone: -n refuses nothing"
	fi
	if msg=$(check_pad_report "$w/real.json" yes "$orig" "$new" "$w/dry.json" 2>&1); then
		pass "$name: JSON report agrees with the file and the dry run: $msg"
	else
		fail "$name: JSON report: $msg"
	fi
	if "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1 && ! grep -q ' 0 holes' "$w/bytemap.out"; then
		pass "$name: phdr-dump --bytemap: $(head -1 "$w/bytemap.out")"
		sed -n 's/^hole/      hole/p' "$w/bytemap.out"
	else
		fail "$name: phdr-dump --bytemap: not the input with the text's hole"
		head -20 "$w/bytemap.out" | sed 's/^/      /'
	fi
	if msg=$(rx_congruent "$new"); then
		pass "$name: every R-X PT_LOAD congruent modulo 2 MiB with p_align 2 MiB"
	else
		fail "$name: R-X PT_LOADs left incongruent or unaligned: ${msg//$'\n'/; }"
	fi
	if rule_out=$(table_rule "$new"); then
		check "$name: ld.so finds the table as before: $rule_out" test "$rule_out" = "$rule_in"
	else
		fail "$name: $rule_out"
	fi
	before=$(json_key "$w/real.json" pmd_chunks_before 2>&1)
	after=$(json_key "$w/real.json" pmd_chunks_after 2>&1)
	ideal=$(ideal_chunks "$new")
	check "$name: PMD chunks $before -> $after, all $ideal of the output's R-X segments" \
		test "$after" = "$ideal" -a "${after:-0}" -gt "${before:-0}"
	check_elflint "$new"
	same_run "$w/new" "rewritten file"
	second_run_alone "$new"
}
for_each_bolt_fixture dso padded_lib
finish
