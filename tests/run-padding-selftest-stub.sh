#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-selftest-stub.sh: the checkers' self-test on outputs of
# --madvise: lld-pie (the table grown in place, PT_INTERP and PT_NOTE moved
# into the stub's segment with a .symtab symbol following them, hooked
# through e_entry), libbiglld.so (its PT_PHDR taken over), lld-twoseg (the
# table moved) and GNU ld's libbig.so (a PT_NOTE and .gnu.hash moved,
# DT_GNU_HASH following, hooked through DT_INIT).  The stub's code is not in
# the input, so a changed byte of it need not be caught; everything the
# injection derives from the input must be, by phdr-dump --bytemap and by
# elfpmd's read-back checker, also the section indices that move up
# past the stub's section headers.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
w=$WORK
co_opts=--madvise

# stub_spots FILE: "NAME OFFSET" lines for the places of an elfpmd --madvise
# output (ELF64 LSB) that are damaged here, found independently of
# phdr-dump: target (the stub's params.target, the 8 bytes before its magic
# in the last PT_LOAD), moved (a PT_INTERP or PT_NOTE moved into the last
# PT_LOAD), init (the value of DT_INIT), gnu_hash (the value of a
# DT_GNU_HASH pointing into the last PT_LOAD), symbol (the st_value of a
# .symtab symbol defined there, not one of the stub's own), stubsym (the
# st_info of the first of the stub's symbols appended to .symtab, named
# elfpmd.*), stubname (the first byte of its name), symtab_shdr (the index
# of .symtab's section header and its sh_link).  A line is left out when
# there is none.
stub_spots () {
	python3 - "$@" <<'EOF_PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
if b[4] != 2 or b[5] != 1:
    sys.exit(0)
phoff, shoff = struct.unpack_from("<QQ", b, 32)
phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", b, 54)
ph = [struct.unpack_from("<IIQQQQQQ", b, phoff + i * phentsize) for i in range(phnum)]
loads = [p for p in ph if p[0] == 1]
if not loads:
    sys.exit(0)
_, _, off, va, _, filesz, memsz, _ = loads[-1]
m = b.find(struct.pack("<Q", 0x31444d5046504c45), off, off + filesz)
if m >= 8:
    print("target", m - 8)
moved = [p[2] for p in ph if p[0] in (3, 4) and off <= p[2] < off + filesz]
if moved:
    print("moved", moved[0])
for p in ph:
    if p[0] != 2:
        continue
    for k in range(p[5] // 16):
        tag, val = struct.unpack_from("<qQ", b, p[2] + 16 * k)
        if tag == 0:
            break
        if tag == 12:
            print("init", p[2] + 16 * k + 8)
        if tag == 0x6ffffef5 and va <= val < va + memsz:
            print("gnu_hash", p[2] + 16 * k + 8)
    break
shdrs = [struct.unpack_from("<IIQQQQI", b, shoff + i * shentsize) for i in range(shnum if shoff else 0)]
for i, (_, typ, _, _, soff, size, link) in enumerate(shdrs):
    if typ == 2:
        print("symtab_shdr", i, link)
for _, typ, _, _, soff, size, link in shdrs:
    if typ != 2:
        continue
    stroff = shdrs[link][4] if link < len(shdrs) else 0
    seen = set()
    for k in range(size // 24):
        name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", b, soff + 24 * k)
        if not (0 < shndx < 0xff00 and va <= value < va + memsz):
            continue
        own = b[stroff + name:stroff + name + 7] == b"elfpmd."
        if not own and "symbol" not in seen:
            print("symbol", soff + 24 * k + 8)
        if own and "stubsym" not in seen:
            print("stubsym", soff + 24 * k + 4)
            print("stubname", stroff + name)
        seen.add("stubsym" if own else "symbol")
EOF_PY
}

# madvise_good FILE: the good pair $w/in, $w/good for FILE and its
# stub_spots in spots; fail or skip (and return 1) when there is none.
madvise_good () {
	local label=${1##*/}
	cp "$1" "$w/in"
	cp "$1" "$w/good"
	if ! "$ELFPMD" -q --madvise "$w/good" 2>"$w/err"; then
		fail "elfpmd --madvise fails on $label: $(head -1 "$w/err")"
		return 1
	fi
	if ! "$PHDR_DUMP" --bytemap "$w/in" "$w/good" >"$w/ok" 2>"$w/err"; then
		fail "bytemap rejects elfpmd --madvise's output of $label: $(head -1 "$w/err")"
		return 1
	fi
	if ! grep -q '; stub: ' "$w/ok"; then
		skip "bytemap self-test on --madvise's output of $label: elfpmd injected no stub"
		return 1
	fi
	pass "bytemap accepts elfpmd --madvise's output of $label: $(sed -n '1s/.*; stub: //p' "$w/ok")"
	spots=$(stub_spots "$w/good")
}
spot () { awk -v k="$1" '$1 == k { print $2; exit }' <<<"$spots"; }
entry_of () { "$PHDR_DUMP" "$1" | sed -n '1s/.* entry=\(0x[0-9a-f]*\).*/\1/p'; }

if madvise_good "$O/lld-pie"; then
	if [ -n "$(spot target)" ]; then
		damage "a wrong params.target of the stub" "stub's target" add "$(spot target)" 8 16
	else
		fail "bytemap self-test: no stub parameters found in lld-pie's --madvise output"
	fi
	damage "a wrong e_entry" "from e_entry" add 24 8 16
	damage "e_entry not hooked" "not hooked" add 24 8 $(( $(entry_of "$w/in") - $(entry_of "$w/good") ))
	if [ -n "$(spot moved)" ]; then
		damage "a changed byte of a moved object" "moved bytes differ" byte $(( $(spot moved) + 1 )) 0x21
	else
		skip "bytemap self-test: nothing moved into lld-pie's stub segment"
	fi
	if [ -n "$(spot symbol)" ]; then
		damage "a moved symbol with a wrong value" "st_value" add "$(spot symbol)" 8 4
	else
		skip "bytemap self-test: no .symtab symbol followed lld-pie's moved objects"
	fi
	# The stub's symbols appended to .symtab (global, hidden): one made
	# local, one name that is not the stub's.
	if [ -n "$(spot stubsym)" ]; then
		damage "a stub's symbol in .symtab made local" "not a global hidden" \
			byte "$(spot stubsym)" 0x02
		damage "a stub's symbol name in .strtab changed" "not an \"elfpmd\.\" name" \
			byte "$(spot stubname)" 0x45
	else
		fail "bytemap self-test: no stub's symbol in lld-pie's .symtab"
	fi
	# The section indices that follow the non-loaded sections moving up
	# past the stub's: e_shstrndx and .symtab's sh_link, one less.
	damage "e_shstrndx not following the name table" "e_shstrndx|section name table" add 62 2 -1
	read -r _ idx link < <(awk '$1 == "symtab_shdr"' <<<"$spots")
	if [ -n "$idx" ]; then
		damage ".symtab's sh_link not following its string table" "sh_link" shdr "$idx" link $((link - 1))
	else
		fail "bytemap self-test: no .symtab in lld-pie's --madvise output"
	fi
fi
if build_fixture libbiglld && madvise_good "$O/libbiglld.so"; then
	if [ -n "$(spot init)" ]; then
		damage "a wrong DT_INIT (PT_PHDR taken over)" "from DT_INIT" add "$(spot init)" 8 16
	else
		fail "bytemap self-test: libbiglld.so's --madvise output has no DT_INIT"
	fi
fi
if build_fixture lld-twoseg && madvise_good "$O/lld-twoseg"; then
	if grep -q '; stub: table moved' "$w/ok"; then
		damage "PT_PHDR not describing the moved table" "PHDR" \
			phdr "$(phdr_field "$w/good" PHDR 1)" vaddr $(( $(phdr_field "$w/good" PHDR 5) + 8 ))
	else
		fail "bytemap self-test: the table did not move in lld-twoseg's --madvise output: $(head -1 "$w/ok")"
	fi
fi
if ! build_fixture libbig; then
	skip "bytemap self-test on a --madvise library: cannot build libbig: $(why_unbuildable libbig)"
elif madvise_good "$O/libbig.so"; then
	if [ -n "$(spot init)" ]; then
		damage "a wrong DT_INIT" "from DT_INIT" add "$(spot init)" 8 16
	else
		fail "bytemap self-test: libbig.so's --madvise output has no DT_INIT"
	fi
	if [ -n "$(spot gnu_hash)" ]; then
		damage "a wrong DT_GNU_HASH" "DT_GNU_HASH" add "$(spot gnu_hash)" 8 8
	else
		skip "bytemap self-test: .gnu.hash did not move in libbig.so's --madvise output"
	fi
fi
finish
