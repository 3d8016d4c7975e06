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
# access), every other arm's the same for the pages that arm gives (limit:
# 2 MiB pages; remap, and elfpmd when its stub is in: the whole 2 MiB
# chunks of the text segment; orig, kernel, glibc: 4 KiB pages), and the
# instruction count K * (N + 1) + 4 exactly.  N = 16 fits every first
# level; N = 320 overflows every first level and fits every second; N =
# 2600 overflows both, and holds four whole chunks.  Skips (77) without
# qemu-user, or when the plugin header cannot be fetched (bench/itlb.sh
# says why).
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

# check NAME N JSON MODE: the rows of JSON (a ring of N pages) against the
# formula, for every model: orig, kernel and glibc (none of which gives this
# fixed-address program's unaligned text a huge page) all 4 KiB pages;
# limit all 2 MiB; remap the 2 MiB chunks wholly inside the text segment
# (read here with readelf), 4 KiB pages elsewhere; elfpmd the same as
# remap when MODE is "stub" (the rewrite put its stub in), as orig else.
check_rows () {
	local name=$1 n=$2 json=$3 mode=$4 start seg
	start=$(nm "$work/ring$n" | awk '$3 == "_start" { print $1 }')
	seg=$(readelf -lW "$work/ring$n" | awk '$1 == "LOAD" && / R?W?E 0x/ { print $3, $5 }')
	python3 - "$json" "$n" "$start" "$seg" "$mode" > "$work/$name.check" 2>&1 <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, start, mode = int(sys.argv[2]), int(sys.argv[3], 16), sys.argv[5]
seg_lo, seg_size = (int(x, 16) for x in sys.argv[4].split())
K, M2 = 10, 2 << 20
chunks = [c for c in range((seg_lo + M2 - 1) // M2 * M2, seg_lo + seg_size, M2) if c + M2 <= seg_lo + seg_size]

def stream(huge):
    # the pages of one round, consecutive repeats collapsed (the plugin
    # looks a page up once while execution stays in it)
    out = []
    for i in range(n):
        a = start + (i << 12)
        p = (a >> 21, 1) if huge(a) else (a >> 12, 0)
        if not out or out[-1] != p:
            out.append(p)
    return out

def arrays(geometry, level, size):
    key = "4k" if size == 0 else "2m"
    a = next(a for a in geometry if a["level"] == level and a[key])
    return (level, a["entries"], a["ways"])

def expect(geometry, pages):
    if len(pages) == 1:
        return 1, 1
    # first level: a set that gets at most "ways" pages misses each once
    l1, sets = 0, {}
    for p in pages:
        arr = arrays(geometry, 1, p[1])
        sets.setdefault((arr, p[0] % (arr[1] // arr[2])), []).append(p)
    thrash = set()
    for (arr, _), ps in sets.items():
        if len(ps) <= arr[2]:
            l1 += len(ps)
        else:
            l1 += len(ps) * K
            thrash.update(ps)
    # second level: what the first missed (every round for the thrashing
    # sets' pages, the first round for the others)
    walks, sets = 0, {}
    for p in pages:
        arr = arrays(geometry, 2, p[1])
        sets.setdefault((arr, p[0] % (arr[1] // arr[2])), []).append(p)
    for (arr, _), ps in sets.items():
        t = [p for p in ps if p in thrash]
        if len(ps) <= arr[2] or not t:
            walks += len(ps)
        elif len(t) == len(ps):
            walks += len(ps) * K
        else:
            return None
    return l1, walks

in_chunk = lambda a: any(c <= a < c + M2 for c in chunks)
plans = {"orig": lambda a: False, "kernel": lambda a: False, "glibc": lambda a: False,
         "limit": lambda a: True, "remap": in_chunk,
         "elfpmd": in_chunk if mode == "stub" else (lambda a: False)}
bad = 0
for r in rows:
    if r["insns"] != K * (n + 1) + 4:
        print("FAIL %s %s: %d instructions, expected %d" % (r["arm"], r["cpu"], r["insns"], K * (n + 1) + 4)); bad = 1
    e = expect(r["geometry"], stream(plans[r["arm"]]))
    if e is None:
        print("FAIL %s %s: a case that mixes fitting and overflowing sets" % (r["arm"], r["cpu"])); bad = 1
    elif (r["l1_misses"], r["walks"]) != e:
        print("FAIL %s %s: first-level misses %d, walks %d; formula %d, %d" % (r["arm"], r["cpu"], r["l1_misses"], r["walks"], e[0], e[1])); bad = 1
    else:
        print("ok %s %s: first-level misses %d, walks %d" % (r["arm"], r["cpu"], r["l1_misses"], r["walks"]))
print("chunks %d" % len(chunks))
sys.exit(bad)
EOF
}

# run_ring NAME N [ITLB OPTIONS]: itlb.sh over the ring of N pages.
run_ring () {
	local name=$1 n=$2
	shift 2
	ELFPMD=$ELFPMD "$itlb" --json "$@" -o "$work/$name.json" -- "$work/ring$n" > "$work/$name.out" 2>&1
	st=$?
	if [ "$st" -eq 77 ]; then
		skip_all "$(tail -1 "$work/$name.out")"
	elif [ "$st" -ne 0 ]; then
		fail "$name: itlb.sh exit $st: $(tail -3 "$work/$name.out")"
		return 1
	fi
}

for n in 16 320 2600; do
	ring "$n" || hard_error "cannot build the ring of $n pages"
	run_ring "ring$n" "$n" || continue
	if check_rows "ring$n" "$n" "$work/ring$n.json" nostub; then
		pass "ring of $n pages: the formula's misses and walks, every model and arm: $(grep -c '^ok' "$work/ring$n.check") rows ($(grep '^ok orig' "$work/ring$n.check" | sed 's/^ok orig //' | tr '\n' ';'))"
	else
		fail "ring of $n pages: $(grep -v "^ok" "$work/ring$n.check" | head -3 | tr '\n' ';')"
	fi
done
# The ring of 2600 pages (10 MiB of text) holds whole 2 MiB chunks: without
# room for the stub's program header elfpmd puts none in (the elfpmd arm
# keeps 4 KiB pages, checked above); with --move-table it does, and the
# elfpmd arm has the chunks.
if run_ring ring2600-stub 2600 -e --move-table; then
	if check_rows ring2600-stub 2600 "$work/ring2600-stub.json" stub && grep -q '^chunks [1-9]' "$work/ring2600-stub.check"; then
		pass "ring of 2600 pages, stub in: the formula's misses and walks with $(sed -n 's/^chunks //p' "$work/ring2600-stub.check") chunks on 2 MiB pages, every model and arm ($(grep '^ok elfpmd' "$work/ring2600-stub.check" | sed 's/^ok elfpmd //' | tr '\n' ';'))"
	else
		fail "ring of 2600 pages, stub in: $(grep 'FAIL\|^chunks' "$work/ring2600-stub.check" | head -3 | tr '\n' ';')"
	fi
fi

[ "$n_fail" -ne 0 ] || rm -rf "$work"
finish
