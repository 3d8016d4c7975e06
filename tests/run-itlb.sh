#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-itlb.sh: bench/itlb.sh's simulated instruction TLB over programs whose
# instruction working set is known.  A static program of N pages, each a
# jump to the next, the last counting K = 10 rounds down and jumping back
# to the first, runs under qemu-user with the plugin; for every processor
# model the orig arm's first-level misses and walks must be what the
# closed formula gives for N consecutive 4 KiB pages visited round robin
# (computed here from the geometry the plugin reports: a set that gets at
# most "ways" pages misses each once, one that gets more misses on every
# access), the limit arm's the same for the 2 MiB pages those pages lie
# in, and the instruction count K * (N + 1) + 4 exactly.  N = 16 fits every
# first level; N = 320 overflows every first level and fits every second;
# N = 2600 overflows both.  Skips (77) without qemu-user, or when the
# plugin header cannot be fetched (bench/itlb.sh says why).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
have python3 || skip_all "python3 not found"
have qemu-x86_64 || skip_all "qemu-x86_64 not found (Debian: package qemu-user)"
cc=${CC:-cc}
have "$cc" || skip_all "no C compiler ($cc)"
[ "$(uname -m)" = x86_64 ] || skip_all "the synthetic programs are x86-64 code (this is $(uname -m))"

work=$TESTS_BUILDDIR/itlb-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
itlb=$TESTS_SRCDIR/../bench/itlb.sh

# ring N: a static program of N pages visited round robin 10 times.
ring () {
	local n=$1 i
	{
		printf '\t.text\n\t.globl _start\n\t.p2align 12\n_start:\n\tmov $10, %%ecx\np0:\n\tjmp p1\n'
		for ((i = 1; i < n - 1; i++)); do
			printf '\t.p2align 12\np%d:\n\tjmp p%d\n' "$i" $((i + 1))
		done
		printf '\t.p2align 12\np%d:\n\tdec %%ecx\n\tjnz p0\n\tmov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall\n' $((n - 1))
		printf '\t.section .note.GNU-stack,"",@progbits\n'
	} > "$work/ring$n.S"
	"$cc" -nostdlib -static -no-pie -o "$work/ring$n" "$work/ring$n.S"
}

for n in 16 320 2600; do
	ring "$n" || hard_error "cannot build the ring of $n pages"
	ELFPMD=$ELFPMD "$itlb" --json -o "$work/ring$n.json" -- "$work/ring$n" > "$work/ring$n.out" 2>&1
	st=$?
	if [ "$st" -eq 77 ]; then
		skip_all "$(tail -1 "$work/ring$n.out")"
	elif [ "$st" -ne 0 ]; then
		fail "ring of $n pages: itlb.sh exit $st: $(tail -3 "$work/ring$n.out")"
		continue
	fi
	start=$(nm "$work/ring$n" | awk '$3 == "_start" { print $1 }')
	python3 - "$work/ring$n.json" "$n" "$start" > "$work/ring$n.check" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, first = int(sys.argv[2]), int(sys.argv[3], 16) >> 12
K = 10

def formula(first, n, sets, ways):
    misses = 0
    for s in range(sets):
        lo = first + ((s - first) % sets)
        m = (first + n - 1 - lo) // sets + 1 if lo < first + n else 0
        misses += m if m <= ways else m * K
    return misses

def expect(geometry, size, first, n):
    key = "4k" if size == 0 else "2m"
    a1 = next(a for a in geometry if a["level"] == 1 and a[key])
    a2 = next(a for a in geometry if a["level"] == 2 and a[key])
    if n == 1:
        return 1, 1
    l1 = formula(first, n, a1["entries"] // a1["ways"], a1["ways"])
    if l1 == n:
        return l1, n
    if l1 != n * K:
        return None
    return l1, formula(first, n, a2["entries"] // a2["ways"], a2["ways"])

bad = 0
for r in rows:
    if r["insns"] != K * (n + 1) + 4:
        print("FAIL %s %s: %d instructions, expected %d" % (r["arm"], r["cpu"], r["insns"], K * (n + 1) + 4)); bad = 1
    if r["arm"] == "orig":
        e = expect(r["geometry"], 0, first, n)
    elif r["arm"] == "limit":
        f2, l2 = (first << 12) >> 21, ((first + n - 1) << 12) >> 21
        e = expect(r["geometry"], 1, f2, l2 - f2 + 1)
    else:
        continue
    if e is None:
        print("FAIL %s %s: a case that mixes fitting and overflowing sets" % (r["arm"], r["cpu"])); bad = 1
    elif (r["l1_misses"], r["walks"]) != e:
        print("FAIL %s %s: first-level misses %d, walks %d; formula %d, %d" % (r["arm"], r["cpu"], r["l1_misses"], r["walks"], e[0], e[1])); bad = 1
    else:
        print("ok %s %s: first-level misses %d, walks %d" % (r["arm"], r["cpu"], r["l1_misses"], r["walks"]))
sys.exit(bad)
EOF
	if [ $? -eq 0 ]; then
		pass "ring of $n pages: the formula's misses and walks for every model, orig and limit: $(grep -c '^ok' "$work/ring$n.check") rows ($(grep '^ok orig' "$work/ring$n.check" | sed 's/^ok orig //' | tr '\n' ';'))"
	else
		fail "ring of $n pages: $(grep FAIL "$work/ring$n.check" | head -3 | tr '\n' ';')"
	fi
done

[ "$n_fail" -ne 0 ] || rm -rf "$work"
finish
