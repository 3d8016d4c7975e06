#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-unchanged.sh: a file with nothing to do is not rewritten at all
# (same inode, same mtime), and -o still writes a copy identical to it; a
# symbolic link: the target is rewritten, the link stays a link.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
cp "$CLI/sample" "$WORK/target"
ln -s target "$WORK/link"
expect_status 0 "rewrite through a symlink" "$ELFPMD" -q "$WORK/link"
[ -L "$WORK/link" ] && ! cmp -s "$WORK/target" "$CLI/sample" && pass "link kept, target rewritten" || fail "symlink handling"
cp "$CLI/small" "$WORK/s"
sig=$(file_signature "$WORK/s")
expect_status 0 "nothing eligible" "$ELFPMD" "$WORK/s"
check "unchanged file not rewritten" test "$sig" = "$(file_signature "$WORK/s")"
expect_status 0 "-o with nothing to change" "$ELFPMD" -q -o "$WORK/s.out" "$WORK/s"
check "-o copy is identical" cmp -s "$WORK/s" "$WORK/s.out"
test_finish
