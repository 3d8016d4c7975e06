#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross.sh: elfpmd and elfpmd --madvise on programs and libraries of
# other architectures, cross-built with the Debian cross toolchains and run
# under qemu-user.  For each architecture (aarch64, riscv64) and each
# fixture (tests/fixtures/Makefile cross-*: 17 MiB of text from big.S; a
# PIE, a -no-pie program, -static, -static-pie, a shared library with its
# own DT_INIT and a constructor and a PIE using it, an lld PIE where clang
# and lld can cross-link):
#   - the plain and the --madvise rewrite have no more eu-elflint --gnu-ld
#     messages than the original;
#   - tests/phdr-dump (an independent reader) sees the text aligned to the
#     PMD size (address congruent with offset modulo it), every PT_LOAD
#     still congruent modulo the original's largest p_align (up to 64 KiB:
#     an aarch64 file linked for 64 KiB pages must still map on 16 and
#     64 KiB kernels), one more R-X PT_LOAD for the stub and e_entry
#     (programs), DT_INIT (aarch64's library, read by readelf -d) or what
#     ld.so calls first in DT_INIT_ARRAY (riscv64's: the addend of its
#     relocation, readelf -r, or with DT_RELR the entry's bytes) inside it;
#     phdr-dump --bytemap proves the rewrite is the original with the stub
#     injected and nothing else changed, hooked as it should be;
#   - original and both rewrites, run under qemu-user with the same
#     arguments and environment, print exactly the same and exit 42: the
#     output covers a hash of the whole text, calls into it, argc, argv and
#     envp as main, the library's DT_INIT and its constructor see them, an
#     atexit handler and destructors run from ld.so's finaliser (the x0/a0
#     the stub must keep); qemu -strace shows the stub at work (madvise
#     MADV_HUGEPAGE) in the process that loads the library;
#   - a second --madvise changes nothing.
# riscv64: glibc calls no DT_INIT there, so the libraries get the stub as
# the first entry of DT_INIT_ARRAY, chained to the old one: GNU ld's
# library (frame_dummy first, an R_RISCV_RELATIVE relocation in DT_RELA)
# and, where clang and lld can link it (GNU ld 2.40 ignores -z
# pack-relative-relocs on riscv64), a library packed with DT_RELR whose
# first entry is the constructor printing argc, argv and envp (which the
# stub must pass on).  A library without DT_INIT_ARRAY, and one whose first
# entry has a symbolic relocation, get no stub and a report that says why.
# GNU ld's default ET_EXEC layout cannot be aligned (refused, left as it
# was), so the ET_EXEC programs are also linked at 4 MiB to get the stub.
# ppc64 and s390x (no stub): --madvise's refusal names the machine.
# aarch64 only:
#   - 16 KiB pages: a 70 MiB-text PIE rewritten with --page-size=16K gets
#     its text aligned to 32 MiB with two whole chunks; under qemu-user (a
#     4 KiB-page host) it prints the same, and its stub, seeing a kernel
#     whose PMD is not 32 MiB, does nothing (no madvise in qemu -strace);
#   - BTI: first, whether qemu-user enforces BTI at all (crossbti.S: an
#     indirect call to a function without a landing pad must fault in a
#     BTI-marked static program, with one must not); then BTI-marked
#     fixtures (-mbranch-protection=standard, -z force-bti: a PIE and a
#     library with its PIE) keep their GNU property note through the
#     rewrite (readelf -n) and run the same under qemu -cpu max; with the
#     stub's landing pad (bti jc at the entry point) overwritten by a NOP
#     the rewritten program must fault, which shows the stub's segment is
#     guarded and the landing pad is what lets ld.so in.
#
# Needs the cross compilers ($ARCH-linux-gnu-gcc, with libc6-dev-ARCH-cross)
# and qemu-$ARCH; an architecture without them is skipped with the reason,
# the whole test (77) when none can run.  Fixtures are built into
# $TESTS_BUILDDIR/cross-build (the work files of a failed fixture are kept
# there).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_slow "cross builds run under qemu-user"

ARGS=(alpha "beta gamma")
WORK=$TESTS_BUILDDIR/cross-build
started=$SECONDS

require_elfpmd
rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"
have readelf || skip_all "readelf (binutils) not found"

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi

# hex N: N (0x-hex or decimal) in decimal.
hex () { printf '%d' "$1"; }

# file_offset FILE ADDR: the file offset (decimal) of address ADDR (decimal)
# in the PT_LOAD of FILE holding it, as phdr-dump shows them; nothing if
# none holds it.
file_offset () {
	"$PHDR_DUMP" "$1" | awk -v e="$2" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && hex($5) <= e && e < hex($5) + hex($6) { printf "%.0f\n", hex($4) + e - hex($5) }'
}

# init_array_first FILE: what ld.so calls first in FILE's DT_INIT_ARRAY
# (decimal, relative to the load base): the addend of the R_RISCV_RELATIVE
# relocation of the first entry as readelf -r lists it, or, when it lists
# none (DT_RELR, whose entries readelf shows without addends), the entry's
# own bytes.  Nothing without DT_INIT_ARRAY.
init_array_first () {
	local slot addend off
	slot=$(readelf -dW "$1" | awk '$2 == "(INIT_ARRAY)" { print $3 }')
	[ -n "$slot" ] || return 0
	addend=$(readelf -rW "$1" | awk -v s="$(printf '%016x' "$(hex "$slot")")" \
		'$1 == s && $3 == "R_RISCV_RELATIVE" { print $4 }')
	if [ -n "$addend" ]; then
		hex "0x$addend"
		return
	fi
	off=$(file_offset "$1" "$(hex "$slot")")
	[ -n "$off" ] && od -An -tu8 -j "$off" -N 8 "$1" | tr -d ' '
}

# run_qemu OUT DIR [QEMU_OPTION...]: run the current fixture ($prog, from
# DIR, or from $O with the library in DIR) under qemu-$arch with ARGS and a
# fixed environment; stdout and "exit status N" into OUT, stderr into
# OUT.err.  Reads arch, prog, file, O, ARGS.
run_qemu () {
	local out=$1 dir=$2 exe status
	shift 2
	local env=(-E FIXTURE_TAG=cross)
	if [ "$prog" = "$file" ]; then exe=$dir/$file; else exe=$O/$prog; env+=(-E "LD_LIBRARY_PATH=$dir"); fi
	{ env -i timeout 60 "qemu-$arch" "$@" -L "/usr/$arch-linux-gnu" "${env[@]}" "$exe" "${ARGS[@]}" \
		>"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# same_as_original OUT WHAT: OUT is what the original printed; PASS or FAIL.
same_as_original () {
	if cmp -s "$w/orig.out" "$1"; then
		pass "$name: $2 prints the same as the original and exits 42"
	else
		fail "$name: $2 prints something else than the original"
		diff "$w/orig.out" "$1" | head -10 | sed 's/^/      /'
		sed 's/^/      stderr: /' "$1.err" | head -5
	fi
}

# check_layout_cross OUT WHAT STUB: phdr-dump's view of OUT: the text (the
# largest executable PT_LOAD) has p_align $pmd, congruent modulo it, with
# at least $min_chunks whole chunks; every PT_LOAD congruent modulo the
# original's largest p_align (up to 64 KiB); with STUB=yes, one executable
# PT_LOAD more than the original, holding $hook: e_entry (programs),
# DT_INIT or DT_INIT_ARRAY[0] (libraries).
check_layout_cross () {
	local out=$1 what=$2 stub=$3 text chunks n_orig n_out entry
	text=$(exec_loads "$out" | sort -k4,4n | tail -1)
	read -r t_align t_off t_vaddr t_filesz <<<"$text"
	chunks=$(( (t_vaddr + t_filesz) / pmd - (t_vaddr + pmd - 1) / pmd ))
	if [ "$t_align" -eq "$pmd" ] && [ $(( (t_vaddr - t_off) % pmd )) -eq 0 ] && [ "$chunks" -ge "$min_chunks" ]; then
		pass "$name: $what: text p_align $t_align, congruent, $chunks whole chunks"
	else
		fail "$name: $what: text is not PMD-aligned as expected (p_align $t_align, offset $t_off, address $t_vaddr, $chunks whole chunks of $pmd, want >= $min_chunks)"
	fi
	local bad
	bad=$("$PHDR_DUMP" "$out" | awk -v a="$keep_align" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && (hex($5) - hex($4)) % a != 0 { print $1 }')
	if [ -z "$bad" ]; then
		pass "$name: $what: every PT_LOAD congruent modulo $keep_align, as in the original"
	else
		fail "$name: $what: PT_LOADs $bad are not congruent modulo $keep_align (the original's largest p_align): a kernel with larger pages cannot map them"
	fi
	[ "$stub" = yes ] || return 0
	n_orig=$(exec_loads "$w/orig/$file" | wc -l)
	n_out=$(exec_loads "$out" | wc -l)
	local seg
	seg=$("$PHDR_DUMP" "$out" | awk '$2 == "LOAD" && $3 ~ /X/ { l = $0 } END { print l }')
	read -r _ _ _ _ s_vaddr s_filesz _ <<<"$seg"
	s_vaddr=$(hex "$s_vaddr"); s_filesz=$(hex "$s_filesz")
	case $hook in
	e_entry) entry=$(hex "$("$PHDR_DUMP" "$out" | sed -n 's/.* entry=\(0x[0-9a-f]*\).*/\1/p')") ;;
	DT_INIT) entry=$(hex "$(readelf -dW "$out" | awk '$2 == "(INIT)" { print $3 }')") ;;
	*) entry=$(init_array_first "$out"); entry=${entry:-0} ;;
	esac
	if [ "$n_out" -eq $((n_orig + 1)) ] && [ "$entry" -ge "$s_vaddr" ] && [ "$entry" -lt $((s_vaddr + s_filesz)) ]; then
		pass "$name: $what: the stub's R-X PT_LOAD at $(printf %#x "$s_vaddr") holds $hook ($(printf %#x "$entry"))"
	else
		fail "$name: $what: no stub PT_LOAD holding $hook (executable PT_LOADs $n_orig -> $n_out, last at $(printf %#x "$s_vaddr") +$(printf %#x "$s_filesz"), $hook $(printf %#x "$entry"))"
	fi
}

# check_bytemap_cross OUT: phdr-dump --bytemap accepts OUT as the original
# with the stub injected, hooked through $hook.
check_bytemap_cross () {
	local msg first
	if ! msg=$("$PHDR_DUMP" --bytemap "$w/orig/$file" "$1" 2>&1); then
		fail "$name: phdr-dump --bytemap: the rewritten file is not the original with the stub injected"
		printf '%s\n' "$msg" | head -5 | sed 's/^/      /'
		return
	fi
	first=$(printf '%s\n' "$msg" | grep -m1 '^bytemap ok')
	case $first in
	*"; stub: "*", hook $hook "*) pass "$name: phdr-dump --bytemap: the original with the stub, hooked through $hook" ;;
	*) fail "$name: phdr-dump --bytemap: not hooked through $hook: $first" ;;
	esac
}

# stub_acts OUT.strace WANT: whether qemu -strace's log shows the stub at
# work (madvise ... MADV_HUGEPAGE: neither ld.so nor the C library makes
# that call); WANT yes or no.
stub_acts () {
	local log=$1 want=$2 got=no
	grep -q 'madvise(.*MADV_HUGEPAGE' "$log" && got=yes
	if [ "$got" = "$want" ]; then
		case $want in
		yes) pass "$name: qemu -strace shows the stub at work (madvise MADV_HUGEPAGE)" ;;
		no) pass "$name: qemu -strace shows the stub doing nothing (mincore page-size probe only, no madvise)" ;;
		esac
	else
		fail "$name: qemu -strace: the stub $( [ "$want" = yes ] && echo "made no madvise MADV_HUGEPAGE" || echo "made madvise calls it should not have")"
		grep -m5 -E 'mincore|madvise' "$log" | sed 's/^/      /'
	fi
}

# refused_fixture CAN_RUN [ELFPMD OPTION...]: a fixture whose text cannot
# be aligned (riscv64's ET_EXEC layout: the first PT_LOAD, at 0x10000,
# holds the ELF header at offset 0, so padding before it is refused): the
# report says so, --madvise injects no stub, whatever is written is the
# original, and it runs the same.
refused_fixture () {
	local can_run=$1 report
	shift
	report=$("$ELFPMD" --madvise "$@" -o "$w/mad/$file" "$w/orig/$file" 2>&1)
	case $report in
	*"padding refused"*"no startup stub"* | *"padding refused"*"no whole PMD chunk"* | *"nothing eligible"*)
		pass "$name: elfpmd --madvise: nothing to align, no stub: $(printf '%s' "$report" | head -1 | sed "s|$w/orig/||")" ;;
	*)
		fail "$name: elfpmd --madvise: expected a refusal (padding refused, no stub): $report" ;;
	esac
	if [ ! -e "$w/mad/$file" ] || cmp -s "$w/orig/$file" "$w/mad/$file"; then
		pass "$name: the file is left as it was"
	else
		fail "$name: a refused rewrite changed the file"
	fi
	if $can_run && [ -e "$w/mad/$file" ]; then
		run_qemu "$w/mad.out" "$w/mad" "${qemu_opts[@]}"
		same_as_original "$w/mad.out" "the refused rewrite"
	fi
}

# one_fixture NAME TARGET FILE PROG HOOK [ELFPMD OPTION...]: build, rewrite,
# check and run one fixture of $arch in $O.
one_fixture () {
	name=$arch/$1
	w=$WORK/$arch-$1
	local target=$2
	file=$3 prog=$4 hook=$5
	shift 5
	local opts=("$@")
	if ! build_fixture "$target" "${make_vars[@]}"; then
		local why="build failed"
		case $target in
		cross-static-pie) [ -f "/usr/$arch-linux-gnu/lib/rcrt1.o" ] || why="the cross C library has no rcrt1.o (no static-pie)" ;;
		cross-relr-lib)
			if ! have "${CLANG:-clang}" || ! have ld.lld; then why="clang or ld.lld not found"
			elif grep -q 'DT_RELR' "$O/$target.log"; then why="this C library or lld has no DT_RELR"
			fi ;;
		cross-lld-pie)
			if ! have "${CLANG:-clang}" || ! have ld.lld; then why="clang or ld.lld not found"
			elif grep -q 'R_RISCV_ALIGN requires unimplemented linker relaxation' "$O/$target.log"; then
				why="this ld.lld cannot link the C library's crt files (R_RISCV_ALIGN: no linker relaxation in it)"
			fi ;;
		esac
		skip "$name: cannot build it here: $why (log: $O/$target.log)"
		grep -m2 -i 'error' "$O/$target.log" | sed 's/^/      /'
		return
	fi
	built_any=true
	rm -rf "$w"
	mkdir -p "$w/orig" "$w/plain" "$w/mad" "$w/again"
	cp "$O/$file" "$w/orig/"
	lint_before=0
	$have_elflint && lint_before=$(elflint_count "$w/orig/$file")
	keep_align=$("$PHDR_DUMP" "$w/orig/$file" | awk '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && hex($8) > a { a = hex($8) } END { if (a > 65536) a = 65536; print a + 0 }')

	run_qemu "$w/orig.out" "$w/orig" "${qemu_opts[@]}"
	local can_run=true
	if [ "$(tail -1 "$w/orig.out")" = "exit status 42" ] && grep -q 'destructor ran' "$w/orig.out"; then
		pass "$name: the original runs under qemu-$arch and exits 42"
	else
		skip "$name: the original does not run under qemu-$arch ($(tail -1 "$w/orig.out")): run checks skipped"
		sed 's/^/      stderr: /' "$w/orig.out.err" | head -3
		can_run=false
	fi

	if [ "$expect" = refused ]; then
		refused_fixture "$can_run" "${opts[@]}"
		return
	fi
	if "$ELFPMD" -q "${opts[@]}" -o "$w/plain/$file" "$w/orig/$file" 2>"$w/plain.err"; then
		check_elflint "$w/plain/$file" "elfpmd"
		check_layout_cross "$w/plain/$file" "elfpmd" no
		if $can_run; then
			run_qemu "$w/plain.out" "$w/plain" "${qemu_opts[@]}"
			same_as_original "$w/plain.out" "elfpmd's rewrite"
		fi
	else
		fail "$name: elfpmd fails: $(head -1 "$w/plain.err")"
	fi

	if [ "$expect" = nostub ]; then
		# A riscv64 library whose DT_INIT_ARRAY[0] the stub cannot take
		# over: aligned, but no stub; the report says why ($nostub_why).
		local report
		report=$("$ELFPMD" --madvise "${opts[@]}" -o "$w/mad/$file" "$w/orig/$file" 2>&1)
		case $report in
		*"no startup stub: "*"$nostub_why"*)
			pass "$name: --madvise: no stub, and the report says why ($nostub_why)" ;;
		*)
			fail "$name: --madvise: expected the stub refused ($nostub_why): $(printf '%s' "$report" | grep -i stub)" ;;
		esac
		if cmp -s "$w/plain/$file" "$w/mad/$file"; then
			pass "$name: --madvise wrote what elfpmd alone writes"
		else
			fail "$name: --madvise without a stub wrote something else than elfpmd alone"
		fi
		return
	fi
	if "$ELFPMD" -q --madvise "${opts[@]}" -o "$w/mad/$file" "$w/orig/$file" 2>"$w/mad.err"; then
		check_elflint "$w/mad/$file" "--madvise"
		check_layout_cross "$w/mad/$file" "--madvise" yes
		check_bytemap_cross "$w/mad/$file"
		if $can_run; then
			run_qemu "$w/mad.out" "$w/mad" "${qemu_opts[@]}" -strace
			# qemu -strace writes to stderr, and so would the program
			mv "$w/mad.out.err" "$w/mad.strace"
			: >"$w/mad.out.err"
			same_as_original "$w/mad.out" "--madvise rewrite"
			stub_acts "$w/mad.strace" "$stub_works"
		fi
		if "$ELFPMD" -q --madvise "${opts[@]}" -o "$w/again/$file" "$w/mad/$file" 2>/dev/null \
			&& cmp -s "$w/mad/$file" "$w/again/$file"; then
			pass "$name: a second --madvise changes nothing"
		else
			fail "$name: a second --madvise changes the file"
		fi
	else
		fail "$name: elfpmd --madvise fails: $(head -1 "$w/mad.err")"
	fi
}

# bti_checks: aarch64's BTI part (see the top).  Reads O, arch.
bti_checks () {
	name=$arch/bti-probe
	if ! build_fixture cross-bti-probe "${make_vars[@]}"; then
		skip "$name: cannot build crossbti (log: $O/cross-bti-probe.log): BTI checks skipped"
		return
	fi
	local ok bad
	env -i "qemu-$arch" -cpu max "$O/crossbti" >/dev/null 2>&1; ok=$?
	{ env -i "qemu-$arch" -cpu max "$O/crossbti" x >/dev/null 2>&1; bad=$?; } 2>/dev/null
	if [ "$ok" -ne 7 ]; then
		skip "$name: the BTI probe does not even run with a landing pad (exit $ok): BTI checks skipped"
		return
	fi
	if [ "$bad" -ne 132 ]; then
		skip "qemu-$arch does not enforce BTI here (a call to a function without a landing pad in a BTI-marked program exits $bad, not 132, SIGILL): BTI checks skipped"
		return
	fi
	pass "$name: qemu-$arch -cpu max enforces BTI (a call without a landing pad: SIGILL; with one: exit 7)"

	local f
	for f in "bti-pie cross-bti-pie cross-bti-pie cross-bti-pie e_entry" \
		"bti-lib cross-bti-lib libcrossbti.so usecrossbti DT_INIT"; do
		# shellcheck disable=SC2086
		set -- $f
		one_fixture "$@"
		[ -f "$w/mad/$file" ] || continue
		local note_orig note_mad
		note_orig=$(readelf -n "$w/orig/$file" 2>/dev/null | grep -c 'AArch64 feature: .*BTI')
		note_mad=$(readelf -n "$w/mad/$file" 2>/dev/null | grep -c 'AArch64 feature: .*BTI')
		if [ "$note_orig" -ge 1 ] && [ "$note_mad" -eq "$note_orig" ]; then
			pass "$name: the GNU property note (AArch64 feature: BTI) survives --madvise"
		else
			fail "$name: BTI marking: original $note_orig, rewritten $note_mad (readelf -n)"
		fi
		# The stub's jump to the old entry point or DT_INIT (br x16) into a
		# guarded page: with the kernel release faked to 5.10 (qemu -r) the
		# stub only advises the text (no chunk is mapped afresh, which under
		# qemu loses the guard: qemu's /proc/self/smaps shows no "bt" flag
		# for the stub to keep), so every page keeps its guard.
		run_qemu "$w/old.out" "$w/mad" -cpu max -r 5.10.0
		same_as_original "$w/old.out" "--madvise rewrite, text still guarded everywhere (qemu -r 5.10.0),"
		# The negative control: the stub's landing pad replaced by a NOP.
		local entry entry_off insn
		if [ "$hook" = e_entry ]; then
			entry=$("$PHDR_DUMP" "$w/mad/$file" | sed -n 's/.* entry=\(0x[0-9a-f]*\).*/\1/p')
		else
			entry=$(readelf -dW "$w/mad/$file" | awk '$2 == "(INIT)" { print $3 }')
		fi
		entry_off=$(file_offset "$w/mad/$file" "$(hex "$entry")")
		if [ -z "$entry_off" ]; then
			fail "$name: cannot find the stub's entry point ($entry) in the file"
			continue
		fi
		mkdir -p "$w/nopad"
		cp "$w/mad/$file" "$w/nopad/$file"
		insn=$(od -An -tx4 -j "$entry_off" -N 4 "$w/nopad/$file" | tr -d ' ')
		if [ "$insn" != d50324df ]; then
			fail "$name: the stub's entry point does not start with bti jc (0xd50324df): 0x$insn"
			continue
		fi
		printf '\x1f\x20\x03\xd5' | dd of="$w/nopad/$file" bs=1 seek="$entry_off" conv=notrunc status=none
		run_qemu "$w/nopad.out" "$w/nopad" -cpu max
		if [ "$(tail -1 "$w/nopad.out")" = "exit status 132" ]; then
			pass "$name: with the stub's bti jc overwritten by a NOP the program faults (SIGILL): the stub's segment is guarded, the landing pad lets ld.so in"
		else
			fail "$name: with the stub's landing pad gone the program still runs ($(tail -1 "$w/nopad.out")): is the stub's segment guarded?"
		fi
	done
}

# Machines with PMD rules but no stub (ppc64, s390x): --madvise names the
# machine in its refusal.  A copy of the tool itself with e_machine
# changed is enough: the refusal comes before anything else.
for m in "21 ppc64" "22 s390x"; do
	read -r num mname <<<"$m"
	cp "$ELFPMD" "$WORK/as-$mname"
	printf "\\x$(printf %02x "$num")\\x00" | dd of="$WORK/as-$mname" bs=1 seek=18 conv=notrunc status=none
	report=$("$ELFPMD" -n --madvise "$WORK/as-$mname" 2>&1)
	case $report in
	*"startup stub: not injected: no startup stub for $mname yet"*)
		pass "$mname: --madvise refuses, naming the machine: $(printf '%s\n' "$report" | grep -o 'no startup stub for.*')" ;;
	*)
		fail "$mname: --madvise's refusal does not name the machine: $(printf '%s\n' "$report" | grep -i 'stub\|error')" ;;
	esac
	rm -f "$WORK/as-$mname"
done

export PHDR_DUMP
built_any=false
arches_run=0
for arch in aarch64 riscv64; do
	if ! have "$arch-linux-gnu-gcc"; then
		skip "$arch: $arch-linux-gnu-gcc not found (Debian: gcc-$arch-linux-gnu): skipped"
		continue
	fi
	if ! have "qemu-$arch"; then
		skip "$arch: qemu-$arch not found (Debian: qemu-user): skipped"
		continue
	fi
	if [ ! -d "/usr/$arch-linux-gnu/lib" ]; then
		skip "$arch: no /usr/$arch-linux-gnu/lib (Debian: libc6-dev-${arch/aarch64/arm64}-cross): skipped"
		continue
	fi
	arches_run=$((arches_run + 1))
	fails_before=$n_fail
	pmd=$((2 << 20))
	min_chunks=2
	O=$WORK/$arch
	make_vars=(CROSS="$arch-linux-gnu-")
	qemu_opts=()
	stub_works=yes
	expect=aligned
	one_fixture pie cross-pie cross-pie cross-pie e_entry
	if [ "$arch" = riscv64 ]; then
		# GNU ld's riscv64 ET_EXEC puts the first PT_LOAD, with the ELF
		# header at offset 0, at 0x10000: its text cannot be made
		# congruent modulo 2 MiB (padding would move the header), so
		# nothing is aligned and no stub goes in.
		expect=refused
		one_fixture nopie cross-nopie cross-nopie cross-nopie e_entry
		one_fixture static cross-static cross-static cross-static e_entry
		expect=aligned
	else
		one_fixture nopie cross-nopie cross-nopie cross-nopie e_entry
		one_fixture static cross-static cross-static cross-static e_entry
	fi
	one_fixture static-pie cross-static-pie cross-static-pie cross-static-pie e_entry
	lib_hook=DT_INIT
	[ "$arch" = riscv64 ] && lib_hook="DT_INIT_ARRAY[0]"
	one_fixture lib cross-lib libcrossbig.so usecross "$lib_hook"
	one_fixture lld-pie cross-lld-pie cross-lld-pie cross-lld-pie e_entry
	rm -rf "$O"

	if [ "$arch" = riscv64 ]; then
		# The same ET_EXEC programs linked at 4 MiB (-Ttext-segment):
		# congruent as linked, so the stub goes in (e_entry, no ld.so for
		# the static one: a0 is 0 from the kernel).
		O=$WORK/$arch-at4m
		make_vars=(CROSS="$arch-linux-gnu-" CROSS_LDFLAGS=-Wl,-Ttext-segment=0x400000)
		one_fixture nopie-at4m cross-nopie cross-nopie cross-nopie e_entry
		one_fixture static-at4m cross-static cross-static cross-static e_entry
		rm -rf "$O"

		# A library packed with DT_RELR (lld, without the crt files and
		# linker relaxation that lld 14 lacks): the first DT_INIT_ARRAY
		# entry, the constructor, holds its own address, no addend.
		O=$WORK/$arch-relr
		make_vars=(CROSS="$arch-linux-gnu-" "CROSS_CFLAGS=-mno-relax -DBIG_RELR")
		one_fixture relr-lib cross-relr-lib libcrossrelr.so usecrossrelr "DT_INIT_ARRAY[0]"
		rm -rf "$O"

		# Libraries whose DT_INIT_ARRAY[0] the stub must not take over
		# (linked without the crt files, so that frame_dummy is not the
		# first entry): none at all, and a pointer to a global function,
		# which another object could interpose (a symbolic relocation).
		expect=nostub
		O=$WORK/$arch-noinit
		make_vars=(CROSS="$arch-linux-gnu-" CROSS_CFLAGS=-DBIG_NO_CONSTRUCTOR
			CROSS_LIB_LDFLAGS=-nostartfiles)
		nostub_why="no DT_INIT_ARRAY"
		one_fixture noinit-lib cross-lib libcrossbig.so usecross "DT_INIT_ARRAY[0]"
		rm -rf "$O"
		O=$WORK/$arch-symbolic
		make_vars=(CROSS="$arch-linux-gnu-" CROSS_CFLAGS=-DBIG_SYMBOLIC_CONSTRUCTOR
			CROSS_LIB_LDFLAGS=-nostartfiles)
		nostub_why="filled by a symbolic relocation"
		one_fixture symbolic-lib cross-lib libcrossbig.so usecross "DT_INIT_ARRAY[0]"
		rm -rf "$O"
		expect=aligned
	fi

	if [ "$arch" = aarch64 ]; then
		# 16 KiB pages: 32 MiB PMD, 70 MiB of text (two whole chunks).
		O=$WORK/$arch-16k
		make_vars=(CROSS="$arch-linux-gnu-" CROSS_SIZE=0x4600000)
		pmd=$((32 << 20))
		stub_works=no
		one_fixture pie-16k cross-pie cross-pie cross-pie e_entry --page-size=16K
		rm -rf "$O"

		O=$WORK/$arch-bti
		make_vars=(CROSS="$arch-linux-gnu-" CROSS_CFLAGS=-mbranch-protection=standard)
		pmd=$((2 << 20))
		qemu_opts=(-cpu max)
		stub_works=yes
		bti_checks
		rm -rf "$O"
	fi
	# the work files of an architecture with a failure are kept
	[ "$n_fail" -eq "$fails_before" ] && rm -rf "$WORK/$arch"-*
done
[ "$arches_run" -gt 0 ] || skip_all "no architecture can be cross-built and run here (see above)"
stop_unless_built
echo "# run time $((SECONDS - started)) s"
finish
