#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-rewrite.sh: after a run over the staging tree (lib.sh:
# batch_walk), every ELF file that should change is aligned (phdr-dump,
# independent of elfpmd), passes eu-elflint and runs; the others are
# byte-identical; the names of one inode in the run name one new file, a name
# outside the run keeps the old one and a warning says so; -p keeps the
# dates, the set-user-ID bit survives; a second run changes nothing.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

batch_fixture
batch_walk
tree=$WORK/tree
for f in usr/bin/prog usr/libexec/batch/helper usr/lib/libbatch.so.1 "usr/bin/name with
newline"; do
	what=${f//$'\n'/\\n}
	"$PHDR_DUMP" --expect-relaxed 0x200000 "$tree/$f" > /dev/null 2>&1 \
		&& "$PHDR_DUMP" "$tree/$f" | awk '$2 == "LOAD" && $3 ~ /X/ && $8 != "0x200000" { exit 1 }' \
		&& pass "$what: text aligned to 2 MiB (phdr-dump)" || fail "$what: not aligned"
	if have eu-elflint; then
		eu-elflint --gnu-ld "$tree/$f" > "$WORK/lint" 2>&1 && pass "$what: eu-elflint" || fail "$what: eu-elflint: $(head -3 "$WORK/lint")"
	fi
done
run_out=$(LD_LIBRARY_PATH=$tree/usr/lib "$tree/usr/bin/prog" 2>&1)
check "the rewritten program runs with the rewritten library" test "$run_out" = "batch ok 42"
ino=$(stat -c %i "$tree/usr/bin/prog")
check "hard links in the run name the rewritten file" \
	test "$(stat -c %i "$tree/usr/bin/prog-link")" = "$ino" -a "$(stat -c %i "$tree/usr/libexec/batch/prog-other-dir")" = "$ino"
check "the rewritten file has the three names of the run" test "$(stat -c %h "$tree/usr/bin/prog")" -eq 3
check "the name outside the run keeps the old contents" cmp -s "$WORK/outside-link" "$BATCH/prog"
grep -q "outside-link\|1 other hard link of this file is not in this run" "$WORK/err" \
	&& pass "a warning names the hard link outside the run" || fail "no warning about the outside link: $(cat "$WORK/err")"
check "the symbolic link is left alone" test "$(readlink "$tree/usr/bin/prog-alias")" = prog
for f in usr/bin/script usr/lib/obj.o usr/share/doc/prog.debug usr/lib/debug/prog.debug \
	usr/lib/debug/.build-id/aa/bbcc.debug opt/skipme/prog usr/bin/excluded-prog usr/lib/firmware-mips; do
	cmp -s "$WORK/orig/$f" "$tree/$f" && pass "$f: untouched" || fail "$f: changed"
done
check "-p keeps the modification time" test "$(stat -c %Y "$tree/usr/lib/libbatch.so.1")" = "$(date -d '2001-02-03 04:05:06' +%s)"
check "the set-user-ID bit survives" test "$(stat -c %a "$tree/usr/libexec/batch/helper")" = 4755
# The further names of prog's inode are counted in the summary; the report
# lists them with -v (run-batch-output.sh) and in JSON.
check "the report does not list the further names without -v" sh -c "! grep -q 'same file as' '$WORK/out'"
"$ELFPMD" -r -j2 --exclude='skipme' --exclude='*/usr/bin/excluded-*' "$tree" > "$WORK/out2" 2>&1
tail -1 "$WORK/out2" | grep -q ': 0 changed, 4 already aligned, ' \
	&& pass "second run: nothing changed, 4 already aligned" || fail "second run: $(tail -1 "$WORK/out2")"
test_finish
