#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-hard-links.sh: without a batch option, two names of one inode
# give one new file.  A symbolic link named beside its target (in either
# order) and a hard link: the link is the same file, never a hard link to put
# back: no warning, the link stays a link to the rewritten file, the hard
# link names it, one rewrite; a batch run's summary counts the link as no
# hard link.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
cp "$BATCH/prog" "$WORK/a" && ln -f "$WORK/a" "$WORK/b"
"$ELFPMD" -q "$WORK/a" "$WORK/b"
check "elfpmd a b on hard links: one inode" test "$(stat -c %i "$WORK/a")" = "$(stat -c %i "$WORK/b")" -a "$(stat -c %h "$WORK/a")" -eq 2
"$PHDR_DUMP" --expect-relaxed 0x200000 "$WORK/b" > /dev/null 2>&1
check "elfpmd a b: rewritten" test $? -eq 0
for order in "t l h" "l t h"; do
	rm -rf "$WORK/sl" && mkdir "$WORK/sl" && cp "$BATCH/prog" "$WORK/sl/t" && ln -s t "$WORK/sl/l" && ln "$WORK/sl/t" "$WORK/sl/h"
	# shellcheck disable=SC2086  # the names are words
	(cd "$WORK/sl" && "$ELFPMD" $order) > "$WORK/sl.out" 2> "$WORK/sl.err"
	rc=$?
	holds "elfpmd $order (t a file, l a symbolic link to it, h a hard link): exit 0 (got $rc), no warning ($(head -1 "$WORK/sl.err")), l still a link, h the new file, l said the same file" \
		'[ $rc -eq 0 ] && [ ! -s "$WORK/sl.err" ] && [ -L "$WORK/sl/l" ] && [ "$(readlink "$WORK/sl/l")" = t ] \
		 && [ "$(stat -c %i "$WORK/sl/t")" = "$(stat -c %i "$WORK/sl/h")" ] && "$PHDR_DUMP" --expect-relaxed 0x200000 "$WORK/sl/t" >/dev/null 2>&1 \
		 && grep -q "^l: same file as t: changed" "$WORK/sl.out"'
done
(cd "$WORK/sl" && cp "$BATCH/prog" t.new && mv t.new t && rm h && "$ELFPMD" -r -j2 l t) > "$WORK/sl.out" 2> "$WORK/sl.err"
holds "-r -j2 l t: no warning, the summary counts no hard link ($(tail -1 "$WORK/sl.out"))" \
	'[ ! -s "$WORK/sl.err" ] && tail -1 "$WORK/sl.out" | grep -q ": 1 changed, " && ! tail -1 "$WORK/sl.out" | grep -q "further hard link"'
test_finish
