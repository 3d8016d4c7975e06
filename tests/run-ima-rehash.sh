#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-rehash.sh: where this kernel hashes with AF_ALG, a rewrite in
# place renews security.ima: the same type and algorithm holding the hash
# of the new bytes, "ima":"rehashed-ALG" in the report
# ("would-rehash-ALG" in a dry run, which changes nothing), the other
# attributes kept, the program printing what the original prints (lib.sh:
# ima_cases, ima_rehash_checks).  Skipped where the kernel has no AF_ALG:
# run-ima-vm.sh runs the cases in Debian 12's kernel instead.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
$host_afalg || skip_all "this kernel has no AF_ALG hash interface: run-ima-vm.sh runs the rehash cases in Debian 12's kernel"
ima_orig
ima_cases "$W/cases"
while read -r name kind fix opts; do
	ima_stage "$W" "$name" "$kind" "$fix"
	# shellcheck disable=SC2086  # options are words
	"$ELFPMD" -n --json $opts "$W/$name" </dev/null >"$W/$name.dry.json" 2>"$W/$name.dry.err"
	dry=$?
	cmp -s "$W/$name" "$W/$name.orig" && [ "$(ima dump "$W/$name")" = "$(cat "$W/$name.attrs")" ] \
		|| fail "rehash $name: the dry run changed the file"
	# shellcheck disable=SC2086
	"$ELFPMD" --json $opts "$W/$name" </dev/null >"$W/$name.json" 2>"$W/$name.err"
	st=$?
	ima_run "$W/$name" "$W/$name.run"
	ima_rehash_checks "$W" "$name" "$kind" "$dry" "$st"
done <"$W/cases"
test_finish
