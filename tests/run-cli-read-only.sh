#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-read-only.sh: a rewrite in a directory elfpmd cannot write to
# (read-only, or immutable for root) fails cleanly: exit 1, the file
# untouched, no temporary file left.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
mkdir "$WORK/ro"; cp "$CLI/sample" "$WORK/ro/p"
if [ "$(id -u)" -ne 0 ]; then
	chmod 555 "$WORK/ro"
	expect_status 1 "read-only directory" "$ELFPMD" "$WORK/ro/p"
	chmod 755 "$WORK/ro"
elif have chattr && chattr +i "$WORK/ro" 2>/dev/null; then
	# root writes anywhere; an immutable directory needs chattr, which may be missing.
	expect_status 1 "immutable directory" "$ELFPMD" "$WORK/ro/p"
	chattr -i "$WORK/ro"
	cmp -s "$WORK/ro/p" "$CLI/sample" && pass "file in immutable directory untouched" || fail "file changed"
else
	skip "cannot make a directory immutable here"
fi
[ -z "$(find "$WORK" -name '.elfpmd.*')" ] && pass "no temporary files left" || fail "temporary files left: $(find "$WORK" -name '.elfpmd.*')"
test_finish
