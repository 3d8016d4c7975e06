#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-convert.sh: a conversion kept.  elfpmd --madvise
# --manifest=M --keep-originals=K -r over a tree (a program, a hard link to
# it, a library) converts it, the program runs as before, K is made 0700,
# and M holds one line per name rewritten, each saying what the files are:
# the path, SHA-256 and size before and after, the options, the kept
# original (checked with Python's json and hashlib against the test's own
# copies).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
manifest_tree
check "convert with --manifest and --keep-originals: exit 0" test $? -eq 0
"$W/tree/bin/prog"
check "the converted program runs as before (exit 7)" test $? -eq 7
check "--keep-originals made its directory 0700" test "$(stat -c %a "$K")" = 700
manifest_verify "$W/tree/bin/prog:$W/orig/prog:$K" "$W/tree/bin/prog-link:$W/orig/prog:$K" \
	"$W/tree/lib/libbig.so:$W/orig/libbig.so:$K"
check "one line per name rewritten (3)" test "$(wc -l <"$M")" -eq 3
finish
