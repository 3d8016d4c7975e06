#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# padding.sh: the body of the run-padding-*.sh tests (one per part below),
# about the file padding that elfpmd inserts where a read-only
# segment's file offset is not congruent with its address modulo the PMD size
# (lld's layout: text at offset 0x870, address 0x1870).  For each fixture:
#   - the original runs; a copy is rewritten in place (elfpmd --json);
#   - the lld fixtures really get padded: the text PT_LOAD's action is
#     "padded and aligned", the file grows by a multiple of 4 KiB below 2 MiB
#     and its allocated size by at most 64 KiB (the padding is a hole); the
#     GNU ld ones are aligned without moving a byte;
#   - the JSON report agrees with the file that was written and with the dry
#     run (-n --json), which writes nothing;
#   - the rewritten file runs and prints what the original printed;
#   - eu-elflint --gnu-ld complains no more than about the original;
#   - phdr-dump --bytemap IN OUT (an independent reader) proves that OUT is
#     IN with holes at PT_LOAD starts and nothing else moved or changed, and
#     that the loader rules of old kernels (AT_PHDR) and glibc < 2.35
#     (p_vaddr - p_offset a multiple of p_align) hold;
#   - a second run changes nothing, not even the mtime;
#   - --no-pad reports "needs padding" and leaves the file alone;
#   - strip and eu-strip of the padded file still give a working program;
#   - gdb finds main and its file:line after the rewrite, with the debug info
#     in the binary and from a separate debug file made before the rewrite.
# Then files crafted so that padding must be refused (a non-LOAD segment or
# a section spanning the text's start), BOLT's layout (the program headers in
# a later, already aligned segment) and self-tests of the checker, on a
# padded output and on outputs of --madvise (the startup stub).
#
# Each part is a test of its own, so that make -j runs them side by side:
# run-padding-fixtures.sh, run-padding-refusals.sh, run-padding-bolt.sh and
# run-padding-selftest.sh set PADDING_PARTS and source this file; by hand,
# PADDING_PARTS="fixtures bolt" bash tests/padding.sh runs several (default:
# all four).  Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and
# TESTS_BUILDDIR set (see tests/lib.sh for the defaults).  Fixtures are built
# into $TESTS_BUILDDIR/padding-build, one build at a time (build_fixture's
# lock), shared by the parts and not with run-fixtures.sh; each part works in
# padding-build/work-PART, where the work files of a failed fixture are
# kept.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=$((0x200000))
ARGS=(alpha "beta gamma")	# arguments of every fixture run
O=$TESTS_BUILDDIR/padding-build
PADDING_PARTS=${PADDING_PARTS:-fixtures refusals bolt selftest}
WORK=$O/work-${PADDING_PARTS// /-}

# want_part PART: whether PADDING_PARTS names PART.
want_part () { case " $PADDING_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

require_elfpmd
rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
have_python=false
if have python3 && python3 -c 'import json, struct' 2>/dev/null; then have_python=true
else skip "python3 not found: JSON checks and crafted files skipped"; fi
have_gdb=false
if have gdb; then have_gdb=true; else skip "gdb not found: debugger checks skipped"; fi
LLVM_OBJCOPY=${LLVM_OBJCOPY:-$(command -v llvm-objcopy llvm-objcopy-19 llvm-objcopy-18 \
	llvm-objcopy-17 llvm-objcopy-16 llvm-objcopy-15 llvm-objcopy-14 2>/dev/null | head -1)}

# The fixtures, one per line:
#   NAME  TARGET  FILE  PROGRAM  PADDED  GDB
# NAME labels the case; TARGET is the make target; FILE is the file
# rewritten; PROGRAM what runs (FILE itself, or a program that loads the
# library FILE from LD_LIBRARY_PATH); PADDED says whether the text segment
# must be "padded and aligned" (yes) or only "aligned" (no); GDB is "full"
# (debug info in FILE), "split" (debug info in TARGET.debug, made before the
# rewrite) or "-".
FIXTURES='
lld-pie         lld-pie         lld-pie          lld-pie          yes  -
libbiglld       libbiglld       libbiglld.so     usebig-lld       yes  -
lld-nosections  lld-nosections  lld-nosections   lld-nosections   yes  -
lld-twoseg      lld-twoseg      lld-twoseg       lld-twoseg       yes  -
debug-lld       debug-lld       debug-lld        debug-lld        yes  full
debug-lld-split debug-lld       debug-lld-split  debug-lld-split  yes  split
debug-bfd-split debug-bfd       debug-bfd-split  debug-bfd-split  no   split
static          static          static           static           no   -
'

# allocated FILE: bytes of disk space FILE occupies.
allocated () { echo $(( $(stat -c '%b * %B' -- "$1") )); }

# An awk function (POSIX awk, mawk too) turning phdr-dump's 0x-hex numbers
# into numbers; exact below 2^53, which is plenty for these files.
AWK_HEX='function hex(s,  i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'

# field FILE TYPE COLUMN: phdr-dump's COLUMN (1 index, 4 offset, 5 vaddr,
# 6 filesz, 8 align) of FILE's first program header of TYPE, in decimal.
field () {
	"$PHDR_DUMP" "$1" | awk -v t="$2" -v c="$3" "$AWK_HEX"'
		$2 == t { printf "%.0f\n", c == 1 ? $1 : hex($c); exit }'
}

# text_load FILE: "INDEX OFFSET VADDR FILESZ ALIGN" of the largest executable
# PT_LOAD of FILE, numbers in decimal.
text_load () {
	"$PHDR_DUMP" "$1" | awk "$AWK_HEX"'
		$2 == "LOAD" && $3 ~ /X/ && (!found || hex($6) > best) {
			found = 1; best = hex($6)
			line = sprintf("%s %.0f %.0f %.0f %.0f", $1, hex($4), hex($5), best, hex($8)) }
		END { if (found) print line }'
}

# loader_rules FILE: the two rules old loaders apply, read from phdr-dump's
# dump (independently of --bytemap, which checks them too):
#   kernel < 5.18: AT_PHDR = first PT_LOAD p_vaddr - p_offset + e_phoff
#                  must be PT_PHDR's p_vaddr;
#   glibc < 2.35:  (p_vaddr - p_offset) % p_align == 0 for every PT_LOAD with
#                  p_align > 1.
# Prints what is broken; fails then.
loader_rules () {
	"$PHDR_DUMP" "$1" | awk "$AWK_HEX"'
		function n(x) { return hex(x) }
		$1 == "ehdr" { for (i = 2; i <= NF; i++) if ($i ~ /^phoff=/) phoff = n(substr($i, 7)); next }
		$2 == "LOAD" && !have_load { have_load = 1; base = n($5) - n($4) }
		$2 == "PHDR" { have_phdr = 1; phdr_vaddr = n($5) }
		$2 == "LOAD" && n($8) > 1 && (n($5) - n($4)) % n($8) != 0 {
			printf "glibc < 2.35 rule: PT_LOAD %s: p_vaddr %s - p_offset %s not a multiple of p_align %s\n", $1, $5, $4, $8; bad = 1 }
		END {
			if (have_load && have_phdr && base + phoff != phdr_vaddr) {
				printf "AT_PHDR rule: first PT_LOAD p_vaddr - p_offset (%.0f) + e_phoff (%.0f) != PT_PHDR p_vaddr (%.0f)\n", base, phoff, phdr_vaddr; bad = 1 }
			exit bad }'
}

# check_report JSON EXPECT_PADDED ORIG NEW DRYJSON: the report of the real
# rewrite (JSON) agrees with the written file, with the dry run DRYJSON, and
# with what this fixture must get.
check_report () {
	python3 - "$@" "$PMD" \
		<("$PHDR_DUMP" "$3" | awk '$2 == "LOAD"') <("$PHDR_DUMP" "$4" | awk '$2 == "LOAD"') <<'EOF'
import json, os, sys
report, padded, orig, new, dry, pmd, old_loads, new_loads = sys.argv[1:]
pmd = int(pmd)
def one(path):
    lines = open(path).read().splitlines()
    if len(lines) != 1:
        sys.exit("%s: expected one line of JSON, got %d" % (path, len(lines)))
    return json.loads(lines[0])
def loads(path):
    out = {}
    for l in open(path):
        f = l.split()
        out[int(f[0])] = dict(flags=f[2], offset=int(f[3], 16), vaddr=int(f[4], 16),
                              filesz=int(f[5], 16), align=int(f[7], 16))
    return out
r, d = one(report), one(dry)
old, nw = loads(old_loads), loads(new_loads)
errors = []
text = max((i for i in old if "X" in old[i]["flags"]), key=lambda i: old[i]["filesz"])
segs = {s["index"]: s for s in r.get("segments", [])}
dsegs = {s["index"]: s for s in d.get("segments", [])}
if set(segs) != set(old):
    sys.exit("report lists PT_LOADs %s, the file has %s" % (sorted(segs), sorted(old)))
t = segs[text]
want_action = "padded and aligned" if padded == "yes" else "aligned"
if t.get("action") != want_action:
    errors.append("text PT_LOAD %d: action %r, expected %r" % (text, t.get("action"), want_action))
pad = t.get("padding")
if padded == "yes":
    if not (isinstance(pad, int) and 0 < pad < pmd and pad % 4096 == 0):
        errors.append("text PT_LOAD %d: padding %r, expected a multiple of 4 KiB in (0, PMD)" % (text, pad))
    if r.get("padded_segments") != 1:
        errors.append("padded_segments %r, expected 1" % r.get("padded_segments"))
elif pad != 0 or r.get("padded_segments") != 0:
    errors.append("padding %r, padded_segments %r: expected none" % (pad, r.get("padded_segments")))
if t.get("new_align") != pmd:
    errors.append("text new_align %r" % t.get("new_align"))
for i, s in segs.items():
    if s.get("new_offset") != nw[i]["offset"]:
        errors.append("segment %d: new_offset %r, the file says %#x" % (i, s.get("new_offset"), nw[i]["offset"]))
    if s.get("offset") != old[i]["offset"]:
        errors.append("segment %d: offset %r, the file says %#x" % (i, s.get("offset"), old[i]["offset"]))
    if s.get("new_align") != nw[i]["align"]:
        errors.append("segment %d: new_align %r, the file says %#x" % (i, s.get("new_align"), nw[i]["align"]))
    ds = dsegs.get(i, {})
    for k in ("new_offset", "new_align", "padding", "action"):
        if ds.get(k) != s.get(k):
            errors.append("segment %d: dry run says %s=%r, the rewrite %r" % (i, k, ds.get(k), s.get(k)))
if (nw[text]["offset"] - nw[text]["vaddr"]) % pmd != 0:
    errors.append("text p_offset %#x not congruent with p_vaddr %#x" % (nw[text]["offset"], nw[text]["vaddr"]))
size_before, size_after = os.path.getsize(orig), os.path.getsize(new)
for rep, tag in ((r, "report"), (d, "dry run")):
    if rep.get("size_before") != size_before or rep.get("size_after") != size_after:
        errors.append("%s: size_before %r size_after %r, the files have %d and %d"
                      % (tag, rep.get("size_before"), rep.get("size_after"), size_before, size_after))
total = sum(s.get("padding", 0) for s in segs.values())
if size_after - size_before != total:
    errors.append("file grew by %d, the paddings add up to %d" % (size_after - size_before, total))
for k in ("allocated_before", "allocated_after"):
    if not isinstance(r.get(k), int):
        errors.append("%s missing from the report of a real write" % k)
st = os.stat(new)
if isinstance(r.get("allocated_after"), int) and r["allocated_after"] != st.st_blocks * 512:
    errors.append("allocated_after %r, stat says %d" % (r["allocated_after"], st.st_blocks * 512))
if r.get("dry_run") is not False or d.get("dry_run") is not True:
    errors.append("dry_run flags %r (rewrite) %r (dry run)" % (r.get("dry_run"), d.get("dry_run")))
if errors:
    sys.exit("; ".join(errors))
print("text PT_LOAD %d %s, padding %#x, size %d -> %d, allocated %s -> %s"
      % (text, t["action"], pad, size_before, size_after, r.get("allocated_before"), r.get("allocated_after")))
EOF
}

# json_segment JSON INDEX KEY: one key of one segment of a one-line report.
json_segment () {
	python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read())
for s in r["segments"]:
    if s["index"] == int(sys.argv[2]):
        v = s.get(sys.argv[3])
        print("" if v is None else v)' "$@"
}

# json_key JSON KEY: one top-level key of a one-line report.
json_key () {
	python3 -c 'import json, sys; v = json.loads(open(sys.argv[1]).read()).get(sys.argv[2]); print("" if v is None else v)' "$@"
}

# section_before FILE OFFSET: "INDEX SH_OFFSET SH_SIZE" of the section with
# contents that ends last at or before OFFSET, as mutate reads the headers.
section_before () {
	local at=$(($2)) line i typ off size best= end=-1
	while read -r line; do
		case $line in shdr\[0\]* | "") continue ;; shdr\[*) ;; *) continue ;; esac
		# shellcheck disable=SC2086  # the line's words, on purpose
		set -- $line
		i=${1#shdr[}; i=${i%]}
		typ=$((${2#type=})) off=$((${3#off=})) size=$((${4#size=}))
		if [ "$typ" -ne 8 ] && [ "$size" -ne 0 ] && [ $((off + size)) -le "$at" ] \
			&& [ $((off + size)) -gt "$end" ]; then
			best="$i $off $size" end=$((off + size))
		fi
	done < <("$MUTATE" info 0 "$1" -)
	echo "$best"
}

# stub_spots FILE: "NAME OFFSET" lines for the places of an elfpmd --madvise
# output (ELF64 LSB) that the self-test damages, found here independently of
# phdr-dump: target (the stub's params.target, the 8 bytes before its magic
# in the last PT_LOAD), moved (a PT_INTERP or PT_NOTE moved into the last
# PT_LOAD), init (the value of DT_INIT), gnu_hash (the value of a
# DT_GNU_HASH pointing into the last PT_LOAD), symbol (the st_value of a
# .symtab symbol defined there, not one of the stub's own), stubsym (the
# st_info of the first of the stub's symbols appended to .symtab, named
# elfpmd.*), stubname (the first byte of its name).  A line is left out
# when there is none.
stub_spots () {
	python3 - "$@" <<'EOF'
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
EOF
}

# gdb_check FILE WHAT GDBARGS...: gdb stops at main of the program FILE and
# names main with its file:line.
gdb_check () {
	local target=$1 what=$2 log
	shift 2
	log=$w/gdb-$(basename "$target").log
	(cd "$(dirname "$target")" && timeout 60 gdb -batch -nx "$@" \
		-ex 'break main' -ex "run ${ARGS[0]}" -ex bt -ex "info line *\$pc" \
		-ex 'info symbol big_report' -ex 'kill') >"$log" 2>&1
	if grep -Eq '^#0 +main \(.*\) at .*main\.c:[0-9]+' "$log" \
		&& grep -Eq '^Line [0-9]+ of ".*main\.c" starts at address' "$log" \
		&& grep -q '^big_report in section \.text' "$log"; then
		pass "$name: gdb ($what) stops in main at $(grep -Eo 'main\.c:[0-9]+' "$log" | head -1) and knows big_report"
	else
		fail "$name: gdb ($what) does not show main with file:line (log: $log)"
		grep -Ev '^\[|libthread_db' "$log" | head -12 | sed 's/^/      /'
	fi
}

built_any=false
want_part fixtures || FIXTURES=
while read -r name target file prog padded gdbmode <&3; do
	[ -n "$name" ] || continue
	echo "# fixture $name"
	build_or_skip "$name" "$target" ${LLVM_OBJCOPY:+LLVM_OBJCOPY="$LLVM_OBJCOPY"} || continue
	built_any=true
	w=$WORK/$name
	mkdir -p "$w"/{orig,new,nopad,second}
	cp -p "$O/$file" "$w/orig/$file"
	fails_before=$n_fail
	orig=$w/orig/$file
	new=$w/new/$file

	check_original
	$have_elflint && lint_before=$(elflint_count "$orig")

	# Dry run first: it must write nothing.
	sig=$(file_signature "$orig")
	"$ELFPMD" -n --json "$orig" >"$w/dry.json" 2>"$w/dry.err"
	status=$?
	check "$name: -n --json exits 0 ($status) and leaves the file alone" \
		test "$status" -eq 0 -a "$sig" = "$(file_signature "$orig")"

	# The rewrite, in place, with the JSON report of what was written.
	cp -p "$orig" "$new"
	if ! "$ELFPMD" --json "$new" >"$w/real.json" 2>"$w/real.err"; then
		fail "$name: elfpmd --json exited non-zero: $(head -3 "$w/real.err")"
		continue
	fi
	pass "$name: elfpmd rewrites it in place (exit 0)"

	if $have_python; then
		if msg=$(check_report "$w/real.json" "$padded" "$orig" "$new" "$w/dry.json" 2>&1); then
			pass "$name: JSON report agrees with the file and the dry run: $msg"
		else
			fail "$name: JSON report: $msg"
		fi
	fi

	if "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1; then
		pass "$name: phdr-dump --bytemap: $(head -1 "$w/bytemap.out")"
	else
		fail "$name: phdr-dump --bytemap finds the output is not the input with holes"
		head -20 "$w/bytemap.out" | sed 's/^/      /'
	fi
	size_before=$(stat -c %s "$orig") size_after=$(stat -c %s "$new")
	grew=$((size_after - size_before))
	alloc_grew=$(( $(allocated "$new") - $(allocated "$orig") ))
	# Each hole is below the PMD size; lld-twoseg has two.
	holes=$(awk '$1 == "hole" { n++ } END { print n + 0 }' "$w/bytemap.out" 2>/dev/null)
	[ "${holes:-0}" -gt 0 ] || holes=1
	if [ "$padded" = yes ]; then
		check "$name: file grew by $grew bytes, a multiple of 4 KiB in (0, $holes x 2 MiB)" \
			test "$grew" -gt 0 -a "$((grew % 4096))" -eq 0 -a "$grew" -lt "$((holes * PMD))"
		check "$name: allocated size grew by $alloc_grew bytes (<= 64 KiB: the padding is a hole)" \
			test "$alloc_grew" -le 65536
	else
		check "$name: file size unchanged (nothing to pad)" test "$grew" -eq 0
	fi
	read -r t_index t_off t_vaddr t_filesz t_align <<<"$(text_load "$new")"
	check "$name: text PT_LOAD $t_index: p_offset 0x$(printf %x "$t_off") congruent with p_vaddr 0x$(printf %x "$t_vaddr") mod 2 MiB, p_align 0x$(printf %x "$t_align")" \
		test -n "$t_off" -a "$(( (t_vaddr - t_off) % PMD ))" -eq 0 -a "$t_align" -eq "$PMD"

	same_run "$w/new" "rewritten file"

	check_elflint "$new"

	if msg=$(loader_rules "$new"); then
		pass "$name: AT_PHDR (kernel < 5.18) and p_align congruence (glibc < 2.35) rules hold"
	else
		fail "$name: loader rules broken: $msg"
	fi

	# A second run finds nothing to do and does not touch the file.
	cp -p "$new" "$w/second/$file"
	sig=$(file_signature "$w/second/$file")
	if "$ELFPMD" -q "$w/second/$file" >"$w/second.log" 2>&1; then
		check "$name: second run leaves bytes, inode and mtime alone" \
			test "$sig" = "$(file_signature "$w/second/$file")" -a -z "$(cmp "$new" "$w/second/$file" 2>&1)"
	else
		fail "$name: second run exited non-zero: $(head -3 "$w/second.log")"
	fi

	# --no-pad: nothing may move.  The text is reported as "needs padding";
	# the file is left alone unless another segment can be aligned where it
	# is (lld-twoseg's .rodata), and then no byte moves.
	if [ "$padded" = yes ]; then
		nopad_changes=unknown
		if $have_python; then
			"$ELFPMD" -n --json --no-pad "$orig" >"$w/nopad.json" 2>&1
			a=$(json_segment "$w/nopad.json" "$t_index" action 2>&1)
			s=$(json_key "$w/nopad.json" size_after 2>&1)
			n=$(json_key "$w/nopad.json" segments_needing_padding 2>&1)
			nopad_changes=$(json_key "$w/nopad.json" changed 2>&1)
			check "$name: --no-pad -n --json: text action '$a', size_after $s, segments_needing_padding $n" \
				test "$a" = "needs padding" -a "$s" = "$size_before" -a "$n" = 1
		fi
		cp -p "$orig" "$w/nopad/$file"
		sig=$(file_signature "$w/nopad/$file")
		if ! "$ELFPMD" -q --no-pad "$w/nopad/$file" >"$w/nopad.log" 2>&1; then
			fail "$name: --no-pad exited non-zero: $(head -3 "$w/nopad.log")"
		elif [ "$sig" = "$(file_signature "$w/nopad/$file")" ]; then
			check "$name: --no-pad exits 0 and does not rewrite the file (the dry run said changed=$nopad_changes)" \
				test "$nopad_changes" != True
		elif "$PHDR_DUMP" --bytemap "$orig" "$w/nopad/$file" >"$w/nopad.bm" 2>&1 \
			&& grep -q ' 0 holes' "$w/nopad.bm"; then
			check "$name: --no-pad aligns another segment but moves nothing ($(head -1 "$w/nopad.bm"))" \
				test "$nopad_changes" = True
		else
			fail "$name: --no-pad rewrote the file with moves: $(head -3 "$w/nopad.bm")"
		fi
	fi

	# strip and eu-strip after the rewrite must give working files that
	# keep the congruence (patchelf's tracker has the opposite).
	for stripper in strip eu-strip; do
		if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
		mkdir -p "$w/$stripper"
		cp -p "$new" "$w/$stripper/$file"
		if $stripper "$w/$stripper/$file" 2>"$w/strip.err"; then
			if msg=$(loader_rules "$w/$stripper/$file"); then
				read -r _ s_off s_vaddr _ s_align <<<"$(text_load "$w/$stripper/$file")"
				check "$name: after $stripper the text is still congruent (offset 0x$(printf %x "$s_off"), align 0x$(printf %x "$s_align"))" \
					test "$(( (s_vaddr - s_off) % PMD ))" -eq 0 -a "$s_align" -eq "$PMD"
			else
				fail "$name: $stripper breaks a loader rule: $msg"
			fi
			same_run "$w/$stripper" "rewritten and ${stripper}ped file"
		elif cp -p "$orig" "$w/$stripper/orig" && ! $stripper "$w/$stripper/orig" 2>/dev/null; then
			skip "$name: $stripper fails on the original too: $(head -1 "$w/strip.err")"
		else
			fail "$name: $stripper fails on the rewritten file (not on the original): $(head -1 "$w/strip.err")"
		fi
	done

	# gdb on the rewritten file: symbols and lines from the debug info in
	# the file, or from the separate debug file made before the rewrite
	# (given explicitly, and found through .gnu_debuglink beside the file).
	if [ "$gdbmode" != - ] && $have_gdb && $can_run; then
		if [ "$gdbmode" = full ]; then
			gdb_check "$new" "debug info in the file" "$new"
		else
			gdb_check "$new" "symbol-file $target.debug, exec-file rewritten" \
				-ex "symbol-file $O/$target.debug" -ex "exec-file $new"
			cp -p "$O/$target.debug" "$w/new/"
			gdb_check "$new" "debug file found by .gnu_debuglink" "$new"
		fi
	fi

	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
done 3<<<"$FIXTURES" </dev/null

if want_part fixtures; then
	stop_unless_built
elif want_part refusals || want_part selftest; then
	# Those parts craft their files from these; without them they skip.
	build_fixture lld-pie
	build_fixture lld-twoseg
fi

# start_part DIR WHO PURPOSE: whether a part below that crafts files from the
# lld-pie fixture ($base) with python3 can run.  If not, SKIP "WHO python3
# PURPOSE" or "WHO the lld-pie fixture" and fail; else make the work directory
# $WORK/DIR, set w to it and fails_before to the failures so far.  Reads
# have_python, base.
start_part () {
	if ! $have_python; then
		skip "$2 python3 $3"
	elif [ ! -f "$base" ]; then
		skip "$2 the lld-pie fixture"
	else
		w=$WORK/$1
		mkdir -p "$w"
		fails_before=$n_fail
		return 0
	fi
	return 1
}

# ---------------------------------------------------------------------------
# Refusals: files crafted from lld-pie (and lld-twoseg) so that a hole cannot
# go where it is needed.  elfpmd must succeed, report "padding refused" for
# the text PT_LOAD with a reason naming the obstacle (-n, -n --json and the
# real run's --json), and either leave the file alone or, where another
# segment can still be aligned without moving anything, write that and no
# hole.  Cases:
#   segment  PT_GNU_EH_FRAME grown to span the text's start
#   section  the section before the text grown to span its start
#   phdrs    the program headers moved to a new PT_LOAD at the end of the
#            file (patchelf's layout), so a hole would break AT_PHDR as
#            kernels before 5.18 compute it (the input keeps that rule)
#   later    lld-twoseg with .text grown into the .rodata segment's start:
#            the text's hole would force a second one there, which cannot
#            be, so .rodata (fewer whole chunks than the text) gives up its
#            alignment and the text is padded: one hole, .rodata refused
base=$O/lld-pie
if want_part refusals && echo "# refusals" && start_part refuse "refusal cases need" "to craft the files"; then
	read -r t_index t_off _ <<<"$(text_load "$base")"
	cases=()		# "NAME CULPRIT-WORDS CHANGED"

	eh_index=$(field "$base" GNU_EH_FRAME 1)
	if [ -n "$eh_index" ]; then
		eh_off=$(field "$base" GNU_EH_FRAME 4)
		cp "$base" "$w/segment"
		poke "$w/segment" phdr "$eh_index" filesz $((t_off - eh_off + 0x10)) \
			phdr "$eh_index" memsz $((t_off - eh_off + 0x10))
		cases+=("segment|PT_GNU_EH_FRAME $eh_index|no")
	else
		skip "refusal by a segment: lld-pie has no PT_GNU_EH_FRAME"
	fi

	read -r s_index s_off _ <<<"$(section_before "$base" "$t_off")"
	if [ -n "$s_index" ]; then
		cp "$base" "$w/section"
		poke "$w/section" shdr "$s_index" size $((t_off - s_off + 0x10))
		cases+=("section|split section|no")
	else
		skip "refusal by a section: no section before the text of lld-pie"
	fi

	# The phdrs case: copy the table to a page past every address and offset,
	# point e_phoff and PT_PHDR there, and turn PT_NOTE into the PT_LOAD that
	# maps it at address = offset, so that first PT_LOAD (0, 0) + e_phoff is
	# still PT_PHDR's address.
	if python3 - "$base" "$w/phdrs" <<'EOF_PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
if b[4] != 2 or b[5] != 1:
    sys.exit(1)
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
tab = bytearray(b[phoff:phoff + phentsize * phnum])
fmt = "<IIQQQQQQ"
ph = [list(struct.unpack_from(fmt, tab, i * phentsize)) for i in range(phnum)]
hi = max([len(b)] + [max(p[3] + p[6], p[2] + p[5]) for p in ph if p[0] == 1])
new = (hi + 0xfff) & ~0xfff
kinds = [p[0] for p in ph]
if 6 not in kinds or 4 not in kinds or [p for p in ph if p[0] == 1][0][2:4] != [0, 0]:
    sys.exit(1)
for i, p in enumerate(ph):
    if p[0] == 6:
        struct.pack_into(fmt, tab, i * phentsize, 6, 4, new, new, new, len(tab), len(tab), 8)
    elif p[0] == 4:
        struct.pack_into(fmt, tab, i * phentsize, 1, 4, new, new, new, len(tab), len(tab), 0x1000)
        break
b += bytes(new - len(b)) + tab
struct.pack_into("<Q", b, 32, new)
open(sys.argv[2], "wb").write(b)
EOF_PY
	then
		chmod +x "$w/phdrs"
		if "$w/phdrs" "${ARGS[@]}" >/dev/null 2>&1; [ $? -eq 42 ]; then
			pass "phdrs: the crafted file with program headers at the end runs (exit 42)"
		else
			note "phdrs: the crafted file does not run here; checking elfpmd's plan only"
		fi
		cases+=("phdrs|program headers away from the first PT_LOAD|no")
	else
		skip "refusal by the program headers' place: cannot craft it from lld-pie"
	fi

	if [ -f "$O/lld-twoseg" ]; then
		cp "$O/lld-twoseg" "$w/later"
		ro_off=$("$PHDR_DUMP" "$w/later" | awk "$AWK_HEX"' $2 == "LOAD" && $3 == "R--" && hex($4) > 0 { printf "%.0f\n", hex($4); exit }')
		read -r s_index s_off _ <<<"$(section_before "$w/later" "${ro_off:-0}")"
		if [ -n "$ro_off" ] && [ -n "$s_index" ]; then
			poke "$w/later" shdr "$s_index" size $((ro_off - s_off + 0x10))
			cases+=("later|moved by the padding before it|hole|rodata")
		else
			skip "refusal by a later segment: lld-twoseg does not have the expected layout"
		fi
	else
		skip "refusal by a later segment: lld-twoseg was not built"
	fi

	for c in "${cases[@]}"; do
		IFS='|' read -r cname culprit changes refused <<<"$c"
		f=$w/$cname
		read -r ct_index _ <<<"$(text_load "$f")"
		if [ "$refused" = rodata ]; then
			ct_index=$("$PHDR_DUMP" "$f" | awk "$AWK_HEX"' $2 == "LOAD" && $3 == "R--" && hex($4) > 0 { print $1; exit }')
		fi
		cp -p "$f" "$f.orig"
		sig=$(file_signature "$f")
		"$ELFPMD" -n "$f" >"$w/n.txt" 2>&1
		st_n=$?
		"$ELFPMD" -n --json "$f" >"$w/n.json" 2>&1
		st_nj=$?
		"$ELFPMD" --json "$f" >"$w/real.json" 2>&1
		st_real=$?
		check "$cname: elfpmd exits 0 (-n $st_n, -n --json $st_nj, in place $st_real)" \
			test "$st_n$st_nj$st_real" = 000
		if [ "$changes" = no ]; then
			check "$cname: nothing else to do, so the file is left alone" \
				test "$sig" = "$(file_signature "$f")"
		elif [ "$changes" = hole ]; then
			if "$PHDR_DUMP" --bytemap "$f.orig" "$f" >"$w/bm.out" 2>&1 && grep -q ' 1 hole,' "$w/bm.out"; then
				pass "$cname: the text padded with one hole: $(head -1 "$w/bm.out")"
			else
				fail "$cname: expected a rewrite with one hole: $(head -3 "$w/bm.out")"
			fi
		elif "$PHDR_DUMP" --bytemap "$f.orig" "$f" >"$w/bm.out" 2>&1 && grep -q ' 0 holes' "$w/bm.out"; then
			pass "$cname: another segment aligned without a hole: $(head -1 "$w/bm.out")"
		else
			fail "$cname: expected a rewrite without holes: $(head -3 "$w/bm.out")"
		fi
		for j in n.json real.json; do
			a=$(json_segment "$w/$j" "$ct_index" action 2>&1)
			why=$(json_segment "$w/$j" "$ct_index" padding_refused 2>&1)
			cnt=$(json_key "$w/$j" padding_refused 2>&1)
			if [ "$a" = "padding refused" ] && [ "$cnt" = 1 ] && [[ $why == *"$culprit"* ]]; then
				pass "$cname: $j: PT_LOAD $ct_index '$a': $why"
			else
				fail "$cname: $j: PT_LOAD $ct_index action '$a', padding_refused '$why', count '$cnt' (expected a reason with '$culprit')"
			fi
		done
		if grep -q 'padding refused' "$w/n.txt" && grep -qF "$culprit" "$w/n.txt"; then
			pass "$cname: -n says: $(grep -m1 'padding refused' "$w/n.txt" | sed 's/^ *//')"
		else
			fail "$cname: -n does not report the refusal"
			sed 's/^/      /' "$w/n.txt" | head -20
		fi
	done
	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
fi

# ---------------------------------------------------------------------------
# BOLT's layout, made without BOLT (tests/fixtures/boltlayout.c after an lld
# link): the program header table, described by PT_PHDR, at the start of a
# later R-X PT_LOAD whose offset and address are the same multiple of 2 MiB
# (p_align 2 MiB), after a text PT_LOAD that lld left incongruent; rustc's
# librustc_driver-*.so is shipped like that.  The text's hole moves
# everything after it, the table included, and the later segment needs a
# hole of its own to stay congruent.  Both holes are first made by hand
# (craft_holes), to try the checker and ld.so on that layout without elfpmd.
#   - libbolt.so and libbolt-nophdr.so (shared objects; usebolt and
#     usebolt-nophdr load them): the kernel computes AT_PHDR only for the
#     program it runs; ld.so finds a library's table at PT_PHDR's p_vaddr,
#     or without PT_PHDR through the PT_LOAD that holds e_phoff, and both
#     move with that PT_LOAD.  So the text must be padded and aligned, with
#     no refusal ("refusal gone" below); every R-X PT_LOAD of the output
#     congruent modulo 2 MiB with p_align 2 MiB; the table still where
#     PT_PHDR says; phdr-dump --bytemap passing (with the dynamic loader's
#     rule, not the kernel's, for such objects), eu-elflint --gnu-ld saying
#     no more than of the input; the program
#     prints what it printed (boltmain.c checks the table, the stub and the
#     pattern in the later segment and unwinding through the library); a
#     second run changes nothing; --madvise still gives a working library.
#   - bolt-pie (a program): the kernel computes AT_PHDR for it, before 5.18
#     as first PT_LOAD p_vaddr - p_offset + e_phoff, which any hole before
#     the table breaks.  The text's padding must still be refused for that,
#     no hole inserted, and the program must run as before.
# elfpmd as this test was written refuses the shared objects' padding as
# well, for the kernel's reason: the checks that say "refusal gone", the
# JSON report's, --bytemap's (a hole), the congruence and the PMD chunks
# fail until the planner tells shared objects from programs.

# table_rule FILE: where the dynamic loader finds FILE's program header
# table: "PT_LOAD N holds the table at ADDRESS" and whether PT_PHDR says the
# same; fails (printing why) when no PT_LOAD holds the whole table in its
# file contents, or when PT_PHDR does not describe it (offset e_phoff,
# address where that PT_LOAD maps it, size of the table).
table_rule () {
	"$PHDR_DUMP" "$1" | awk "$AWK_HEX"'
		$1 == "ehdr" {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			phoff = hex(f["phoff"]); size = f["phnum"] * (f["class"] == 64 ? 56 : 32); next }
		$2 == "PHDR" && !have_phdr { have_phdr = 1; p_off = hex($4); p_va = hex($5); p_sz = hex($6) }
		$2 == "LOAD" && !found && hex($4) <= phoff && phoff + size <= hex($4) + hex($6) {
			found = 1; idx = $1; at = hex($5) + phoff - hex($4) }
		END {
			if (!found) { printf "no PT_LOAD holds the table (e_phoff 0x%x, 0x%x bytes)\n", phoff, size; exit 1 }
			if (have_phdr && (p_va != at || p_off != phoff || p_sz != size)) {
				printf "PT_PHDR (offset 0x%x, address 0x%x, size 0x%x) does not describe the table (e_phoff 0x%x, mapped at 0x%x by PT_LOAD %s, 0x%x bytes)\n", p_off, p_va, p_sz, phoff, at, idx, size
				exit 1 }
			printf "PT_LOAD %s holds the table at 0x%x%s\n", idx, at, have_phdr ? ", as PT_PHDR says" : " (no PT_PHDR)" }'
}

# rx_congruent FILE: every R-X PT_LOAD of FILE congruent modulo PMD with
# p_align PMD or more; prints the ones that are not and fails then.
rx_congruent () {
	"$PHDR_DUMP" "$1" | awk -v pmd="$PMD" "$AWK_HEX"'
		$2 == "LOAD" && $3 ~ /X/ && $3 !~ /W/ && ((hex($5) - hex($4)) % pmd != 0 || hex($8) < pmd) {
			printf "PT_LOAD %s: offset %s address %s align %s\n", $1, $4, $5, $8; bad = 1 }
		END { exit bad }'
}

# bolt_report JSON KIND TEXT: what the report JSON says of the segments:
# for KIND dso, no segment refused or left needing padding, TEXT "padded and
# aligned", every segment the relaxed rule found eligible or incongruent
# aligned (new_align PMD); for KIND exe, TEXT refused for AT_PHDR.  Prints
# the actions; fails with the discrepancies.
bolt_report () {
	python3 - "$@" "$PMD" <<'EOF'
import json, sys
path, kind, text, pmd = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r = json.loads(open(path).read())
segs = {s["index"]: s for s in r.get("segments", [])}
errors = []
if text not in segs:
    sys.exit("no segment %d in the report" % text)
t = segs[text]
if kind == "dso":
    for i, s in sorted(segs.items()):
        if s.get("action") in ("padding refused", "needs padding"):
            errors.append("PT_LOAD %d: %s (%s)" % (i, s.get("action"), s.get("padding_refused", s.get("reason"))))
        elif s.get("relaxed_reason") in ("eligible", "not_congruent") and s.get("new_align") != pmd:
            errors.append("PT_LOAD %d (%s): new_align %r" % (i, s.get("relaxed_reason"), s.get("new_align")))
    if t.get("action") != "padded and aligned":
        errors.append("text PT_LOAD %d: action %r, expected 'padded and aligned'" % (text, t.get("action")))
    if r.get("padding_refused") not in (0, None):
        errors.append("padding_refused %r" % r.get("padding_refused"))
else:
    why = t.get("padding_refused") or ""
    if t.get("action") != "padding refused" or "AT_PHDR" not in why:
        errors.append("text PT_LOAD %d: action %r, padding_refused %r; expected a refusal for AT_PHDR"
                      % (text, t.get("action"), why))
if errors:
    sys.exit("; ".join(errors))
print(", ".join("%d %s%s" % (i, s.get("action"), " +0x%x" % s["padding"] if s.get("padding") else "")
                for i, s in sorted(segs.items())))
EOF
}

# craft_holes IN OUT ALIGN_INDEX AT PAD [AT PAD...]: write OUT, IN (ELF64
# LSB) with PAD zero bytes inserted before input offset AT (each a PT_LOAD
# start), every offset in the headers mapped, and p_align of program header
# ALIGN_INDEX raised to PMD: by hand what elfpmd is to do, so that the
# checker and the dynamic loader can be tried on that layout independently
# of elfpmd.
craft_holes () {
	python3 - "$@" "$PMD" <<'EOF'
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
EOF
}

# big_lines OUT: the lines of a fixture run that do not depend on the
# program header table (which --madvise changes).
big_lines () { grep -E '^(big text|stub in|segment bytes|unwinding|exit status)' "$1"; }

BOLT_FIXTURES='
bolt-lib         libbolt.so         usebolt         dso
bolt-lib-nophdr  libbolt-nophdr.so  usebolt-nophdr  dso
bolt-pie         bolt-pie           bolt-pie        exe
'
want_part bolt || BOLT_FIXTURES=
[ -z "$BOLT_FIXTURES" ] || echo "# BOLT layout"
# bolt_coverage FILE: with the stub in FILE (the rewritten library), the
# whole 2 MiB chunks of its text are PMD-mapped when the program runs, where
# this kernel and file system can map file text with PMD pages at all
# (Linux 6.16 and later on ext4, 5.18 on xfs, THP not "never", root to see
# the mapping's smaps through the program's copy).  Reads w, name, prog.
bolt_coverage () {
	local lib=$1 fs ideal kb want
	fs=$(df -PT "$(dirname "$lib")" | awk 'NR == 2 { print $2 }')
	if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null \
		|| ! { [ "$fs" = ext4 ] && kernel_at_least 6 16 || [ "$fs" = xfs ] && kernel_at_least 5 18; }; then
		skip "$name: text PMD-mapped with --madvise: needs THP and large folios for $fs on $(uname -r)"
		return
	fi
	ideal=$(ideal_chunks "$lib")
	want=$((ideal * 2048))
	FIXTURE_SMAPS=$w/madvise.smaps run_fixture "$w/madvise" "$w/madvise-cov.out"
	kb=$(pmd_kb "$w/madvise.smaps" "$lib" 2>/dev/null)
	if [ "$ideal" -gt 0 ] && [ "${kb:-0}" -ge "$want" ]; then
		pass "$name: with --madvise all $ideal whole chunks of text are PMD-mapped ($kb kB)"
	else
		fail "$name: with --madvise ${kb:-0} kB of the text PMD-mapped, $want kB ideal ($ideal chunks)"
	fi
}

# kernel_at_least MAJOR MINOR: the running kernel is that or later.
kernel_at_least () {
	local r
	r=$(uname -r)
	[ "${r%%.*}" -gt "$1" ] || { [ "${r%%.*}" -eq "$1" ] && r=${r#*.} && [ "${r%%[!0-9]*}" -ge "$2" ]; }
}

while read -r name file prog kind <&3; do
	[ -n "$name" ] || continue
	echo "# bolt fixture $name"
	build_or_skip "$name" "$name" || continue
	if ! $have_python; then
		skip "$name: python3 is needed to read the reports"
		continue
	fi
	w=$WORK/$name
	mkdir -p "$w"/{orig,new,second,madvise}
	cp -p "$O/$file" "$w/orig/$file"
	fails_before=$n_fail
	orig=$w/orig/$file
	new=$w/new/$file
	check_original
	$have_elflint && lint_before=$(elflint_count "$orig")
	read -r t_index _ <<<"$(text_load "$orig")"
	if rule_in=$(table_rule "$orig"); then
		note "$name: $rule_in"
	else
		fail "$name: the fixture is not what boltlayout should make: $rule_in"
		continue
	fi

	# The layout the text's padding gives, made by hand (craft_holes): a
	# hole before the text and one before the table's segment.  The checker
	# must accept it for a shared object and refuse it for a program
	# (AT_PHDR before 5.18); ld.so must load the library from it.
	read -r _ t_off t_vaddr _ <<<"$(text_load "$orig")"
	read -r tab_index _ <<<"${rule_in#PT_LOAD }"
	tab_off=$("$PHDR_DUMP" "$orig" | awk -v i="$tab_index" "$AWK_HEX"' $1 == i { printf "%.0f\n", hex($4) }')
	pad=$(( (t_vaddr - t_off) % PMD ))
	pad2=$(( (PMD - pad) % PMD ))
	mkdir -p "$w/crafted"
	if craft_holes "$orig" "$w/crafted/$file" "$t_index" "$t_off" "$pad" "$tab_off" "$pad2"; then
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
	else
		fail "$name: cannot make the holes by hand"
	fi

	sig=$(file_signature "$orig")
	"$ELFPMD" -n --json "$orig" >"$w/dry.json" 2>"$w/dry.err"
	status=$?
	"$ELFPMD" -n "$orig" >"$w/dry.txt" 2>&1
	check "$name: -n --json exits 0 ($status) and leaves the file alone" \
		test "$status" -eq 0 -a "$sig" = "$(file_signature "$orig")"
	cp -p "$orig" "$new"
	if ! "$ELFPMD" --json "$new" >"$w/real.json" 2>"$w/real.err"; then
		fail "$name: elfpmd --json exited non-zero: $(head -3 "$w/real.err")"
		continue
	fi
	pass "$name: elfpmd rewrites it in place (exit 0)"

	if [ "$kind" = exe ]; then
		for j in dry.json real.json; do
			if msg=$(bolt_report "$w/$j" exe "$t_index" 2>&1); then
				pass "$name: $j: the text's padding is still refused for AT_PHDR (a program): $msg"
			else
				fail "$name: $j: $msg"
			fi
		done
		check "$name: -n says why: $(grep -m1 'padding refused' "$w/dry.txt" | sed 's/^ *//')" \
			grep -q 'padding refused.*AT_PHDR' "$w/dry.txt"
		if cmp -s "$orig" "$new"; then
			pass "$name: nothing else to do, the file is left as it was"
		elif "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1 \
			&& grep -q ' 0 holes' "$w/bytemap.out"; then
			pass "$name: aligned without a hole: $(head -1 "$w/bytemap.out")"
		else
			fail "$name: expected no hole: $(head -3 "$w/bytemap.out")"
		fi
		if msg=$(loader_rules "$new"); then
			pass "$name: AT_PHDR (kernel < 5.18) and p_align congruence (glibc < 2.35) rules hold"
		else
			fail "$name: loader rules broken: $msg"
		fi
		same_run "$w/new" "rewritten file"
		if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
		continue
	fi

	# A shared object: the refusal must be gone.
	for j in dry.json real.json; do
		if msg=$(bolt_report "$w/$j" dso "$t_index" 2>&1); then
			pass "$name: $j: refusal gone, every eligible segment aligned: $msg"
		else
			fail "$name: $j: refusal gone: $msg"
		fi
	done
	if grep -q 'padding refused' "$w/dry.txt"; then
		fail "$name: refusal gone: -n still says: $(grep -m1 'padding refused' "$w/dry.txt" | sed 's/^ *//')"
	else
		pass "$name: refusal gone: -n refuses nothing"
	fi
	if msg=$(check_report "$w/real.json" yes "$orig" "$new" "$w/dry.json" 2>&1); then
		pass "$name: JSON report agrees with the file and the dry run: $msg"
	else
		fail "$name: JSON report: $msg"
	fi
	if "$PHDR_DUMP" --bytemap "$orig" "$new" >"$w/bytemap.out" 2>&1 \
		&& ! grep -q ' 0 holes' "$w/bytemap.out"; then
		pass "$name: phdr-dump --bytemap: $(head -1 "$w/bytemap.out")"
		sed -n 's/^hole/      hole/p' "$w/bytemap.out"
	else
		fail "$name: phdr-dump --bytemap: not the input with the text's hole"
		head -20 "$w/bytemap.out" | sed 's/^/      /'
	fi
	if msg=$(rx_congruent "$new"); then
		pass "$name: every R-X PT_LOAD congruent modulo 2 MiB with p_align 2 MiB"
	else
		fail "$name: R-X PT_LOADs left incongruent or unaligned: ${msg//$'\n'/; }"
	fi
	if rule_out=$(table_rule "$new"); then
		check "$name: ld.so finds the table as before: $rule_out" test "$rule_out" = "$rule_in"
	else
		fail "$name: $rule_out"
	fi
	before=$(json_key "$w/real.json" pmd_chunks_before 2>&1)
	after=$(json_key "$w/real.json" pmd_chunks_after 2>&1)
	ideal=$(ideal_chunks "$new")
	check "$name: PMD chunks $before -> $after, all $ideal of the output's R-X segments" \
		test "$after" = "$ideal" -a "${after:-0}" -gt "${before:-0}"
	check_elflint "$new"
	same_run "$w/new" "rewritten file"

	cp -p "$new" "$w/second/$file"
	sig=$(file_signature "$w/second/$file")
	if "$ELFPMD" -q "$w/second/$file" >"$w/second.log" 2>&1; then
		check "$name: second run leaves bytes, inode and mtime alone" \
			test "$sig" = "$(file_signature "$w/second/$file")" -a -z "$(cmp "$new" "$w/second/$file" 2>&1)"
	else
		fail "$name: second run exited non-zero: $(head -3 "$w/second.log")"
	fi

	# --madvise (the stub, with the padding): may repurpose PT_PHDR, so only
	# what does not depend on the table is compared.
	cp -p "$orig" "$w/madvise/$file"
	if "$ELFPMD" -q --madvise "$w/madvise/$file" >"$w/madvise.log" 2>&1; then
		pass "$name: --madvise exits 0"
		if $can_run; then
			run_fixture "$w/madvise" "$w/madvise.out"
			if [ -n "$(big_lines "$w/madvise.out")" ] && cmp -s <(big_lines "$w/orig.out") <(big_lines "$w/madvise.out"); then
				pass "$name: with --madvise the program runs as before ($(tail -1 "$w/madvise.out"))"
			else
				fail "$name: with --madvise the program runs differently"
				diff "$w/orig.out" "$w/madvise.out" | head -20 | sed 's/^/      /'
			fi
			bolt_coverage "$w/madvise/$file"
		fi
	else
		fail "$name: --madvise exited non-zero: $(head -3 "$w/madvise.log")"
	fi
	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
done 3<<<"$BOLT_FIXTURES" </dev/null

# ---------------------------------------------------------------------------
# The checker itself: --bytemap must catch each kind of damage, or the passes
# above prove nothing.
if want_part selftest && echo "# phdr-dump --bytemap self-test" \
	&& start_part selftest "bytemap self-test needs" "to damage files"; then
	cp "$base" "$w/in"
	cp "$base" "$w/good"
	"$ELFPMD" -q "$w/good"
	read -r t_index t_off _ t_filesz _ <<<"$(text_load "$w/good")"
	read -r _ in_off _ <<<"$(text_load "$w/in")"
	rw_index=$("$PHDR_DUMP" "$w/good" | awk '$2 == "LOAD" && $3 ~ /W/ { print $1; exit }')
	rw_in=$("$PHDR_DUMP" "$w/in" | awk -v i="$rw_index" '$1 == i { print $4 }')
	phdr_index=$(field "$w/good" PHDR 1)
	phdr_vaddr=$(field "$w/good" PHDR 5)
	dyn_index=$(field "$w/good" DYNAMIC 1)
	dyn_in=$(field "$w/in" DYNAMIC 4)
	read -r sec_index _ <<<"$(section_before "$w/good" "$t_off")"
	if "$PHDR_DUMP" --bytemap "$w/in" "$w/good" >/dev/null 2>"$w/err"; then
		pass "bytemap accepts elfpmd's output of lld-pie"
	else
		fail "bytemap rejects elfpmd's output of lld-pie: $(head -1 "$w/err")"
	fi
	# damage NAME PATTERN POKE-ARGS...: a copy of the good output with
	# POKE-ARGS applied must fail with a message matching PATTERN.
	damage () {
		local what=$1 pattern=$2
		shift 2
		cp "$w/good" "$w/bad"
		poke "$w/bad" "$@"
		if "$PHDR_DUMP" --bytemap "$w/in" "$w/bad" >/dev/null 2>"$w/err"; then
			fail "bytemap misses $what"
		elif grep -Eq "$pattern" "$w/err"; then
			pass "bytemap catches $what: $(grep -Em1 "$pattern" "$w/err" | sed 's/^phdr-dump: bytemap: //')"
		else
			fail "bytemap fails on $what, but not for that reason: $(head -1 "$w/err")"
		fi
		check_output_rejects "$what"
	}
	# check_output_rejects WHAT: elfpmd's own read-back checker (which
	# shares no code with phdr-dump, nor with elfpmd's planner) refuses
	# $w/bad as the rewrite of $w/in too.
	co_opts=
	check_output_rejects () {
		[ -x "${CHECK_OUTPUT:-}" ] || return 0
		# shellcheck disable=SC2086  # co_opts is empty or one word
		if "$CHECK_OUTPUT" $co_opts "$w/in" "$w/good" 2>"$w/co.err" \
			&& ! "$CHECK_OUTPUT" $co_opts "$w/in" "$w/bad" 2>"$w/co.err"; then
			pass "elfpmd's checker catches $1: $(sed 's/^check-output: [^:]*: //' "$w/co.err")"
		else
			fail "elfpmd's checker misses $1 (or refuses the good output): $(head -1 "$w/co.err")"
		fi
	}
	damage "a changed text byte" "differs from output byte" \
		byte $((t_off + t_filesz / 2)) 0x90
	damage "a non-zero byte in the hole" "hole .* not all zeros" byte $((in_off + 1)) 1
	[ -n "$rw_index" ] && damage "a raised p_align without congruence (glibc < 2.35)" "glibc < 2.35 rule" \
		phdr "$rw_index" align "$PMD"
	[ -n "$phdr_index" ] && damage "PT_PHDR not where AT_PHDR points (kernel < 5.18)" "AT_PHDR rule" \
		phdr "$phdr_index" vaddr $((phdr_vaddr + 8))
	[ -n "$dyn_index" ] && damage "a segment left at its old offset" "program header $dyn_index .*offset" \
		phdr "$dyn_index" offset "$dyn_in"
	[ -n "$sec_index" ] && damage "a wrong sh_offset" "section header $sec_index: offset" \
		shdr "$sec_index" offset 0x10
	[ -n "$rw_index" ] && damage "a PT_LOAD moved less than one before it" "not monotone" \
		phdr "$rw_index" offset "$rw_in"
	head -c -1 "$w/good" >"$w/short"
	if "$PHDR_DUMP" --bytemap "$w/in" "$w/short" >/dev/null 2>"$w/err"; then
		fail "bytemap misses a truncated output"
	else
		pass "bytemap catches a truncated output: $(head -1 "$w/err")"
	fi
	cp "$w/short" "$w/bad"
	check_output_rejects "a truncated output"

	# The same for outputs of --madvise: lld-pie (the table grown in place,
	# PT_INTERP and PT_NOTE moved into the stub's segment with a .symtab
	# symbol following them, hooked through e_entry), libbiglld.so (its
	# PT_PHDR taken over), lld-twoseg (the table moved) and GNU ld's
	# libbig.so (a PT_NOTE and .gnu.hash moved, DT_GNU_HASH following,
	# hooked through DT_INIT).  The stub's code is not in the input, so a changed byte of it
	# need not be caught; everything the injection derives from the input
	# must be.
	# madvise_good FILE: the good pair $w/in, $w/good for FILE and its
	# stub_spots in spots; fail or skip (and return 1) when there is none.
	madvise_good () {
		local label
		label=$(basename "$1")
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
		co_opts=--madvise
		spots=$(stub_spots "$w/good")
	}
	spot () { awk -v k="$1" '$1 == k { print $2; exit }' <<<"$spots"; }
	entry_of () { "$PHDR_DUMP" "$1" | sed -n '1s/.* entry=\(0x[0-9a-f]*\).*/\1/p'; }
	if madvise_good "$base"; then
		if [ -n "$(spot target)" ]; then
			damage "a wrong params.target of the stub" "stub's target" add "$(spot target)" 8 16
		else
			fail "bytemap self-test: no stub parameters found in lld-pie's --madvise output"
		fi
		damage "a wrong e_entry" "from e_entry" add 24 8 16
		damage "e_entry not hooked" "not hooked" \
			add 24 8 $(( $(entry_of "$w/in") - $(entry_of "$w/good") ))
		if [ -n "$(spot moved)" ]; then
			damage "a changed byte of a moved object" "moved bytes differ" \
				byte $(( $(spot moved) + 1 )) 0x21
		else
			skip "bytemap self-test: nothing moved into lld-pie's stub segment"
		fi
		if [ -n "$(spot symbol)" ]; then
			damage "a moved symbol with a wrong value" "st_value" add "$(spot symbol)" 8 4
		else
			skip "bytemap self-test: no .symtab symbol followed lld-pie's moved objects"
		fi
		# The stub's symbols appended to .symtab (global, hidden): one
		# made local, one name that is not the stub's.
		if [ -n "$(spot stubsym)" ]; then
			damage "a stub's symbol in .symtab made local" "not a global hidden" \
				byte "$(spot stubsym)" 0x02
			damage "a stub's symbol name in .strtab changed" "not an \"elfpmd\.\" name" \
				byte "$(spot stubname)" 0x45
		else
			fail "bytemap self-test: no stub's symbol in lld-pie's .symtab"
		fi
	fi
	# The other two places of the stub's program header: a shared object's
	# PT_PHDR taken over (lld's libbiglld.so) and the table moved into the
	# stub's segment (lld-twoseg, whose first PT_LOAD has no room to grow).
	if [ -f "$O/libbiglld.so" ] && madvise_good "$O/libbiglld.so"; then
		if [ -n "$(spot init)" ]; then
			damage "a wrong DT_INIT (PT_PHDR taken over)" "from DT_INIT" add "$(spot init)" 8 16
		else
			fail "bytemap self-test: libbiglld.so's --madvise output has no DT_INIT"
		fi
	fi
	if [ -f "$O/lld-twoseg" ] && madvise_good "$O/lld-twoseg"; then
		if grep -q '; stub: table moved' "$w/ok"; then
			phdr_index=$(field "$w/good" PHDR 1)
			damage "PT_PHDR not describing the moved table" "PHDR" \
				phdr "$phdr_index" vaddr $(( $(field "$w/good" PHDR 5) + 8 ))
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
	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
fi

finish
