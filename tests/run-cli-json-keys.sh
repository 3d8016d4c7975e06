#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-json-keys.sh: every JSON key elfpmd prints is in the man page's
# REPORT as that exact token in bold (lib.sh: man_bold).  The inputs reach
# every branch of the report: would change (with the stub), nothing eligible
# (stub refused), already aligned (stub present), a relocatable object
# (skipped), not ELF (error), a real write (-o: disk space), a tree (-r).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
man_bold REPORT | sort -u > "$WORK/man-report"
grep -qx segments "$WORK/man-report" \
	&& pass "bold tokens read from the man page ($(wc -l < "$WORK/man-report") in REPORT)" \
	|| fail "cannot read bold tokens from the man page's REPORT"
cp "$CLI/sample" "$WORK/k-stub" && "$ELFPMD" -q --madvise "$WORK/k-stub" || fail "cannot prepare a file with the stub"
printf 'int f(void){return 1;}\n' > "$WORK/k.c" && cc -c -o "$WORK/k.o" "$WORK/k.c" || fail "cannot compile an object"
printf 'not elf\n' > "$WORK/k-notelf"
mkdir -p "$WORK/k-tree" && cp "$CLI/sample" "$WORK/k-tree/a" && ln "$WORK/k-tree/a" "$WORK/k-tree/b" \
	&& cp "$WORK/k.o" "$WORK/k-notelf" "$WORK/k-tree/" && ln -s a "$WORK/k-tree/c" \
	|| fail "cannot prepare a tree"
{
	"$ELFPMD" -n --json "$CLI/sample" "$CLI/small" "$WORK/k.o" "$WORK/k-notelf"
	"$ELFPMD" -n --json --madvise "$CLI/sample" "$CLI/small" "$WORK/k-stub"
	"$ELFPMD" --json -o "$WORK/k-out" "$CLI/sample"
	"$ELFPMD" -r -n --json "$WORK/k-tree"
} > "$WORK/keys.json" 2> /dev/null
grep -oE '"[A-Za-z0-9_]+":' "$WORK/keys.json" | tr -d '":' | sort -u > "$WORK/json-keys"
[ "$(wc -l < "$WORK/json-keys")" -ge 60 ] && pass "$(wc -l < "$WORK/json-keys") distinct JSON keys printed" \
	|| fail "too few JSON keys: $(tr '\n' ' ' < "$WORK/json-keys")"
for want in skip_reason error stub present allocated_after sampled_chunks summary same_file_as \
		skipped_by_reason not_elf symlink; do
	grep -qx "$want" "$WORK/json-keys" || fail "the JSON inputs no longer reach '$want'"
done
while IFS= read -r key; do
	grep -qxF -- "$key" "$WORK/man-report" && pass "man page documents JSON key $key" || fail "man page REPORT lacks JSON key $key in bold"
done < "$WORK/json-keys"
test_finish
