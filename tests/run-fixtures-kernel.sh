#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-kernel.sh: the fixtures rewritten with --rule=kernel run as
# the originals, eu-elflint finds no more to complain about, only p_align
# changed as phdr-dump predicts for the kernel rule; a second run leaves
# bytes, inode and times alone.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kernel () {
	local k=$w/kernel/$file sig
	check_original
	mkdir -p "$w/kernel"
	cp -p "$w/orig/$file" "$k"
	rewrite kernel "$k" --rule=kernel || return
	same_run "$w/kernel" "rewritten (kernel rule)"
	check_elflint "$k" kernel
	check_phdrs "$k" kernel
	check_changed kernel "$must_kernel" "$k"
	cp -p "$k" "$w/kernel.once"
	sig=$(file_signature "$k")
	if rewrite "kernel second run" "$k" --rule=kernel; then
		check "$name: kernel second run leaves bytes, inode and times alone" \
			unchanged_since "$w/kernel.once" "$k" "$sig"
	fi
}
for_each_align_fixture kernel
test_finish
