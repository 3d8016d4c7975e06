#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# malformed.sh -- the body of run-malformed.sh (part "mutated") and
# run-malformed-special.sh (part "special"): feed elfpmd a few thousand malformed, truncated and
# non-ELF inputs and check that it never crashes, hangs, trips a sanitizer,
# or touches a file it refused.
#
# Run by `make check` with ELFPMD (the tool), MUTATE (tests/mutate),
# TESTS_SRCDIR and TESTS_BUILDDIR in the environment.  Everything is written
# under $TESTS_BUILDDIR/malformed-work-PART (removed at the end when all
# passed); failing inputs are kept under $TESTS_BUILDDIR/malformed-failures-PART.
#
# Seeds are built here with cc: PIE, non-PIE, shared library, static, -m32
# and -mx32 (freestanding when the 32-bit libc is missing), files with 2 MiB
# of text in a segment starting at offset 0 and one with 4 MiB in the default
# layout (so that elfpmd really rewrites them), big-endian ppc64/aarch64 and
# other machines cross-linked with clang + ld.lld when present, byte-swapped
# copies made by `mutate swap`, a file without section headers, a separate
# debug file (objcopy --only-keep-debug), a copy of /bin/true.  Cases: truncations (the ELF header byte by byte, the first KiB
# at a stride, table and segment boundaries +-1, random), random byte flips
# biased toward the headers, one or several header fields set to absurd
# values (see tests/mutate.c); every sixth case also with --no-pad,
# --madvise (the startup stub's planner and writer), --rule=kernel,
# --pmd-size=64K or --pmd-size=4M; every case of the mad* seeds (text
# large enough for the stub) with --madvise.
#
# For every case the tool runs three times, under `timeout`:
#   in place (a copy owned by nobody, mode 0750, when run as root),
#   `-n --json`, and `-o OUT`.
# Asserted:
#   - exit status 0 or 1 (never a signal, a timeout, 86 = sanitizer, 64...);
#   - stderr never mentions AddressSanitizer, LeakSanitizer, runtime error,
#     internal error (the planner and its checker disagreeing);
#   - on 1: stderr is exactly one line `elfpmd: FILE: reason`, the input is
#     byte-identical, no temporary file is left, -o left no output file;
#   - on 0 in place: an ELF file of the same size, same mode and owner, and
#     (strict, this issue only raises p_align) only p_align fields of PT_LOAD
#     entries changed, to a larger power of two with p_vaddr congruent to
#     p_offset modulo it, and the build-id (a new one of the same length),
#     for the runs that cannot pad (--no-pad,
#     --rule=kernel); the others may grow the file and are checked with
#     phdr-dump --bytemap (MALFORMED_STRICT=0 checks magic only);
#   - -n never modifies its input; -o never modifies its input and writes the
#     same bytes as the in-place rewrite; the three runs agree on the status;
#   - `-n --json` prints valid JSON (checked with python3 when present).
# Then: non-ELF files (empty, text, ar archive, .o, gzip...), a directory, a
# symlink to one, a dangling symlink, a FIFO (must not hang), a character
# device, /dev/null (read-only runs), a sparse 5 GiB file (dry run), an
# unreadable file and a read-only directory (as nobody, via setpriv, when
# root), a full and a read-only file system (tmpfs, when mount works), owner,
# set-id bits, xattrs and file capabilities kept by a rewrite, and batches of
# files in one invocation (one stderr line per failed file, the others done).
#
# Knobs: MALFORMED_JOBS (parallel workers, default: number of CPUs, max 4),
# MALFORMED_PERCENT (scale the number of generated cases, default 100),
# MALFORMED_TIMEOUT (seconds per run, default 10), MALFORMED_SYNC_EVERY
# (every Nth in-place run uses the default fsync path, the others --no-sync;
# default 8), MALFORMED_KEEP=1 (keep the work directory).

set -u
export LC_ALL=C

: "${ELFPMD:?ELFPMD must name the elfpmd binary}"
: "${MUTATE:?MUTATE must name tests/mutate}"
: "${TESTS_BUILDDIR:=$PWD}"
: "${TESTS_SRCDIR:=}"

CC=${CC:-cc}
if ! command -v "${CC%% *}" >/dev/null 2>&1; then
	echo "SKIP: no C compiler ($CC)"
	exit 77
fi
for p in "$ELFPMD" "$MUTATE"; do
	if [ ! -x "$p" ]; then
		echo "ERROR: $p is not executable"
		exit 99
	fi
done

export ASAN_OPTIONS="exitcode=86:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

TMO=${MALFORMED_TIMEOUT:-10}
PCT=${MALFORMED_PERCENT:-100}
STRICT=${MALFORMED_STRICT:-1}
SYNC_EVERY=${MALFORMED_SYNC_EVERY:-8}
JOBS=${MALFORMED_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=2
[ "$JOBS" -le 4 ] || JOBS=4

# MALFORMED_PARTS: the parts that run, "mutated" (the generated cases,
# run-malformed.sh) and "special" (odd files and file systems,
# run-malformed-special.sh); each works in directories of its own.
MALFORMED_PARTS=${MALFORMED_PARTS:-mutated special}
want_part () { case " $MALFORMED_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
W=$TESTS_BUILDDIR/malformed-work-${MALFORMED_PARTS// /-}
F=$TESTS_BUILDDIR/malformed-failures-${MALFORMED_PARTS// /-}
rm -rf "$W" "$F"
mkdir -p "$W/seeds" "$W/json" || exit 99
START=$SECONDS
RANDOM=4711 # deterministic $RANDOM

scale() { echo $(( ($1 * PCT + 99) / 100 )); }

# ------------------------------------------------------------------ seeds

S=$W/seeds
cat >"$S/hello.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static int counter;
__attribute__((constructor)) static void init(void) { counter = 1; }
int hello_lib(int x) { return x * 3 + counter; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("hello %d\n", hello_lib(argc));
	return EXIT_SUCCESS;
}
EOF
# A big text section.  BIG_FILL=4194304 with the default layout (text
# segment at file offset 0x1000): the executable PT_LOAD then holds a whole
# 2 MiB chunk.  2 MiB is enough with -z noseparate-code (text segment from
# offset 0) and keeps the files, copied thousands of times, small.
cat >"$S/big.c" <<'EOF'
#include <stdio.h>
#define STR_(x) #x
#define STR(x) STR_(x)
__asm__(".section .text.big,\"ax\",@progbits\n"
	".globl big_text\nbig_text: .fill " STR(BIG_FILL) ",1,0xc3\n.previous");
int big_lib(void) { return 42; }
int main(void) { puts("big"); return 0; }
EOF
# Freestanding: no libc needed (for -m32/-mx32 and cross targets).
cat >"$S/free.c" <<'EOF'
void _start(void);
void _start(void) { for (;;) { } }
EOF
cat >"$S/freebig.c" <<'EOF'
__asm__(".section .text.big,\"ax\",%progbits\n"
	".globl big_text\nbig_text: .fill 2097152,1,0\n.previous");
void _start(void);
void _start(void) { for (;;) { } }
EOF

SEEDS=()     # "name level" ; level: full | normal | light
add_seed() { # NAME LEVEL
	if [ -s "$S/$1" ] && [ "$(head -c 4 "$S/$1" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		SEEDS+=("$1 $2")
	fi
}
build() { # NAME LEVEL COMPILER-ARGS...
	local name=$1 level=$2
	shift 2
	if "$@" -o "$S/$name" >"$S/$name.log" 2>&1; then
		add_seed "$name" "$level"
	else
		echo "note: seed $name not built: $(head -n 1 "$S/$name.log")"
	fi
}

NOSEP=-Wl,-z,noseparate-code
build pie full $CC -O1 -fPIE -pie "$S/hello.c"
build nopie normal $CC -O1 -fno-pie -no-pie "$S/hello.c"
build shlib normal $CC -O1 -fPIC -shared "$S/hello.c"
build static light $CC -O1 -static "$S/hello.c"
build bigpie full $CC -O1 -fPIE -pie $NOSEP -DBIG_FILL=2097152 "$S/big.c"
build bigpie4m light $CC -O1 -fPIE -pie -DBIG_FILL=4194304 "$S/big.c"
build bignopie normal $CC -O1 -fno-pie -no-pie $NOSEP -DBIG_FILL=2097152 "$S/big.c"
build bigshlib normal $CC -O1 -fPIC -shared $NOSEP -DBIG_FILL=2097152 "$S/big.c"
if $CC -m32 -O1 -o "$S/m32" "$S/hello.c" >/dev/null 2>&1; then
	add_seed m32 full
else
	build m32 full $CC -m32 -O1 -nostdlib -static -ffreestanding -fno-pic "$S/free.c"
fi
build bigm32 normal $CC -m32 -O1 -nostdlib -static -ffreestanding -fno-pic \
	$NOSEP -Wl,-Ttext-segment=0x8000000 "$S/freebig.c"
build x32 light $CC -mx32 -O1 -nostdlib -static -ffreestanding "$S/free.c"
cp /bin/true "$S/true" && add_seed true normal
# For --madvise (every case of these seeds runs with it): a PIE and a shared
# library with three whole 2 MiB chunks of text, in the default layout, and
# an lld PIE (the program header table grows in place for the stub).
build madpie normal $CC -O1 -fPIE -pie -DBIG_FILL=8388608 "$S/big.c"
build madlib normal $CC -O1 -fPIC -shared -DBIG_FILL=8388608 "$S/big.c"
if command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1; then
	build madlld normal clang -O1 -fPIE -pie -fuse-ld=lld -DBIG_FILL=8388608 "$S/big.c"
fi

# Big-endian and other machines through clang + lld when present: one
# read-execute segment from offset 0 at a 2 MiB-aligned base, so that elfpmd
# changes them.  (lld 14 cannot link big-endian arm32; ppc32 has no PMD size.)
if command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1; then
	for t in powerpc64-linux-gnu:ppc64be:normal aarch64_be-linux-gnu:arm64be:normal \
		 powerpc-linux-gnu:ppc32be:light aarch64-linux-gnu:arm64:light \
		 riscv64-linux-gnu:riscv64:light; do
		IFS=: read -r triple name level <<<"$t"
		build "$name" "$level" clang --target="$triple" -O1 -ffreestanding -nostdlib \
			-static -fuse-ld=lld -Wl,--no-rosegment,--image-base=0x400000 "$S/freebig.c"
	done
else
	echo "note: clang/ld.lld missing: big-endian seeds come from mutate swap only"
fi
# Byte-swapped copies (x86-64 headers in big-endian order) always exist.
"$MUTATE" swap 0 "$S/pie" "$S/pie-swapped" >/dev/null && add_seed pie-swapped normal
"$MUTATE" swap 0 "$S/bigpie" "$S/bigpie-swapped" >/dev/null && add_seed bigpie-swapped normal
# No section headers at all (valid; patchelf refuses those).
"$MUTATE" noshdr 0 "$S/bigpie" "$S/bigpie-noshdr" >/dev/null && add_seed bigpie-noshdr light
# A separate debug file (objcopy --only-keep-debug): skipped without its
# program headers being checked against the end of the file, so whatever the
# mutations do to them must still end in a skip or a clean error.
if command -v objcopy >/dev/null 2>&1; then
	objcopy --only-keep-debug "$S/pie" "$S/pie-debug" 2>/dev/null && add_seed pie-debug light
fi

if [ ${#SEEDS[@]} -lt 3 ]; then
	echo "ERROR: could not build seed files with $CC"
	exit 99
fi
echo "seeds: $(for s in "${SEEDS[@]}"; do printf '%s ' "${s% *}"; done)"

# ------------------------------------------------------------------ case list
if want_part mutated; then
# One line per case: ID SEEDNAME MODE MUTSEED ARG

LIST=$W/cases.list
: >"$LIST"
N=0
addcase() { N=$((N + 1)); echo "$N $*" >>"$LIST"; }

for s in "${SEEDS[@]}"; do
	name=${s% *} level=${s#* }
	f=$S/$name
	size=$(stat -c %s "$f")
	case $level in
	full)   hstep=1 lstep=32 nmax=$(scale 60) nrand=12 nflip=$(scale 50) nfield=$(scale 110) nmulti=$(scale 20) ;;
	normal) hstep=4 lstep=64 nmax=$(scale 40) nrand=6 nflip=$(scale 20) nfield=$(scale 55) nmulti=$(scale 8) ;;
	*)      hstep=8 lstep=128 nmax=$(scale 20) nrand=3 nflip=$(scale 8) nfield=$(scale 44) nmulti=$(scale 4) ;;
	esac
	# MALFORMED_PERCENT below 100 thins the header truncations too.
	hstep=$(( (hstep * 100 + PCT - 1) / PCT )) lstep=$(( (lstep * 100 + PCT - 1) / PCT )) nrand=$(scale "$nrand")
	# Truncations: the ELF header byte by byte (or at a stride), the first
	# KiB at a stride, then a bounded, evenly thinned sample of interesting
	# offsets (table and entry boundaries, segment and section ends, +-1)
	# and a few random ones.
	{
		seq 0 "$hstep" 72
		seq 72 "$lstep" 1024
	} >"$W/offsets.$name"
	{
		"$MUTATE" offsets 0 "$f" - | while read -r o; do
			echo "$o"
			[ "$o" -gt 0 ] && echo $((o - 1))
			echo $((o + 1))
		done
	} | sort -nu | awk -v max="$size" '$1 > 72 && $1 <= max' >"$W/offsets.$name.more"
	nt=$(wc -l <"$W/offsets.$name.more")
	keep=1
	[ "$nt" -gt "$nmax" ] && keep=$(( (nt + nmax - 1) / nmax ))
	awk -v k="$keep" 'NR % k == 1 || k == 1' "$W/offsets.$name.more" >>"$W/offsets.$name"
	for ((i = 0; i < nrand; i++)); do echo $(( (RANDOM * 32768 + RANDOM) % size )); done >>"$W/offsets.$name"
	while read -r o; do
		[ "$o" -le "$size" ] && addcase "$name" truncate 0 "$o"
	done < <(sort -nu "$W/offsets.$name")
	for ((i = 1; i <= nflip; i++)); do addcase "$name" flip "$i" -; done
	for ((i = 0; i < nfield; i++)); do addcase "$name" field "$i" -; done
	for ((i = 0; i < nmulti; i++)); do addcase "$name" fields "$i" -; done
done
# Mutations of mutations: field mutations applied to flipped/truncated inputs
# are covered by `fields`; swapped seeds get field mutations above.
echo "generated $N case specs"
if [ "${MALFORMED_LIST_ONLY:-0}" = 1 ]; then
	awk '{ n[$2 " " $3]++ } END { for (k in n) print n[k], k }' "$LIST" | sort -k2
	exit 0
fi

fi

# ------------------------------------------------------------------ checks

# Helpers write failures to $FAILS (one block per failure) and count in globals.
pass=0 fail=0 skip=0
FAILS=/dev/null
XOPTS=

tool() { # OUTPREFIX ARGS... ; sets RC and ERR (stderr text); stdout in OUTPREFIX.out
	local pfx=$1
	shift
	timeout -k 2 "$TMO" "$ELFPMD" "$@" >"$pfx.out" 2>"$pfx.err"
	RC=$?
	ERR=
	IFS= read -r -d '' ERR <"$pfx.err"
	# Exit 2 (a file for a machine without a known PMD size, nothing else
	# failed) is a refusal with the same promises as 1 (one line on stderr,
	# the file untouched): checked as 1.
	[ "$RC" = 2 ] && RC=1
	return 0
}

# status_ok RC ERR -> 1 (reason in BAD) if the run itself is bad: a crash, a
# hang, a sanitizer report, an exit status other than 0 and 1.
status_ok() {
	local rc=$1 err=$2
	BAD=
	case $err in
	*AddressSanitizer* | *LeakSanitizer* | *"runtime error"* | *UndefinedBehaviorSanitizer*)
		BAD="sanitizer report (exit $rc)"
		return 1 ;;
	*"internal error"*)
		# The planner and the checker disagree: a hostile input must be
		# refused for what it is, or handled.
		BAD="internal error: ${err#*internal error: }"
		return 1 ;;
	esac
	case $rc in
	0 | 1) return 0 ;;
	86) BAD="sanitizer exit status 86" ;;
	124) BAD="timeout after ${TMO}s (hang)" ;;
	125 | 126 | 127) BAD="could not run the tool (exit $rc)" ;;
	64) BAD="usage error (exit 64) on a valid command line" ;;
	*) if [ "$rc" -gt 128 ]; then BAD="killed by signal $((rc - 128))"; else BAD="exit status $rc"; fi ;;
	esac
	return 1
}

# one_line ERR FILE -> 0 if ERR is exactly one line `elfpmd: FILE: ...`
one_line() {
	local err=$1 file=$2 body
	body=${err%$'\n'}
	[[ $err == *$'\n' ]] || return 1
	[[ $body != *$'\n'* ]] || return 1
	[[ $body == "elfpmd: $file: "?* ]] || return 1
	return 0
}

# only_files DIR NAME... -> 0 if DIR contains exactly those names
only_files() {
	local d=$1 f n
	shift
	local -a have=("$d"/* "$d"/.[!.]* "$d"/..?*)
	n=0
	for f in "${have[@]}"; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		n=$((n + 1))
	done
	[ "$n" -eq $# ] || return 1
	for f; do [ -e "$d/$f" ] || return 1; done
	return 0
}

# expect_exit1 FILE: for a run (RC and ERR, see tool) that must fail cleanly
# on FILE, append to the caller's $reasons what is wrong with it: a bad run
# (status_ok), an exit status other than 1, or stderr other than one line
# `elfpmd: FILE: reason`.
expect_exit1() {
	if ! status_ok "$RC" "$ERR"; then
		reasons+="$BAD"$'\n'
	elif [ "$RC" != 1 ]; then
		reasons+="exit $RC, expected 1"$'\n'
	else
		one_line "$ERR" "$1" || reasons+="stderr is not one line 'elfpmd: $1: reason': $(printf %q "$ERR")"$'\n'
	fi
}

record_failure() { # ID DESC CASEFILE REASONS
	local id=$1 desc=$2 file=$3 reasons=$4
	mkdir -p "$F"
	[ -f "$file" ] && cp "$file" "$F/case-$id.elf"
	{
		echo "case $id: $desc"
		echo "$reasons" | sed 's/^/  - /'
		echo "  input kept as $F/case-$id.elf"
	} | tee -a "$FAILS" >"$F/case-$id.txt"
}

# count_case ID DESC CASEFILE REASONS: count the case as passed when REASONS
# is empty, else as failed and record_failure it.
count_case() {
	if [ -n "$4" ]; then
		fail=$((fail + 1))
		record_failure "$@"
	else
		pass=$((pass + 1))
	fi
}

PHDR_DUMP=${PHDR_DUMP:-$TESTS_BUILDDIR/phdr-dump}
[ -x "$PHDR_DUMP" ] || { echo "ERROR: PHDR_DUMP=$PHDR_DUMP is missing"; exit 99; }
CHECKMODE=loose

# run_case ID DESC CASEFILE WORKDIR SYNCFLAG [prepared]
# $XOPTS: extra options for all three runs (word-split on purpose).
# "prepared": WORKDIR/in-place.elf and WORKDIR/dry.elf already hold copies of
# CASEFILE (mutate wrote them through MUTATE_ALSO), which saves two cp.
run_case() {
	local id=$1 desc=$2 c=$3 d=$4 syncflag=$5 prepared=${6:-}
	local reasons="" rc1 rc2 rc3 e1 e2 e3 line
	local t=$d/in-place.elf n=$d/dry.elf o=$d/out.elf
	[ -d "$d" ] || mkdir -p "$d"
	if [ -z "$prepared" ]; then
		cp "$c" "$t" && cp "$c" "$n"
	fi

	# 1. in place
	tool "$d.1" $XOPTS $syncflag "$t"
	rc1=$RC e1=$ERR
	if ! status_ok "$rc1" "$e1"; then
		reasons+="in place: $BAD"$'\n'
	elif [ "$rc1" = 1 ]; then
		one_line "$e1" "$t" || reasons+="in place: exit 1 but stderr is not one line 'elfpmd: $t: reason': $(printf %q "$e1")"$'\n'
	fi
	only_files "$d" in-place.elf dry.elf || reasons+="in place: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'

	# 2. dry run with JSON (stdout kept for the JSON check at the end)
	tool "$W/json/$id" $XOPTS -n --json "$n"
	rc2=$RC e2=$ERR
	if ! status_ok "$rc2" "$e2"; then
		reasons+="-n --json: $BAD"$'\n'
	elif [ "$rc2" = 1 ]; then
		one_line "$e2" "$n" || reasons+="-n --json: exit 1 but stderr is not one line 'elfpmd: $n: reason': $(printf %q "$e2")"$'\n'
	fi
	only_files "$d" in-place.elf dry.elf || reasons+="-n --json: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'

	# 3. -o OUT, input dry.elf
	tool "$d.3" $XOPTS -o "$o" "$n"
	rc3=$RC e3=$ERR
	if ! status_ok "$rc3" "$e3"; then
		reasons+="-o: $BAD"$'\n'
	elif [ "$rc3" = 1 ]; then
		one_line "$e3" "$n" || reasons+="-o: exit 1 but stderr is not one line 'elfpmd: $n: reason': $(printf %q "$e3")"$'\n'
		[ -e "$o" ] && reasons+="-o: exit 1 but the output file exists"$'\n'
	fi
	if [ "$rc3" = 0 ]; then
		only_files "$d" in-place.elf dry.elf out.elf || reasons+="-o: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'
	else
		only_files "$d" in-place.elf dry.elf || reasons+="-o: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'
	fi

	# contents: in-place result, untouched inputs, -o output (one process)
	if ! "$MUTATE" verify 0 "$c" "$d" "$rc1,$rc3,$CHECKMODE" >"$d.v" 2>&1; then
		while IFS= read -r line; do reasons+="$line"$'\n'; done <"$d.v"
	fi
	# A rewrite that moved contents: every byte where the map says, holes
	# zero, both loader rules kept (an independent checker).
	# (Not after --madvise: the stub adds a program header and sections,
	# which the byte map does not describe; tests/madvise.sh checks
	# such files structurally.)
	if [ "$rc1" = 0 ] && [ "$CHECKMODE" = loose ] && [ "$XOPTS" != --madvise ] && ! cmp -s "$c" "$t" \
		&& ! "$PHDR_DUMP" --bytemap "$c" "$t" >"$d.bm" 2>&1; then
		reasons+="in place: byte map broken: $(grep -v '^bytemap ok' "$d.bm" | head -3 | tr '\n' ' ')"$'\n'
	fi

	if [[ $rc1$rc2$rc3 =~ ^[01]{3}$ ]] && { [ "$rc1" != "$rc2" ] || [ "$rc1" != "$rc3" ]; }; then
		reasons+="inconsistent exit statuses: in place $rc1, -n $rc2, -o $rc3"$'\n'
	fi
	echo "$id $rc1 $rc2" >>"$RCS"

	if [ -n "$reasons" ]; then
		fail=$((fail + 1))
		reasons+="stderr (in place): $(printf %q "$e1")"
		record_failure "$id" "$desc" "$c" "$reasons"
		rm -rf "$d"
		return 1
	fi
	pass=$((pass + 1))
	return 0
}

# ------------------------------------------------------------------ workers
if want_part mutated; then

# As root, the copies that the tool rewrites in place belong to nobody (and
# have mode 0750): the rewrite must keep owner and mode.
if [ "$(id -u)" = 0 ]; then
	export MUTATE_CHOWN=65534:65534
fi

worker() { # K
	local k=$1 id seed mode mseed arg desc c d syncflag line=0
	local wd=$W/w$k
	mkdir -p "$wd"
	FAILS=$W/fails.$k
	RCS=$W/rcs.$k
	: >"$FAILS"
	: >"$RCS"
	while read -r id seed mode mseed arg; do
		line=$((line + 1))
		[ $(( (line - 1) % JOBS )) -eq "$k" ] || continue
		c=$wd/case.elf
		[ -d "$wd/c" ] || mkdir -p "$wd/c"
		if [ "$mode" = truncate ]; then
			MUTATE_ALSO=$wd/c/in-place.elf:$wd/c/dry.elf \
				"$MUTATE" truncate 0 "$S/$seed" "$c" "$arg" >"$wd/desc"
		elif [ "$arg" = - ]; then
			MUTATE_ALSO=$wd/c/in-place.elf:$wd/c/dry.elf \
				"$MUTATE" "$mode" "$mseed" "$S/$seed" "$c" >"$wd/desc"
		else
			MUTATE_ALSO=$wd/c/in-place.elf:$wd/c/dry.elf \
				"$MUTATE" "$mode" "$mseed" "$S/$seed" "$c" "$arg" >"$wd/desc"
		fi
		case $? in
		0) ;;
		3) skip=$((skip + 1)); continue ;;
		*) fail=$((fail + 1))
		   record_failure "$id" "$seed $mode $mseed $arg" "$S/$seed" "mutate itself failed"
		   continue ;;
		esac
		desc=
		read -r desc <"$wd/desc"
		syncflag=--no-sync
		[ $((id % SYNC_EVERY)) -eq 0 ] && syncflag=
		# other rules and PMD sizes take other paths through the tool
		case $((id % 6)) in
		0) XOPTS=--no-pad ;;
		2) XOPTS=--madvise ;;
		3) XOPTS=--rule=kernel ;;
		4) XOPTS=--pmd-size=64K ;;
		5) XOPTS=--pmd-size=4M ;;
		*) XOPTS= ;;
		esac
		case $seed in mad*) XOPTS=--madvise ;; esac
		# Runs that cannot pad may change nothing but p_align and the
		# build-id (strict);
		# the others may move contents, checked with phdr-dump --bytemap.
		CHECKMODE=loose
		if [ "$STRICT" = 1 ]; then
			case $XOPTS in --no-pad | --rule=kernel) CHECKMODE=strict ;; esac
		fi
		run_case "$id" "$seed $mode $mseed ${arg#-}: $desc${XOPTS:+ [$XOPTS]}" "$c" "$wd/c" "$syncflag" prepared
	done <"$LIST"
	echo "$pass $fail $skip" >"$W/count.$k"
}

for ((k = 0; k < JOBS; k++)); do
	worker "$k" &
done
wait

pass=0 fail=0 skip=0
for ((k = 0; k < JOBS; k++)); do
	if [ -f "$W/count.$k" ]; then
		read -r p f s <"$W/count.$k"
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	else
		echo "FAIL: worker $k died"
		fail=$((fail + 1))
	fi
done
cat "$W"/fails.* 2>/dev/null | sed 's/^/FAIL /; s/^FAIL   /      /'
echo "mutated cases: $pass passed, $fail failed, $skip not applicable ($((SECONDS - START)) s)"

FAILS=$W/fails.batch
: >"$FAILS"
# Several files in one invocation: exit 1 if any failed, exactly one stderr
# line per failed file, the others processed, failed ones untouched.
batch_fail=0
B=$W/batch
mkdir -p "$B"
if [ -s "$W/rcs.0" ]; then
	cat "$W"/rcs.[0-9]* | sort -n >"$W/rcs.all"
	bi=0
	for ((b = 0; b < 8; b++)); do
		rm -rf "$B" && mkdir -p "$B/ref"
		files=() nfail=0 bad=""
		# pick 12 cases spread over the list, deterministic, among those run
		# without extra options
		while read -r id rc _; do
			read -r _ seed mode mseed arg < <(sed -n "${id}p" "$LIST")
			if [ "$mode" = truncate ]; then
				"$MUTATE" truncate 0 "$S/$seed" "$B/ref/$id" "$arg" >/dev/null
			elif [ "$arg" = - ]; then
				"$MUTATE" "$mode" "$mseed" "$S/$seed" "$B/ref/$id" >/dev/null
			else
				"$MUTATE" "$mode" "$mseed" "$S/$seed" "$B/ref/$id" "$arg" >/dev/null
			fi
			cp "$B/ref/$id" "$B/$id.elf"
			files+=("$B/$id.elf")
			[ "$rc" = 1 ] && nfail=$((nfail + 1))
		done < <(awk -v b="$b" '$1 % 6 < 3 && NR % 97 == b * 11 % 97' "$W/rcs.all" | head -n 12)
		[ ${#files[@]} -gt 0 ] || continue
		bi=$((bi + 1))
		tool "$W/batch" --no-sync "${files[@]}"
		if ! status_ok "$RC" "$ERR"; then
			bad+="$BAD"$'\n'
		else
			want=0
			[ "$nfail" -gt 0 ] && want=1
			[ "$RC" = "$want" ] || bad+="exit $RC, expected $want ($nfail of ${#files[@]} files fail alone)"$'\n'
			nl=$(grep -c '' "$W/batch.err")
			[ "$nl" = "$nfail" ] || bad+="$nl stderr lines, expected $nfail"$'\n'
			for fl in "${files[@]}"; do
				id=$(basename "$fl" .elf)
				rc=$(awk -v i="$id" '$1 == i { print $2 }' "$W/rcs.all")
				if [ "$rc" = 1 ]; then
					grep -qF "elfpmd: $fl: " "$W/batch.err" || bad+="no stderr line for $fl"$'\n'
					cmp -s "$B/ref/$id" "$fl" || bad+="$fl failed alone but was modified in a batch"$'\n'
				else
					grep -qF "elfpmd: $fl: " "$W/batch.err" && bad+="$fl succeeded alone but failed in a batch"$'\n'
				fi
			done
		fi
		if [ -n "$bad" ]; then
			fail=$((fail + 1)) batch_fail=$((batch_fail + 1))
			mkdir -p "$F/batch-$b"
			cp "$B"/*.elf "$F/batch-$b/" 2>/dev/null
			{
				echo "batch $b: ${files[*]}"
				echo "$bad" | sed '/^$/d; s/^/  - /'
				sed 's/^/  stderr: /' "$W/batch.err"
			} | tee -a "$FAILS" >"$F/batch-$b/README"
		else
			pass=$((pass + 1))
		fi
	done
	echo "batches: $bi run, $batch_fail failed"
fi
cat "$FAILS" | sed 's/^/FAIL /; s/^FAIL   /      /'

fi

# ------------------------------------------------------------------ special inputs
if want_part special; then
# Non-ELF and odd files, run in the same way; non-regular files get their own
# checks (the object must still be the same kind of object afterwards).

FAILS=$W/fails.special
RCS=$W/rcs.special
XOPTS=
: >"$FAILS"
X=$W/special
mkdir -p "$X"
printf '' >"$X/empty"
printf 'hello, world\n' >"$X/text"
printf '#!/bin/sh\necho hi\n' >"$X/script"
printf '\177EL' >"$X/magic3"
printf '\177ELF' >"$X/magic4"
head -c 16 "$S/pie" >"$X/ident-only"
head -c 63 "$S/pie" >"$X/ehdr64-minus-1"
head -c 64 "$S/pie" >"$X/ehdr64-only"
{ printf '\177ELF\002\001\001'; head -c 4089 /dev/zero | tr '\0' '\377'; } >"$X/elf-ff"
{ printf '\177ELF'; head -c 4092 /dev/zero; } >"$X/elf-zeros"
yes 'garbage 0123456789abcdef' | head -c 65536 >"$X/garbage"
$CC -c -o "$X/object.o" "$S/hello.c" 2>/dev/null
if [ -f "$X/object.o" ]; then
	(cd "$X" && ar rc archive.a object.o 2>/dev/null)
fi
gzip -c "$S/pie" >"$X/gzipped"

sid=100000
for f in "$X"/*; do
	[ -f "$f" ] || continue
	sid=$((sid + 1))
	run_case "$sid" "special: $(basename "$f")" "$f" "$W/sc" "--no-sync"
done

# Non-regular files.  ID, DESC, PATH, RUNS (all: in place, -n, -o;
# readonly: -n and -o; dry: -n only)
special_obj() {
	local id=$1 desc=$2 p=$3 which=$4 kind before reasons=""
	before=$(stat -c %F "$p" 2>/dev/null)
	local -a runs=("-n --json" "-o $W/sp-out.elf")
	[ "$which" = all ] && runs=("--no-sync" "${runs[@]}")
	[ "$which" = dry ] && runs=("-n --json")
	local a
	for a in "${runs[@]}"; do
		rm -f "$W/sp-out.elf"
		# shellcheck disable=SC2086
		tool "$W/sp" $a "$p"
		if ! status_ok "$RC" "$ERR"; then
			reasons+="$a: $BAD"$'\n'
		elif [ "$RC" = 1 ]; then
			one_line "$ERR" "$p" || reasons+="$a: exit 1 but stderr is not one line 'elfpmd: $p: reason': $(printf %q "$ERR")"$'\n'
		fi
		kind=$(stat -c %F "$p" 2>/dev/null)
		[ "$kind" = "$before" ] || reasons+="$a: '$p' was a $before, is now ${kind:-gone}"$'\n'
	done
	count_case "$id" "$desc" /nonexistent "$reasons"
}
mkdir -p "$X/dir"
ln -s dir "$X/link-to-dir"
ln -s does-not-exist "$X/dangling-link"
special_obj 200001 "directory" "$X/dir" all
special_obj 200002 "symlink to a directory" "$X/link-to-dir" all
special_obj 200003 "dangling symlink" "$X/dangling-link" all
special_obj 200004 "nonexistent file" "$X/no-such-file" all
if mkfifo "$X/fifo" 2>/dev/null; then
	special_obj 200005 "FIFO (must not hang)" "$X/fifo" all
else
	echo "note: mkfifo failed, FIFO case skipped"
fi
if mknod "$X/null" c 1 3 2>/dev/null; then
	special_obj 200006 "character device (private /dev/null node)" "$X/null" all
else
	echo "note: mknod failed, in-place character device case skipped"
fi
# The real /dev/null only for runs that do not write to the input.
special_obj 200007 "/dev/null (read-only runs)" /dev/null readonly
# Huge sparse file (valid small PIE followed by a 5 GiB hole): offsets past
# 4 GiB, and a tool that reads whole files into memory shows up here.
cp "$S/pie" "$X/sparse-5g" && truncate -s 5G "$X/sparse-5g" &&
	special_obj 200008 "sparse 5 GiB file (dry run)" "$X/sparse-5g" dry
rm -f "$X/sparse-5g"

# A file we may not read, and a directory we may not write to.
if [ "$(id -u)" != 0 ]; then
	cp "$S/bigpie" "$X/unreadable.elf" && chmod 000 "$X/unreadable.elf"
	special_obj 200009 "unreadable file" "$X/unreadable.elf" all
	chmod 644 "$X/unreadable.elf"
elif command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ELFPMD" 2>/dev/null; then
	# root reads everything: run these as nobody in a world-accessible directory
	P=$(mktemp -d /tmp/elfpmd-malformed.XXXXXX) && chmod 755 "$P"
	mkdir "$P/rw" "$P/ro" && chmod 777 "$P/rw"
	cp "$S/bigpie" "$P/rw/unreadable.elf" && chmod 000 "$P/rw/unreadable.elf"
	cp "$S/bigpie" "$P/ro/bigpie.elf" && chmod 644 "$P/ro/bigpie.elf" && chmod 555 "$P/ro"
	cp "$S/bigpie" "$P/ref.elf"
	for what in unreadable readonly-dir; do
		if [ "$what" = unreadable ]; then f=$P/rw/unreadable.elf; else f=$P/ro/bigpie.elf; fi
		reasons=""
		timeout -k 2 "$TMO" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$ELFPMD" "$f" >"$W/np.out" 2>"$W/np.err"
		RC=$? ERR=
		IFS= read -r -d '' ERR <"$W/np.err"
		expect_exit1 "$f"
		cmp -s "$P/ref.elf" "$f" || reasons+="the file was modified"$'\n'
		only_files "$(dirname "$f")" "$(basename "$f")" || reasons+="files left behind: $(ls -A "$(dirname "$f")" | tr '\n' ' ')"$'\n'
		count_case "as-nobody-$what" "as nobody: $what" "$f" "$reasons"
	done
	chmod -R u+rwx "$P"
	rm -rf "$P"
else
	echo "note: running as root without setpriv: permission cases skipped"
fi

# Write failures: a full file system and a read-only one (tmpfs; needs root
# with mount rights, skipped otherwise).  The input must stay untouched, no
# temporary file may be left, stderr is one line naming the input (with -o
# the output, NAMED, which is what could not be written).
expect_fail() { # ID DESC INPUT REF DIR KEEP-NAMES ARGS...
	local id=$1 desc=$2 in=$3 ref=$4 dir=$5 keep=$6 reasons=""
	shift 6
	tool "$W/ff" "$@"
	expect_exit1 "${NAMED:-$in}"
	cmp -s "$ref" "$in" || reasons+="the input was modified"$'\n'
	# shellcheck disable=SC2086
	only_files "$dir" $keep || reasons+="files left behind in $dir: $(ls -A "$dir" | tr '\n' ' ')"$'\n'
	count_case "$id" "$desc" "$ref" "$reasons"
}
M=$W/fullfs
mkdir -p "$M"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=3m elfpmd-test "$M" 2>/dev/null; then
	trap 'umount "$M" 2>/dev/null' EXIT
	cp "$S/bigpie" "$M/bigpie.elf" # 2 MiB of 3: no room for the rewrite
	expect_fail fs-full "in place on a full file system" "$M/bigpie.elf" "$S/bigpie" "$M" bigpie.elf \
		--no-sync "$M/bigpie.elf"
	expect_fail fs-full-sync "in place on a full file system (fsync path)" "$M/bigpie.elf" "$S/bigpie" "$M" bigpie.elf \
		"$M/bigpie.elf"
	NAMED=$M/out.elf expect_fail fs-full-o "-o onto a full file system" "$S/bigpie" "$S/bigpie" "$M" bigpie.elf \
		-o "$M/out.elf" "$S/bigpie"
	if mount -o remount,ro "$M" 2>/dev/null; then
		expect_fail fs-ro "in place on a read-only file system" "$M/bigpie.elf" "$S/bigpie" "$M" bigpie.elf \
			"$M/bigpie.elf"
	fi
	umount "$M" && trap - EXIT
else
	echo "note: cannot mount a tmpfs: full and read-only file system cases skipped"
fi

# What a rewrite must keep: owner, set-id bits, mode, extended attributes,
# file capabilities (setcap), as root.
if [ "$(id -u)" = 0 ]; then
	K=$W/keep
	mkdir -p "$K"
	cp "$S/bigpie" "$K/keep.elf"
	chown 65534:65534 "$K/keep.elf" && chmod 6751 "$K/keep.elf"
	want_attr=""
	if command -v setfattr >/dev/null 2>&1 && setfattr -n user.elfpmd -v kept "$K/keep.elf" 2>/dev/null; then
		want_attr=yes
	fi
	want_cap=""
	if command -v setcap >/dev/null 2>&1 && setcap cap_net_raw+ep "$K/keep.elf" 2>/dev/null; then
		want_cap=$(getcap "$K/keep.elf" | awk '{ print $NF }')
	fi
	# setcap may clear set-id bits on some systems: take what is there now
	before=$(stat -c '%a %u %g' "$K/keep.elf")
	tool "$W/keep" --no-sync "$K/keep.elf"
	reasons=""
	if ! status_ok "$RC" "$ERR" || [ "$RC" != 0 ]; then
		reasons+="exit $RC: ${BAD:-$(printf %q "$ERR")}"$'\n'
	else
		after=$(stat -c '%a %u %g' "$K/keep.elf")
		[ "$before" = "$after" ] || reasons+="mode/owner changed: '$before' -> '$after'"$'\n'
		cmp -s "$S/bigpie" "$K/keep.elf" && reasons+="file not rewritten (test seed should change)"$'\n'
		if [ -n "$want_attr" ]; then
			[ "$(getfattr --only-values -n user.elfpmd "$K/keep.elf" 2>/dev/null)" = kept ] ||
				reasons+="extended attribute user.elfpmd lost"$'\n'
		fi
		if [ -n "$want_cap" ]; then
			[ "$(getcap "$K/keep.elf" | awk '{ print $NF }')" = "$want_cap" ] ||
				reasons+="file capability $want_cap lost"$'\n'
		fi
	fi
	count_case keep-attributes "in place keeps owner, mode, xattrs, capabilities" "$S/bigpie" "$reasons"
fi

# Informational: how in-place rewriting treats symlinks and hard links.
cp "$S/bigpie" "$X/target.elf" && ln -s target.elf "$X/link.elf"
if tool "$W/sym" --no-sync "$X/link.elf" && [ "$RC" = 0 ]; then
	if [ -L "$X/link.elf" ]; then
		cmp -s "$S/bigpie" "$X/target.elf" && echo "note: symlink kept, but its target was not rewritten" \
			|| echo "note: in-place rewrite through a symlink rewrote the target, kept the link"
	else
		echo "note: in-place rewrite of a symlink replaced the link by a regular file (target untouched)"
	fi
fi
cp "$S/bigpie" "$X/hard1.elf" && ln "$X/hard1.elf" "$X/hard2.elf"
if tool "$W/hard" --no-sync "$X/hard1.elf" && [ "$RC" = 0 ]; then
	if [ "$X/hard1.elf" -ef "$X/hard2.elf" ]; then
		echo "note: hard link kept after in-place rewrite"
	else
		echo "note: in-place rewrite broke a hard link (the other name keeps the old file)"
	fi
fi

cat "$FAILS" | sed 's/^/FAIL /; s/^FAIL   /      /'

fi

# ------------------------------------------------------------------ JSON
if command -v python3 >/dev/null 2>&1; then
	if ! python3 - "$W" >"$W/json.report" 2>&1 <<'EOF'
import glob, json, os, sys
w = sys.argv[1]
rc2 = {}
for f in glob.glob(os.path.join(w, 'rcs.*')):
    for line in open(f):
        p = line.split()
        if len(p) >= 3:
            rc2[p[0]] = p[2]
bad = n = 0
for path in sorted(glob.glob(os.path.join(w, 'json', '*.out'))):
    cid = os.path.basename(path)[:-4]
    text = open(path, encoding='utf-8', errors='replace').read()
    lines = [l for l in text.split('\n') if l.strip()]
    n += 1
    if not lines:
        if rc2.get(cid) == '0':
            print(f"case {cid}: -n --json exited 0 but printed nothing"); bad += 1
        continue
    for l in lines:
        try:
            o = json.loads(l)
            if not isinstance(o, dict) or 'file' not in o:
                raise ValueError('not an object with "file"')
        except ValueError as e:
            print(f"case {cid}: -n --json printed invalid JSON ({e}): {l[:200]!r}"); bad += 1
            break
print(f"{n} JSON outputs checked, {bad} bad")
sys.exit(1 if bad else 0)
EOF
	then
		nbad=$(grep -c '^case ' "$W/json.report")
		fail=$((fail + nbad))
		sed 's/^case/FAIL case/' "$W/json.report" | head -n 50
		mkdir -p "$F"
		cp "$W/json.report" "$F/json.report"
	else
		tail -n 1 "$W/json.report"
	fi
else
	echo "note: python3 missing, JSON not validated"
fi

echo "elapsed: $((SECONDS - START)) s"
echo "$pass passed, $fail failed"
if [ "$fail" -gt 0 ]; then
	echo "failing inputs kept under $F"
	exit 1
fi
[ "${MALFORMED_KEEP:-0}" = 1 ] || rm -rf "$W"
exit 0
