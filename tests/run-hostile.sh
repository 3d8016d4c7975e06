#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-hostile.sh: numbers in a file that are valid ELF but made to break the
# planner's arithmetic or its assumptions, one crafted case per defect found
# by review and fuzzing.  Every number read from a file is untrusted: a
# hostile value must become a refusal with a reason (exit 1, the file
# untouched, one line on stderr) or a plan that leaves the hostile part alone
# (a report saying why), never an "internal error", never a plan larger than
# one PMD per hole plus the stub, never a hang.  For each case, with its
# options (--madvise where the stub is what the case is about), a dry run
# (`-n --json`) and an in-place rewrite of a copy:
#   - exit status 0 or 1 within 5 s, reported when slower than 1 s;
#   - no "internal error", no sanitizer report;
#   - on 1: one stderr line naming the file, the file byte for byte as it was;
#   - on 0: the output at most 2 MiB per PT_LOAD plus 1 MiB larger than the
#     input; a second dry run of the output does not want to change it;
#   - what the case expects in the JSON report (a refusal's reason, a size).
#
# Run by 'make check' (see tests/lib.sh for the environment).  The cases are
# built from the lld-pie (clang + lld), mad-pie and mad-lib fixtures into
# $TESTS_BUILDDIR/hostile-build.
set -u
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
have python3 || skip_all "python3 is needed to read the JSON reports"

O=$TESTS_BUILDDIR/hostile-build
WORK=$O/work
rm -rf "$WORK"
mkdir -p "$WORK"

# json_get FILE EXPR: a Python expression over the report R of FILE.
json_get () {
	python3 -c 'import json, sys; R = json.loads(open(sys.argv[1]).read()); print(eval(sys.argv[2]))' "$@"
}

# field FILE TYPE COLUMN [NTH]: column COLUMN of the NTH (default 1) program
# header of TYPE, as phdr-dump prints it.
field () {
	"$PHDR_DUMP" "$1" | awk -v t="$2" -v c="$3" -v n="${4:-1}" '$2 == t && ++k == n { print $c; exit }'
}

# u64 N: N (bash arithmetic is signed) as an unsigned 0x-hex number.
u64 () { printf '0x%x' "$1"; }

# run_timed COMMAND...: run COMMAND, print its exit status and milliseconds.
run_timed () {
	local t0 t1 status
	t0=$(date +%s%N)
	timeout 5 "$@"
	status=$?
	t1=$(date +%s%N)
	elapsed=$(((t1 - t0) / 1000000))
	return $status
}

# check_case NAME FILE EXPECT [OPTION...]: run elfpmd on copies of FILE as
# described at the top; EXPECT is a Python expression over the dry run's
# JSON report R that must be true ("" for none).
check_case () {
	local name=$1 file=$2 expect=$3
	shift 3
	local d=$WORK/$name
	mkdir -p "$d"
	local size nloads bound status
	size=$(stat -c %s "$file")
	nloads=$("$PHDR_DUMP" "$file" | awk '$2 == "LOAD"' | wc -l)
	bound=$((size + nloads * 2097152 + 1048576))
	run_timed "$ELFPMD" -n --json "$@" "$file" >"$d/dry.json" 2>"$d/dry.err"
	status=$?
	check_run "$name: -n --json $*" "$file" "$file" "$status" "$d/dry.err" "$bound" || return
	if [ "$status" -eq 0 ] && [ -n "$expect" ]; then
		if [ "$(json_get "$d/dry.json" "$expect" 2>&1)" = True ]; then
			pass "$name: the report says what it must ($expect)"
		else
			fail "$name: the report does not satisfy: $expect"
			head -c 600 "$d/dry.json" | sed 's/^/      /'
		fi
	fi
	cp "$file" "$d/in"
	cp "$file" "$d/orig"
	run_timed "$ELFPMD" -q "$@" "$d/in" 2>"$d/run.err"
	status=$?
	check_run "$name: in place $*" "$d/orig" "$d/in" "$status" "$d/run.err" "$bound" || return
	if [ "$status" -eq 0 ]; then
		run_timed "$ELFPMD" -n --json "$@" "$d/in" >"$d/again.json" 2>"$d/again.err"
		local again
		again=$(json_get "$d/again.json" 'R["status"]' 2>/dev/null)
		if [ "$again" = "would change" ]; then
			fail "$name: a second run would change the output again"
		else
			pass "$name: a second run leaves the output alone (${again:-error: $(head -1 "$d/again.err")})"
		fi
	fi
}

# check_run WHAT ORIG FILE STATUS ERRFILE BOUND: the common assertions.
check_run () {
	local what=$1 orig=$2 file=$3 status=$4 err=$5 bound=$6
	if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
		fail "$what: exit status $status$([ "$status" -eq 124 ] && echo ' (timed out)'): $(head -2 "$err")"
		return 1
	fi
	if grep -qE 'internal error|Sanitizer|runtime error' "$err"; then
		fail "$what: $(head -1 "$err")"
		return 1
	fi
	[ "$elapsed" -gt 1000 ] && note "$what took $elapsed ms (more than 1 s)"
	if [ "$elapsed" -gt 1000 ]; then
		fail "$what: took $elapsed ms"
		return 1
	fi
	if [ "$status" -eq 1 ]; then
		if [ "$(wc -l <"$err")" -ne 1 ] || ! grep -q "^elfpmd: .*$(basename "$file"): " "$err"; then
			fail "$what: exit 1 without one line naming the file: $(head -2 "$err")"
			return 1
		fi
		if ! cmp -s "$orig" "$file"; then
			fail "$what: exit 1, but the file changed"
			return 1
		fi
		pass "$what: refused in $elapsed ms, file untouched: $(sed 's/^elfpmd: [^:]*: //' "$err")"
		return 0
	fi
	local out_size
	out_size=$(stat -c %s "$file")
	if [ "$out_size" -gt "$bound" ]; then
		fail "$what: the output has $out_size bytes, more than $bound"
		return 1
	fi
	pass "$what: exit 0 in $elapsed ms, $out_size bytes"
}

# ---------------------------------------------------------------------------
if build_or_skip "lld-pie" lld-pie; then
	lld=$O/lld-pie
	rw_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD" && $3 ~ /W/ { i = $1 } END { print i }')
	rw_off=$(field "$lld" LOAD 4 "$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD"' | wc -l)")
	for bits in 33 40 62; do
		# A later PT_LOAD whose own alignment is huge and honoured by its
		# address: keeping it would need a hole of 2^BITS bytes.
		f=$WORK/align$bits
		cp "$lld" "$f"
		a=$((1 << bits))
		poke "$f" phdr "$rw_index" align "$a" phdr "$rw_index" vaddr $((rw_off + a))
		check_case "p_align 2^$bits on a later PT_LOAD" "$f" \
			'R["padding_refused"] >= 1 and "more than a PMD" in str(R["segments"])'
	done
	# A p_align that is not a power of two, honoured as glibc < 2.35 tests it
	# ((p_vaddr - p_offset) & (p_align - 1) == 0): the output must honour it too.
	f=$WORK/npot
	cp "$lld" "$f"
	rw_vaddr=$(field "$lld" LOAD 5 "$("$PHDR_DUMP" "$lld" | awk '$2 == "LOAD"' | wc -l)")
	for a in 0x3000 0x5000 0x9000 0x11000; do
		[ $(((rw_vaddr - rw_off) & (a - 1))) -eq 0 ] && break
	done
	poke "$f" phdr "$rw_index" align "$a"
	check_case "p_align $a (not a power of two)" "$f" 'R["padded_segments"] == 1'
	if [ -f "$WORK/npot/in" ] && "$PHDR_DUMP" "$WORK/npot/in" >"$WORK/npot/dump" 2>&1; then
		read -r off vaddr align <<<"$(awk -v i="$rw_index" '$1 == i { print $4, $5, $8 }' "$WORK/npot/dump")"
		if [ $(((vaddr - off) & (align - 1))) -eq 0 ]; then
			pass "p_align $a: the output passes glibc < 2.35's test"
		else
			fail "p_align $a: the output fails glibc < 2.35's test (offset $off, address $vaddr)"
		fi
	fi
	# A PT_PHDR that does not describe the table (larger than it): an
	# ordinary header, which stays as it is.
	phdr_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "PHDR" { print $1; exit }')
	if [ -n "$phdr_index" ]; then
		f=$WORK/phdrsize
		cp "$lld" "$f"
		poke "$f" phdr "$phdr_index" filesz 0x400 phdr "$phdr_index" memsz 0x400
		check_case "PT_PHDR larger than the table" "$f" 'R["padded_segments"] == 1'
		check_case "PT_PHDR larger than the table, --madvise" "$f" \
			'not R["stub"]["injected"] and "PT_PHDR" in R["stub"]["reason"]' --madvise --move-table --pmd-size=64K
	fi
	# PT_INTERP larger in memory than in the file: its memory cannot move
	# into the stub's segment with its bytes, so the table does not grow
	# over it.
	interp_index=$("$PHDR_DUMP" "$lld" | awk '$2 == "INTERP" { print $1; exit }')
	if [ -n "$interp_index" ]; then
		f=$WORK/interpmem
		cp "$lld" "$f"
		poke "$f" phdr "$interp_index" memsz 0x10000
		check_case "PT_INTERP with p_memsz > p_filesz, --madvise" "$f" \
			'R["stub"]["injected"] and not R["stub"]["table_grown"]' --madvise --move-table --pmd-size=64K
	fi
	# A section without contents whose offset lies past the end, or near 2^64.
	nobits=$(readelf -SW "$lld" | awk '$3 == "NOBITS" || $4 == "NOBITS" { gsub(/[][]/, "", $1); print $1 + 0; exit }')
	if [ -n "$nobits" ]; then
		f=$WORK/nobits
		cp "$lld" "$f"
		poke "$f" shdr "$nobits" offset 0xffffffffffffff00
		check_case "NOBITS section at offset 2^64 - 256" "$f" 'R["padded_segments"] == 1'
		f=$WORK/null
		cp "$lld" "$f"
		poke "$f" shdr "$nobits" type 0 shdr "$nobits" offset 0x10000000000
		check_case "SHT_NULL section at offset 2^40" "$f" 'R["padded_segments"] == 1'
	fi
fi

if build_or_skip "mad-pie" mad-pie; then
	pie=$O/mad-pie
	n=$("$PHDR_DUMP" "$pie" | awk '$2 == "LOAD"' | wc -l)
	last=$("$PHDR_DUMP" "$pie" | awk '$2 == "LOAD" { i = $1 } END { print i }')
	last_off=$(field "$pie" LOAD 4 "$n")
	last_filesz=$(field "$pie" LOAD 6 "$n")
	# The last segment ends within a page of 2^64: no room for the stub's.
	f=$WORK/top
	cp "$pie" "$f"
	poke "$f" phdr "$last" vaddr "$(u64 $((0xfffffffffffff000 - 0x10000 + (last_off & 0xfff))))" \
		phdr "$last" memsz $((0x10000 - 0x10 - (last_off & 0xfff)))
	check_case "a PT_LOAD ending 16 bytes below 2^64" "$f" \
		'not R["stub"]["injected"] and "address space" in R["stub"]["reason"]' --madvise
	# A PT_LOAD at an address above 2^63 (signed overflow in the stub's
	# relative addresses), with a small PMD so that the stub has work.
	f=$WORK/high
	cp "$pie" "$f"
	poke "$f" phdr "$last" vaddr "$(u64 $((0x8000000000000000 + last_off)))"
	check_case "a PT_LOAD above 2^63, --pmd-size=64K" "$f" '' --madvise --pmd-size=64K
	# A 1 GiB .bss: the stub's segment goes after the contents, not after
	# the gigabyte of address space.
	f=$WORK/bss
	cp "$pie" "$f"
	poke "$f" phdr "$last" memsz $((last_filesz + (1 << 30)))
	check_case "a 1 GiB .bss" "$f" \
		'R["stub"]["injected"] and R["size_after"] < R["size_before"] + (1 << 20)' --madvise
	# A page size the machine does not have, also with --pmd-size: refused
	# (the stub's own refusal of segments that are not congruent modulo
	# the page size is tested in check_layout).
	check_case "--page-size=16K on x86-64" "$pie" '' --madvise --pmd-size=2M --page-size=16K
fi

if build_or_skip "mad-lib" mad-lib; then
	lib=$O/libmadbig.so
	dyn=$("$PHDR_DUMP" "$lib" | awk '$2 == "DYNAMIC" { print $1; exit }')
	# PT_DYNAMIC over the ELF header: its zero words are no spare DT_NULL.
	f=$WORK/dynhdr
	cp "$lib" "$f"
	poke "$f" phdr "$dyn" offset 0 phdr "$dyn" filesz 0x40 phdr "$dyn" memsz 0x40 phdr "$dyn" vaddr 0
	check_case "PT_DYNAMIC over the ELF header" "$f" \
		'"stub" not in R or not R["stub"]["injected"]' --madvise
	# Without DT_INIT, the stub takes the first DT_NULL only when the entry
	# right after it is DT_NULL too: a later one would turn what lies
	# between into entries.
	f=$WORK/nullgap
	cp "$lib" "$f"
	poke "$f" dyn DT_INIT val 0 dyn DT_INIT tag 21 dyn DT_NULL+1 val 0 dyn DT_NULL+1 tag 21
	check_case "no DT_INIT, DT_NULL then another entry" "$f" \
		'not R["stub"]["injected"] and "spare" in R["stub"]["reason"]' --madvise
	f=$WORK/nullpair
	cp "$lib" "$f"
	poke "$f" dyn DT_INIT val 0 dyn DT_INIT tag 21
	check_case "no DT_INIT, two DT_NULLs" "$f" \
		'R["stub"]["injected"] and "spare" in R["stub"]["hook"]' --madvise
	# DT_INIT pointing where the stub's segment will go: the stub would
	# call itself.
	entry=$("$ELFPMD" -n --json --madvise "$lib" | json_get /dev/stdin 'R["stub"]["entry"]')
	f=$WORK/initself
	cp "$lib" "$f"
	poke "$f" dyn DT_INIT val "$entry"
	check_case "DT_INIT at the stub's future entry" "$f" \
		'not R["stub"]["injected"] and "stub" in R["stub"]["reason"]' --madvise
fi

finish
