#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-summary.sh: the summary line of a run over the staging tree
# (lib.sh: batch_walk) has the counts that find and the files' first bytes
# give, less the pruned directories and the excluded names.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_walk
indep_files=0 indep_links=0 indep_other=0 indep_notelf=0 indep_elf=0
while IFS= read -r -d '' f; do
	case $f in
	*/usr/lib/debug|*/usr/lib/debug/*|*/.build-id|*/.build-id/*|*/skipme|*/skipme/*) continue ;;
	*/usr/bin/excluded-*) indep_files=$((indep_files + 1)); continue ;;
	esac
	indep_files=$((indep_files + 1))
	if [ -L "$f" ]; then indep_links=$((indep_links + 1))
	elif [ ! -f "$f" ]; then indep_other=$((indep_other + 1))
	elif [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then indep_elf=$((indep_elf + 1))
	else indep_notelf=$((indep_notelf + 1))
	fi
done < <(find "$WORK/orig" ! -type d -print0)
# Of the ELF files: obj.o is relocatable, usr/share/doc/prog.debug a debug
# file, prog's three names one file; the rest (prog, helper, the library,
# the name with a newline) change.
changed=0
while IFS= read -r -d '' f; do
	rel=${f#"$WORK/orig"}
	[ -f "$WORK/tree$rel" ] && [ ! -L "$f" ] || continue
	cmp -s "$f" "$WORK/tree$rel" || changed=$((changed + 1))
done < <(find "$WORK/orig" -type f -print0)
python3 - "$WORK/out" "$indep_files" "$indep_links" "$indep_other" "$indep_notelf" "$changed" <<'EOF_PY' \
	&& pass "summary line matches find's count ($indep_files files, $indep_links symlinks, $indep_notelf not ELF)" \
	|| fail "summary line: $(tail -1 "$WORK/out")"
import re, sys
line = open(sys.argv[1]).read().splitlines()[-1]
files, links, other, notelf, changed = map(int, sys.argv[2:])
m = re.match(r"elfpmd: (\d+) files: (.*)$", line)
assert m, line
assert int(m.group(1)) == files, (m.group(1), files)
counts = dict((k.strip(), int(n)) for n, k in re.findall(r"(\d+) ([a-zA-Z ]+?)(?=[,()]|$)", m.group(2)))
# "changed" counts inodes under their first name; the two further names of
# prog's inode in the run changed with it.
assert counts["changed"] + counts["further hard links"] == changed, (counts, changed)
assert counts["symbolic link"] == links, counts
assert counts["not a regular file"] == other, counts
assert counts["not ELF"] == notelf, counts
assert counts["relocatable"] == 1 and counts["debug file"] == 1, counts
assert counts["machine without PMD size"] == 1, counts
assert counts["excluded"] == 1, counts
assert counts["further hard links"] == 2, counts
assert counts["failed"] == 0, counts
total = sum(v for k, v in counts.items() if k in ("changed", "already aligned", "nothing eligible",
        "further hard links", "skipped", "failed"))
assert total == files, (total, files)
EOF_PY
test_finish
