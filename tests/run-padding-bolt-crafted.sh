#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-bolt-crafted.sh: the layout that padding BOLT's layout gives,
# made by hand (no elfpmd): a hole before the text and one before the
# program header table's segment, which must stay congruent.  The checker
# (phdr-dump --bytemap) must accept it for a shared object, with the
# dynamic loader's rule, and ld.so load the library from it; it must refuse
# it for a program, for AT_PHDR as kernels before 5.18 compute it.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir

# craft_holes IN OUT ALIGN_INDEX AT PAD [AT PAD...]: write OUT, IN (ELF64
# LSB) with PAD zero bytes inserted before input offset AT (each a PT_LOAD
# start), every offset in the headers mapped, and p_align of program header
# ALIGN_INDEX raised to PMD.
craft_holes () {
	python3 - "$@" "$PMD" <<'EOF_PY'
import struct, sys
src, dst, align_index = sys.argv[1], sys.argv[2], int(sys.argv[3])
args, pmd = sys.argv[4:-1], int(sys.argv[-1])
ins = sorted((int(args[i], 0), int(args[i + 1], 0)) for i in range(0, len(args), 2))
b = open(src, "rb").read()
def new(x):
    return x + sum(pad for at, pad in ins if x >= at)
out, prev = bytearray(), 0
for at, pad in ins:
    out += b[prev:at] + bytes(pad)
    prev = at
out += b[prev:]
phoff, shoff = struct.unpack_from("<QQ", b, 32)
phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", b, 54)
struct.pack_into("<QQ", out, 32, new(phoff), new(shoff) if shoff else 0)
for i in range(phnum):
    e = bytearray(b[phoff + i * phentsize:phoff + (i + 1) * phentsize])
    off, = struct.unpack_from("<Q", e, 8)
    struct.pack_into("<Q", e, 8, new(off))
    if i == align_index:
        struct.pack_into("<Q", e, 48, pmd)
    out[new(phoff) + i * phentsize:new(phoff) + (i + 1) * phentsize] = e
for i in range(1, shnum if shoff else 0):
    e = bytearray(b[shoff + i * shentsize:shoff + (i + 1) * shentsize])
    off, = struct.unpack_from("<Q", e, 24)
    struct.pack_into("<Q", e, 24, new(off))
    out[new(shoff) + i * shentsize:new(shoff) + (i + 1) * shentsize] = e
open(dst, "wb").write(out)
EOF_PY
}

crafted () {
	local t_index t_off t_vaddr tab_index tab_off pad pad2 status
	check_original
	bolt_layout_ok || return
	read -r t_index t_off t_vaddr _ <<<"$(text_segment "$orig")"
	read -r tab_index _ <<<"${rule_in#PT_LOAD }"
	tab_off=$("$PHDR_DUMP" "$orig" | awk -v i="$tab_index" "$AWK_HEX"' $1 == i { printf "%.0f\n", hex($4) }')
	pad=$(( (t_vaddr - t_off) % PMD ))
	pad2=$(( (PMD - pad) % PMD ))
	mkdir -p "$w/crafted"
	if ! craft_holes "$orig" "$w/crafted/$file" "$t_index" "$t_off" "$pad" "$tab_off" "$pad2"; then
		fail "$name: cannot make the holes by hand"
		return
	fi
	chmod +x "$w/crafted/$file"
	"$PHDR_DUMP" --bytemap "$orig" "$w/crafted/$file" >"$w/crafted.out" 2>&1
	status=$?
	if [ "$kind" = dso ]; then
		check "$name: checker: holes of 0x$(printf %x "$pad") and 0x$(printf %x "$pad2") made by hand pass --bytemap (the dynamic loader's rule)" \
			test "$status" -eq 0
		same_run "$w/crafted" "library with those holes made by hand"
	else
		check "$name: checker: the same holes made by hand fail --bytemap for AT_PHDR (kernels < 5.18)" \
			grep -q 'AT_PHDR rule (kernels < 5.18) broken by the rewrite' "$w/crafted.out"
	fi
}
for_each_bolt_fixture all crafted
finish
