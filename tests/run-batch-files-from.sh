#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-files-from.sh: --files-from with NUL-separated names (-0, one
# with a newline): listed names are never pruned or excluded, debug files are
# skipped as such; then newline-separated names from standard input, empty
# lines ignored.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_tree "$WORK/list"
(cd "$WORK/list" && find . ! -type d -print0) > "$WORK/names0"
(cd "$WORK/list" && "$ELFPMD" --files-from="$WORK/names0" -0 -j2) > "$WORK/out-list" 2>&1
# Six: listed names are never pruned or excluded (opt/skipme/prog,
# excluded-prog), and debug files are skipped as such.
tail -1 "$WORK/out-list" | grep -q ': 6 changed, .*2 further hard links, 10 skipped (2 not ELF, 1 relocatable, 3 debug file, 1 machine without PMD size, 2 symbolic link, 1 not a regular file)' \
	&& pass "--files-from -0: 6 changed, the debug files skipped as such" \
	|| fail "--files-from -0: $(tail -1 "$WORK/out-list")"
"$PHDR_DUMP" --expect-relaxed 0x200000 "$WORK/list/usr/bin/name with
newline" > /dev/null 2>&1
check "--files-from -0: the name with a newline changed" test $? -eq 0
rm -rf "$WORK/list" && batch_tree "$WORK/list"
printf '%s\n' "$WORK/list/usr/bin/prog" "" "$WORK/list/usr/bin/prog-link" "$WORK/list/usr/bin/script" \
	| "$ELFPMD" -T - > "$WORK/out-list" 2>&1
tail -1 "$WORK/out-list" | grep -q '^elfpmd: 3 files: 1 changed, .*1 further hard link, 1 skipped (1 not ELF), 0 failed$' \
	&& pass "--files-from - with newlines: empty lines ignored, script skipped" \
	|| fail "--files-from -: $(tail -1 "$WORK/out-list")"
test_finish
