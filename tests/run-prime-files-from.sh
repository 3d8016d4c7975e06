#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime-files-from.sh: elfpmd prime -T LIST (--files-from): comments and
# empty lines ignored; a missing name skipped with a line of its own, a
# directory, a symbolic link and a text file skipped quietly, all counted in
# the summary; exit 0; the ELF file primed; -q prints nothing; -0 (no
# comments then); a truncated ELF file in the list: exit 1, named, the rest
# primed; a list that cannot be opened: exit 1; -0 without -T: 64.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prime_require align
mkdir -p "$WORK/list"
cp "$WORK/align/mad-pie" "$WORK/list/mad-pie"
ln -s mad-pie "$WORK/list/link"
printf 'not an ELF file\n' >"$WORK/list/text"
printf '%s\n' '# a comment' '' "$WORK/list/mad-pie" "$WORK/list/missing" "$WORK/list/text" "$WORK/list" \
	"$WORK/list/link" >"$WORK/prime.list"
"$ELFPMD" prime --json -T "$WORK/prime.list" >"$WORK/list.json" 2>"$WORK/list.err"
rc=$?
ideal=$(ideal_chunks "$WORK/list/mad-pie")
good=false; [ $rc = 0 ] && [ ! -s "$WORK/list.err" ] && good=true
check "-T LIST: exit 0 (got $rc), nothing on stderr ($(cat "$WORK/list.err"))" $good
check "-T LIST: 3 lines: the ELF file, the missing one, the summary ($(tr '\n' ' ' <"$WORK/list.json"))" \
	[ "$(wc -l <"$WORK/list.json")" = 3 ]
head -1 "$WORK/list.json" >"$WORK/list1.json"
good=false; [ "$(json "$WORK/list1.json" file)" = "$WORK/list/mad-pie" ] && [ "$(json "$WORK/list1.json" pmd_folios)" = "$ideal" ] && good=true
check "-T LIST: the ELF file: $ideal of $ideal chunks in PMD-sized folios ($(cat "$WORK/list1.json"))" $good
check "-T LIST: the missing file: skipped, no such file" \
	grep -qxF "{\"file\":\"$WORK/list/missing\",\"skipped\":\"no such file\"}" "$WORK/list.json"
check "-T LIST: summary: 5 names, 1 read, 1 missing, 2 not regular (directory, symbolic link), 1 not ELF" \
	grep -qx '{"summary":{"names":5,"read":1,"failed":0,"skipped":4,"missing":1,"not_regular":2,"not_elf":1}}' "$WORK/list.json"
out=$("$ELFPMD" prime -T "$WORK/prime.list" 2>&1)
good=false
[[ $out == *"$WORK/list/missing: skipped: no such file"* && $out == *"elfpmd prime: 5 names in the list: 1 ELF files read, 0 failed, 4 skipped (1 missing, 2 not regular files, 1 not ELF)" ]] && good=true
check "-T LIST as text: the missing file and the summary line ($out)" $good
out=$("$ELFPMD" prime -q -T - <"$WORK/prime.list" 2>&1)
rc=$?
good=false; [ $rc = 0 ] && [ -z "$out" ] && good=true
check "-q -T - (standard input): exit 0 (got $rc), nothing printed ($out)" $good
printf '%s\0' "$WORK/list/mad-pie" "$WORK/list/missing" "# not a comment with -0" >"$WORK/prime.list0"
"$ELFPMD" prime --json -0 -T "$WORK/prime.list0" >"$WORK/list0.json" 2>&1
rc=$?
good=false; [ $rc = 0 ] && grep -q '"names":3,"read":1,"failed":0,"skipped":2,"missing":2' "$WORK/list0.json" && good=true
check "-0 -T LIST: exit 0 (got $rc), 3 names, 2 missing (no comments with -0) ($(tail -1 "$WORK/list0.json"))" $good
head -c 4096 "$WORK/list/mad-pie" >"$WORK/list/truncated"
printf '%s\n' "$WORK/list/truncated" "$WORK/list/mad-pie" >"$WORK/bad.list"
"$ELFPMD" prime -T "$WORK/bad.list" >"$WORK/bad.out" 2>"$WORK/bad.err"
rc=$?
good=false; [ $rc = 1 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] && grep -q "^elfpmd prime: $WORK/list/truncated: " "$WORK/bad.err" && good=true
check "-T LIST with a truncated ELF file: exit 1 (got $rc), one line on stderr naming it ($(cat "$WORK/bad.err"))" $good
good=false; grep -q "^$WORK/list/mad-pie: $ideal of $ideal chunks" "$WORK/bad.out" && grep -q ' 1 ELF files read, 1 failed,' "$WORK/bad.out" && good=true
check "... the other file still primed, the summary counts 1 failed" $good
"$ELFPMD" prime -q -T "$WORK/no-such.list" >/dev/null 2>"$WORK/nolist.err"
rc=$?
good=false; [ $rc = 1 ] && grep -q "^elfpmd prime: $WORK/no-such.list: cannot open the list" "$WORK/nolist.err" && good=true
check "-T with a list that cannot be opened: exit 1 (got $rc), named ($(cat "$WORK/nolist.err"))" $good
"$ELFPMD" prime -0 "$WORK/list/mad-pie" >/dev/null 2>&1
rc=$?
check "-0 without -T: usage error 64 (got $rc)" [ $rc = 64 ]
test_finish
