# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# tests/lib.sh: shell helpers shared by the tests/run-*.sh scripts (bash).
#
# Source it after setting nothing; it reads the environment that
# Makefile.am's AM_TESTS_ENVIRONMENT exports and fills in defaults for a run
# by hand from the source tree (bash tests/run-foo.sh):
#
#   TESTS_SRCDIR    tests/ of the source tree (default: this file's directory)
#   TESTS_BUILDDIR  tests/ of the build tree (default: TESTS_SRCDIR)
#   ELFPMD          the tool (default: TESTS_BUILDDIR/../src/elfpmd)
#   PHDR_DUMP       tests/phdr-dump (default: TESTS_BUILDDIR/phdr-dump, compiled
#                   on the fly into a scratch directory when missing)
#
# Results: pass/fail/skip print one "PASS: ...", "FAIL: ..." or "SKIP: ..."
# line each and count; finish prints a summary and exits with the automake
# convention: 1 if anything failed, 77 if nothing passed and something was
# skipped, else 0.  A broken test environment (no tool to test) is a hard
# error: exit 99.

export LC_ALL=C

TESTS_SRCDIR=${TESTS_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
TESTS_BUILDDIR=${TESTS_BUILDDIR:-$TESTS_SRCDIR}
ELFPMD=${ELFPMD:-$TESTS_BUILDDIR/../src/elfpmd}
PHDR_DUMP=${PHDR_DUMP:-$TESTS_BUILDDIR/phdr-dump}
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}

n_pass=0
n_fail=0
failed_list=
n_skip=0

pass () { echo "PASS: $*"; n_pass=$((n_pass + 1)); }
fail () { echo "FAIL: $*"; n_fail=$((n_fail + 1)); failed_list="${failed_list:-}#   $*
"; }
skip () { echo "SKIP: $*"; n_skip=$((n_skip + 1)); }
note () { echo "      $*"; }

# hard_error MESSAGE: the test cannot run at all for a reason that is not a
# missing optional tool; automake reports it as ERROR.
hard_error () { echo "ERROR: $*"; exit 99; }

# check DESCRIPTION COMMAND...: PASS if COMMAND succeeds, else FAIL.
check () {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# holds DESCRIPTION CONDITION: PASS if the shell code CONDITION (one
# string, evaluated here: tests joined with && and ||) succeeds, else FAIL.
# (check DESCRIPTION [ A ] && [ B ] would test only A: the && ends check's
# command.)
holds () {
	if eval "$2"; then pass "$1"; else fail "$1"; fi
}

# finish: print the summary and exit with the automake status.
finish () {
	# The failures again at the end, where a log cut in the middle (CI
	# prints a part of it) still shows them.
	[ "$n_fail" -eq 0 ] || printf '# the failures:\n%s' "$failed_list"
	echo "# pass $n_pass, fail $n_fail, skip $n_skip"
	if [ "$n_fail" -gt 0 ]; then exit 1; fi
	if [ "$n_pass" -eq 0 ] && [ "$n_skip" -gt 0 ]; then exit 77; fi
	exit 0
}

have () { command -v "$1" >/dev/null 2>&1; }

# require_elfpmd: make sure $ELFPMD can be run, or stop with a hard error.
require_elfpmd () {
	[ -x "$ELFPMD" ] || hard_error "ELFPMD=$ELFPMD is not an executable file (build the tool first)"
}

# require_phdr_dump SCRATCHDIR: make sure $PHDR_DUMP exists; when run by hand
# before 'make check' built it, compile tests/phdr-dump.c into SCRATCHDIR.
require_phdr_dump () {
	[ -x "$PHDR_DUMP" ] && return 0
	local cc=${CC:-cc}
	mkdir -p "$1" || hard_error "cannot create $1"
	"$cc" -O2 -o "$1/phdr-dump" "$TESTS_SRCDIR/phdr-dump.c" "$TESTS_SRCDIR/elfdata.c" \
		|| hard_error "PHDR_DUMP=$PHDR_DUMP is missing and $TESTS_SRCDIR/phdr-dump.c does not compile"
	PHDR_DUMP=$1/phdr-dump
}

# file_signature FILE: inode, size, modification time (ns) and change time of
# FILE, to prove that a command left it alone.
file_signature () { stat -c '%i %s %y %z' -- "$1"; }

# exec_loads FILE: "ALIGN OFFSET VADDR FILESZ" in decimal, one line per
# executable PT_LOAD of FILE, as phdr-dump reads it.
exec_loads () {
	"$PHDR_DUMP" "$1" | awk '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && $3 ~ /X/ { printf "%.0f %.0f %.0f %.0f\n", hex($8), hex($4), hex($5), hex($6) }'
}

# phdr_without_align FILE: phdr-dump of FILE with the p_align column blanked,
# for comparing everything else.
phdr_without_align () {
	"$PHDR_DUMP" "$1" | awk '$1 == "ehdr" { print; next } { $8 = "-"; print }'
}

# load_aligns FILE: "INDEX ALIGN" of every PT_LOAD of FILE.
load_aligns () { "$PHDR_DUMP" "$1" | awk '$2 == "LOAD" { print $1, $8 }'; }

# expected_aligns RULE PMD FILE: "INDEX ALIGN" that RULE (relaxed or kernel)
# predicts for every PT_LOAD of FILE.
expected_aligns () { "$PHDR_DUMP" "--expect-$1" "$2" "$3" | awk '{ print $1, $2 }'; }

# elflint_messages FILE: eu-elflint --gnu-ld's messages about FILE, one per
# line, with the file name replaced by FILE so that two files' messages
# compare; nothing for a clean file.
elflint_messages () {
	eu-elflint --gnu-ld -- "$1" 2>&1 | F=$1 awk '
		$0 == "No errors" || $0 == "" { next }
		{
			f = ENVIRON["F"]
			while ((i = index($0, f)) > 0)
				$0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(f))
			print
		}'
}

# elflint_count FILE: the number of eu-elflint --gnu-ld messages about FILE.
elflint_count () { elflint_messages "$1" | wc -l | tr -d ' '; }

# ---------------------------------------------------------------------------
# Coverage: how much of an object's text a run got PMD-mapped, from a copy of
# the program's /proc/self/smaps (tests/fixtures/madmain.c, invmain.c and
# invdl.c write one to $FIXTURE_SMAPS), shared by run-madvise-*.sh and the
# stub's tests (run-invisible-*.sh, run-copy-*.sh).

# pmd_kb SMAPS OBJECT: FilePmdMapped summed over the executable VMAs of
# OBJECT (same inode, same base name) in the smaps copy SMAPS, in kB: its
# text's (the stub's guard can give read-only data PMD mappings too).
pmd_kb () {
	awk -v ino="$(stat -c %i "$2")" -v base="/${2##*/}" '
		/^[0-9a-f]+-[0-9a-f]+ / {
			n = length(base)
			cur = $5 == ino && substr($0, length($0) - n + 1) == base && $2 ~ /x/
			next }
		cur && $1 == "FilePmdMapped:" { kb += $2 }
		END { print kb + 0 }' "$1"
}

# ideal_chunks FILE: whole PMD chunks (of $PMD bytes, default 2 MiB) of
# FILE's executable read-only PT_LOADs that the kernel can map with PMD
# pages (address congruent with offset, load base PMD-aligned), counted
# from phdr-dump's view.
ideal_chunks () {
	"$PHDR_DUMP" "$1" | awk -v pmd="${PMD:-2097152}" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$1 == "ehdr" { exec = $2 == "type=EXEC"; next }
		$2 == "LOAD" {
			if (hex($8) > maxalign) maxalign = hex($8)
			if ($3 !~ /X/ || $3 ~ /W/) next
			va = hex($5); off = hex($4); end = va + hex($6)
			if ((va - off) % pmd != 0) next
			c = int(end / pmd) - int((va + pmd - 1) / pmd)
			if (c > 0) chunks += c }
		END { print (exec || maxalign >= pmd) ? chunks + 0 : 0 }'
}

# ---------------------------------------------------------------------------
# Fixtures: programs and libraries built by tests/fixtures/Makefile into one
# directory, FIXTURES_O, that every script of a `make check` shares: the
# first script that needs a target builds it (build_fixture holds a lock
# while make runs), the others find it up to date.  The loop over the
# fixtures sets the globals these helpers read:
#   O        the build directory of the fixtures
#   ARGS     the arguments of every fixture run (an array)
#   name     the current fixture's label, for the PASS/FAIL/SKIP lines
#   file     the file rewritten (a program, or the library PROGRAM loads)
#   prog     what runs: FILE itself, or a program in $O that loads the
#            library FILE from LD_LIBRARY_PATH
#   w        the current fixture's work directory; $w/orig/$file is the
#            original, $w/orig.out what it printed
#   can_run  true or false: whether the original runs here (check_original)

FIXTURES_O=$TESTS_BUILDDIR/fixtures-build
O=$FIXTURES_O
# Debian ships llvm-objcopy as llvm-objcopy-NN.
LLVM_OBJCOPY=${LLVM_OBJCOPY:-$(command -v llvm-objcopy llvm-objcopy-19 llvm-objcopy-18 \
	llvm-objcopy-17 llvm-objcopy-16 llvm-objcopy-15 llvm-objcopy-14 2>/dev/null | head -1)}

# work_dir: set WORK to the script's own empty work directory,
# $TESTS_BUILDDIR/work/NAME (NAME: the script's name without run- and .sh),
# and make sure phdr-dump can be run (built there when missing).
work_dir () {
	local name
	name=$(basename "$0" .sh)
	WORK=$TESTS_BUILDDIR/work/${name#run-}
	rm -rf "$WORK"
	mkdir -p "$WORK" || hard_error "cannot create $WORK"
	require_phdr_dump "$WORK/tools"
}

# why_unbuildable TARGET: a guess at the missing piece, for the SKIP line of a
# tests/fixtures/Makefile target that did not build.  Reads GCC, CLANG (the
# compilers, default gcc and clang) and LLVM_OBJCOPY (empty: not found).
why_unbuildable () {
	local gcc=${GCC:-gcc} clang=${CLANG:-clang}
	case $1 in
	lld-pie|libbiglld|lld-nosections|lld-twoseg|bolt-*)
		have "$clang" || { echo "$clang not found"; return; }
		have ld.lld || { echo "ld.lld not found"; return; } ;;
	debug-lld)
		have "$gcc" || { echo "$gcc not found"; return; }
		have ld.lld || { echo "ld.lld not found"; return; } ;;
	*)
		have "$gcc" || { echo "$gcc not found"; return; } ;;
	esac
	case $1 in
	lld-nosections)
		[ -n "$LLVM_OBJCOPY" ] || { echo "llvm-objcopy not found (Debian: package llvm)"; return; } ;;
	debug-*)
		have objcopy || { echo "objcopy not found"; return; } ;;
	static|static-pie)
		[ -f "$("$gcc" -print-file-name=libc.a 2>/dev/null)" ] || { echo "no static libc (libc.a)"; return; } ;;
	esac
	echo "build failed"
}

# build_fixture TARGET [VAR=VALUE...]: build the tests/fixtures/Makefile
# TARGET into $O, quietly, with the make variables VAR=VALUE; the log is in
# $O/TARGET.log.  The compilers can be chosen with GCC and CLANG in the
# environment.  Reads O.
build_fixture () {
	local lock=()
	mkdir -p "$O" || return 1
	# The scripts share O: one build at a time, and make leaves what is
	# up to date alone.
	have flock && lock=(flock "$O/.build.lock")
	"${lock[@]}" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
		make -f "$TESTS_SRCDIR/fixtures/Makefile" SRC="$TESTS_SRCDIR/fixtures" \
		O="$O" ${LLVM_OBJCOPY:+LLVM_OBJCOPY="$LLVM_OBJCOPY"} "${@:2}" "$1" >"$O/$1.log" 2>&1
}

# build_or_skip NAME TARGET [VAR=VALUE...]: build_fixture TARGET [VAR=VALUE...]
# for the fixture NAME; when it does not build, SKIP with a guess at the
# reason and the tail of the log, and fail.  Reads O.
build_or_skip () {
	local name=$1 target=$2
	shift 2
	build_fixture "$target" "$@" && return 0
	skip "$name: cannot build it here: $(why_unbuildable "$target") (log: $O/$target.log)"
	tail -3 "$O/$target.log" | sed 's/^/      /'
	return 1
}

# run_fixture DIR OUT: run the current fixture with the file found in DIR
# (the original or a rewritten copy), store its stdout and exit status in OUT
# and its stderr in OUT.err.  Reads prog, file, ARGS, O.
run_fixture () {
	local status
	if [ "$prog" = "$file" ]; then
		timeout 60 "$1/$file" "${ARGS[@]}" >"$2" 2>"$2.err"
		status=$?
	else
		LD_LIBRARY_PATH=$1 timeout 60 "$O/$prog" "${ARGS[@]}" >"$2" 2>"$2.err"
		status=$?
	fi
	echo "exit status $status" >>"$2"
}

# check_original: run the original in $w/orig into $w/orig.out; PASS when it
# exits 42, else SKIP and set can_run=false (true otherwise), so that the
# run checks of its rewrites are skipped.  Reads name, w and what run_fixture
# reads.
check_original () {
	can_run=true
	run_fixture "$w/orig" "$w/orig.out"
	if [ "$(tail -1 "$w/orig.out")" = "exit status 42" ]; then
		pass "$name: original runs and exits 42"
	else
		skip "$name: the original does not run here ($(tail -1 "$w/orig.out")): run checks skipped"
		sed 's/^/      stderr: /' "$w/orig.out.err" | head -5
		can_run=false
	fi
}

# same_run DIR WHAT: the fixture run against DIR prints what the original did
# (nothing checked when the original does not run).  Reads can_run, w, name
# and what run_fixture reads.
same_run () {
	$can_run || return 0
	run_fixture "$1" "$1.out"
	if cmp -s "$w/orig.out" "$1.out"; then
		pass "$name: $2 prints the same and exits 42"
	else
		fail "$name: $2 prints something else than the original"
		diff "$w/orig.out" "$1.out" | head -20 | sed 's/^/      /'
		sed 's/^/      stderr: /' "$1.out.err" | head -5
	fi
}

# same REF OUT WHAT: OUT (a run of a rewrite) is REF (the original's run,
# stdout and "exit status N", stderr in OUT.err): PASS or FAIL, with the
# difference (the stub's tests).
same () {
	if cmp -s "$1" "$2"; then
		pass "$3: prints the same and exits as the original ($(tail -1 "$2"))"
		return 0
	fi
	fail "$3: prints something else than the original, or exits otherwise"
	diff "$1" "$2" | head -10 | sed 's/^/      /'
	sed 's/^/      stderr: /' "$2.err" 2>/dev/null | head -5
	return 1
}

# cleanup_on_exit: run the commands of the array CLEANUP (shell code,
# added by the caller) in reverse order when the script exits, whatever
# happened (the stub's tests).
CLEANUP=()
run_cleanup () {
	local i
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${CLEANUP[i]}" >/dev/null 2>&1
	done
	CLEANUP=()
}
cleanup_on_exit () {
	trap run_cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

# check_elflint RESULT [WHAT]: RESULT has no more eu-elflint --gnu-ld messages
# than the original; WHAT, when given, labels the check.  Nothing checked
# when have_elflint is false.  Reads have_elflint, lint_before (the
# original's elflint_count), name, w, file.
check_elflint () {
	$have_elflint || return 0
	local after what=${2:+$2: }
	after=$(elflint_count "$1")
	if [ "$after" -le "$lint_before" ]; then
		pass "$name: ${what}eu-elflint --gnu-ld messages $after <= original's $lint_before"
	else
		fail "$name: ${what}eu-elflint --gnu-ld messages $after > original's $lint_before"
		diff <(elflint_messages "$w/orig/$file") <(elflint_messages "$1") | sed 's/^/      /' | head -20
	fi
}

# stop_unless_built: when no fixture could be built (built_any is false), say
# so, print the summary and exit 77 (skipped).  Reads built_any.
stop_unless_built () {
	$built_any && return 0
	echo "no fixture could be built on this machine (see the SKIP lines above)"
	echo "# pass $n_pass, fail $n_fail, skip $n_skip"
	exit 77
}

# skip_all REASON: the whole script cannot run here (exit 77).
skip_all () { echo "SKIP: $*"; echo "# pass $n_pass, fail $n_fail, skip $((n_skip + 1))"; exit 77; }

# require_slow WHAT: the slow suites (qemu-system boots, cross builds under
# qemu-user, package and build-system builds) run in `make check` only with
# ELFPMD_SLOW_TESTS=1 (make check-all, CI: tools/setup.sh check); `make
# check` sets it to 0 when it is not set; run by hand, a script runs.
require_slow () {
	[ "${ELFPMD_SLOW_TESTS:-1}" != 0 ] \
		|| skip_all "a slow suite ($1): make check-all, or make check ELFPMD_SLOW_TESTS=1, runs it"
}

# require_file_thp DIR: file-backed THP must work on DIR's file system, or
# the script is skipped: a MADV_HUGEPAGE mapping of an uncached 4 MiB file
# there must get PMD-mapped ($PAGECACHE probe, tests/fixtures/pagecache.c);
# elfpmd plays no part in this.  Notes the result.
require_file_thp () {
	local dir=$1 fs probe
	fs=$(df -PT "$dir" | awk 'NR == 2 { print $2 }')
	head -c $((4 << 20)) /dev/urandom >"$dir/probe.dat" || hard_error "cannot write $dir/probe.dat"
	probe=$("$PAGECACHE" probe "$dir/probe.dat" 2>&1)
	case $? in
	0) note "file THP probe: $probe (file system $fs, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled))" ;;
	1) skip_all "file THP does not work here: a MADV_HUGEPAGE mapping of a 4 MiB file on $fs got $probe (file system without large page cache folios, tmpfs, or kernel too old)" ;;
	*) skip_all "file THP probe failed: $probe" ;;
	esac
	rm -f "$dir/probe.dat"
}

# require_root_thp WHY: root (WHY says what for), transparent huge pages
# built in and not "never", and a writable drop_caches, or the script is
# skipped.
require_root_thp () {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ "$(id -u)" = 0 ] || skip_all "needs root ($1)"
	[ -r "$thp" ] || skip_all "$thp missing: kernel without transparent huge pages"
	grep -q '\[never\]' "$thp" && skip_all "transparent huge pages disabled ($thp: $(cat "$thp"))"
	[ -w /proc/sys/vm/drop_caches ] || skip_all "/proc/sys/vm/drop_caches not writable"
}

# drop_caches: write back and drop the whole page cache (a cold state),
# then compact memory, so that PMD-sized folios can be had even after the
# VM suites and builds that run beside a test have fragmented it; the
# caller holds the page-cache lock (page_cache_lock).
drop_caches () {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
}

# free_pmd_blocks: how many free blocks of order 9 or more (2 MiB and more
# with 4 KiB pages) the kernel has, for a failure's message.
free_pmd_blocks () {
	awk '{ for (i = 14; i <= NF; i++) n += $i } END { print n + 0 }' /proc/buddyinfo 2>/dev/null
}

# find_as_nobody: set AS_NOBODY to a command prefix that runs a command as
# the user nobody (setpriv, else runuser); return 1 when there is no such
# user or neither works (not root, a sandbox).
AS_NOBODY=()
find_as_nobody () {
	local uid gid
	uid=$(id -u nobody 2>/dev/null) && gid=$(id -g nobody 2>/dev/null) || return 1
	if have setpriv && setpriv --reuid="$uid" --regid="$gid" --clear-groups true 2>/dev/null; then
		AS_NOBODY=(setpriv --reuid="$uid" --regid="$gid" --clear-groups)
	elif have runuser && runuser -u nobody -- true 2>/dev/null; then
		AS_NOBODY=(runuser -u nobody --)
	else
		return 1
	fi
}

# run_logged OUT COMMAND...: run COMMAND (at most 60 s), its standard output
# and then "exit status N" into OUT, its standard error into OUT.err.
run_logged () {
	local out=$1 status
	shift
	{ timeout -k 5 60 "$@" >"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# page_cache_lock: take, for the rest of the script, the machine-wide lock of
# the tests that drop the page cache or change THP or read-ahead settings,
# and of those that assert what the cache holds (PMD-mapped text, primed
# folios); every such script takes it right after its requirements, so
# that `make -j check` (or two checkouts tested at once) never drops the
# cache under another's warm start.  ELFPMD_PAGE_CACHE_LOCK names the lock
# file (default /tmp/elfpmd-tests-page-cache.lock).  Without flock(1), or
# when the file cannot be opened, it says so and goes on unlocked.
page_cache_lock () {
	local lock=${ELFPMD_PAGE_CACHE_LOCK:-/tmp/elfpmd-tests-page-cache.lock} t0=$SECONDS
	[ -n "${ELFPMD_PAGE_CACHE_LOCKED:-}" ] && return 0
	if ! have flock; then
		note "flock(1) missing: the page-cache lock is not taken"
		return 0
	fi
	if ! exec 8>>"$lock"; then
		note "cannot open $lock: the page-cache lock is not taken"
		return 0
	fi
	flock -w 3600 8 || hard_error "waited an hour for the page-cache lock $lock"
	[ $((SECONDS - t0)) -ge 1 ] && note "waited $((SECONDS - t0)) s for the page-cache lock ($lock)"
	export ELFPMD_PAGE_CACHE_LOCKED=1
}

# cpu_lock exclusive|shared: take, for the rest of the script, the lock
# that keeps bursts of host CPU away from timing in an emulated guest.
# tests/run-vm.sh takes it exclusive for its x86-64 guests: qemu TCG
# counts the stub's waits in guest wall time, which runs on while a busy
# host keeps the vCPU from running, and three programs started at once in
# a guest (6.1, xfs, THP always) once ended with one chunk of seven in
# small folios in a make check -j2 (100% run alone).  The tests that load
# both CPUs for long (run-fuzz.sh, run-packages-*.sh, run-batch-output.sh)
# take it shared: they may run side by side, not beside that guest.  ELFPMD_CPU_LOCK names the lock file (default
# /tmp/elfpmd-tests-cpu.lock); without flock(1) it says so and goes on.
cpu_lock () {
	local lock=${ELFPMD_CPU_LOCK:-/tmp/elfpmd-tests-cpu.lock} t0=$SECONDS how=-s
	[ "$1" = exclusive ] && how=-x
	if ! have flock || ! exec 7>>"$lock"; then
		note "flock(1) missing or $lock cannot be opened: the CPU lock is not taken"
		return 0
	fi
	flock "$how" -w 3600 7 || hard_error "waited an hour for the CPU lock $lock"
	[ $((SECONDS - t0)) -ge 1 ] && note "waited $((SECONDS - t0)) s for the CPU lock ($lock, $1)"
	return 0
}

# poke FILE WHAT...: patch ELF header fields of FILE in place (any class and
# byte order) with mutate's set mode.  WHAT is "phdr INDEX FIELD VALUE",
# "shdr INDEX FIELD VALUE" (FIELD without its p_ or sh_), "dyn SELECTOR
# FIELD VALUE" (SELECTOR an index or DT_NAME[+K], FIELD tag or val), "byte
# OFFSET VALUE" or "add OFFSET SIZE DELTA" (add DELTA, which may be
# negative, to the SIZE-byte number at OFFSET, modulo 2^(8 SIZE)); several
# may follow each other.
poke () {
	local file=$1 spec= one
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		phdr) one="phdr[$2].p_$3=$4"; shift 4 ;;
		shdr) one="shdr[$2].sh_$3=$4"; shift 4 ;;
		dyn) one="dyn[$2].d_$3=$4"; shift 4 ;;
		byte) one="byte[$2]=$3"; shift 3 ;;
		add) one="add[$2:$3]=$4"; shift 4 ;;
		*) hard_error "poke: unknown field kind $1" ;;
		esac
		spec=${spec:+$spec,}$one
	done
	"$MUTATE" set 0 "$file" "$file" "$spec" >/dev/null || hard_error "poke $file $spec failed"
}

# ---------------------------------------------------------------------------
# An ext4 file system on a loop device of the test's own: mounted
# data=journal, no large page cache folios there on any kernel, so no PMD
# folios (the stub's tests, run-prime-*.sh); or with the default options and a
# read-ahead of the test's choosing (run-madvise-inflight.sh).  The caller
# keeps an array CLEANUP of commands run on exit.

LOOPDEV= MNTED= LOOPIMG=

# ext4_mount DIR SIZE OPTIONS: an ext4 image of SIZE (truncate's form) made
# in DIR and mounted with OPTIONS at DIR/ext4.mnt; sets LOOPDEV and MNTED
# (the mount point) and adds ext4_umount to CLEANUP, or prints why not and
# fails.
ext4_mount () {
	local mnt=$1/ext4.mnt
	LOOPIMG=$1/ext4.img
	have mkfs.ext4 && have losetup || { echo "mkfs.ext4 or losetup not found"; return 1; }
	CLEANUP+=("ext4_umount")
	truncate -s "$2" "$LOOPIMG" || { echo "cannot make a $2 image"; return 1; }
	mkfs.ext4 -q -F "$LOOPIMG" >"$LOOPIMG.log" 2>&1 || { echo "mkfs.ext4 failed: $(tail -1 "$LOOPIMG.log")"; return 1; }
	LOOPDEV=$(losetup --find --show "$LOOPIMG" 2>"$LOOPIMG.log") || { LOOPDEV=; echo "no loop device: $(tail -1 "$LOOPIMG.log")"; return 1; }
	mkdir -p "$mnt"
	mount -o "$3" "$LOOPDEV" "$mnt" 2>"$LOOPIMG.log" || { echo "mount -o $3 failed: $(tail -1 "$LOOPIMG.log")"; return 1; }
	MNTED=$mnt
}

# journal_mount DIR SIZE: ext4_mount DIR SIZE data=journal, checked to be
# data=journal.
journal_mount () {
	ext4_mount "$1" "$2" data=journal || return 1
	grep -q " $MNTED ext4 .*data=journal" /proc/mounts || { echo "the mount is not data=journal: $(grep " $MNTED " /proc/mounts)"; return 1; }
}

# ext4_umount: undo ext4_mount (idempotent).
ext4_umount () {
	[ -n "$MNTED" ] && umount "$MNTED" && MNTED=
	[ -n "$LOOPDEV" ] && [ -z "$MNTED" ] && losetup -d "$LOOPDEV" && LOOPDEV=
	[ -n "$LOOPIMG" ] && rm -f "$LOOPIMG"
}
journal_umount () { ext4_umount; }

# loop_read: bytes read from LOOPDEV so far.
loop_read () { awk '{ printf "%.0f\n", $3 * 512 }' "/sys/block/${LOOPDEV##*/}/stat"; }

# ---------------------------------------------------------------------------
# Slow reads: a block I/O cgroup of the test's own that caps the read rate
# of one device, so that a read the kernel starts is still under way a
# moment later on any machine (run-madvise-inflight.sh).  cgroup v2's io
# controller (io.max rbps) or v1's blkio (blkio.throttle.read_bps_device).

THROTTLE_CG=

# throttle_reads DEVICE BYTES_PER_S: make the cgroup, capping DEVICE's
# reads; adds its removal to CLEANUP, or prints why not and fails.
throttle_reads () {
	local majmin name=elfpmd-test-$$ root=/sys/fs/cgroup
	majmin=$(cat "/sys/block/${1##*/}/dev" 2>/dev/null) || { echo "no /sys/block entry for $1"; return 1; }
	if [ -f "$root/cgroup.controllers" ]; then
		grep -qw io "$root/cgroup.controllers" || { echo "cgroup v2 without the io controller"; return 1; }
		grep -qw io "$root/cgroup.subtree_control" || echo +io >"$root/cgroup.subtree_control" 2>/dev/null \
			|| { echo "cannot enable the io controller in $root"; return 1; }
		mkdir "$root/$name" || { echo "cannot make the cgroup $root/$name"; return 1; }
		THROTTLE_CG=$root/$name
		CLEANUP+=("rmdir '$THROTTLE_CG'")
		echo "$majmin rbps=$2" >"$THROTTLE_CG/io.max" || { echo "io.max refused the read cap"; return 1; }
	elif [ -d "$root/blkio" ]; then
		mkdir "$root/blkio/$name" || { echo "cannot make the cgroup $root/blkio/$name"; return 1; }
		THROTTLE_CG=$root/blkio/$name
		CLEANUP+=("rmdir '$THROTTLE_CG'")
		echo "$majmin $2" >"$THROTTLE_CG/blkio.throttle.read_bps_device" \
			|| { echo "blkio.throttle.read_bps_device refused the read cap"; return 1; }
	else
		echo "no cgroup v2 io controller nor v1 blkio hierarchy under $root"
		return 1
	fi
}

# throttled COMMAND...: run COMMAND in the throttle_reads cgroup.
throttled () {
	bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$THROTTLE_CG" "$@"
}

# start_paused LABEL EXE [LIBDIR]: run EXE, a tests/fixtures madmain.c
# program, paused (FIXTURE_PAUSE: it stays, text mapped, until killed),
# with LD_LIBRARY_PATH=LIBDIR; its PID into pid_LABEL and onto the array
# pids (for the caller's cleanup) once it has run through its text (written
# its smaps copy, $WORK/LABEL.smaps).  Reads WORK.
start_paused () {
	local label=$1 exe=$2 n=0
	rm -f "$WORK/$label.smaps"
	LD_LIBRARY_PATH=${3:-} FIXTURE_PAUSE=1 FIXTURE_SMAPS=$WORK/$label.smaps \
		"$exe" alpha >"$WORK/$label.out" 2>&1 &
	local p=$!
	pids+=("$p")
	printf -v "pid_$label" %s "$p"
	while [ ! -s "$WORK/$label.smaps" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	[ -s "$WORK/$label.smaps" ] || hard_error "$label did not come up: $(head -3 "$WORK/$label.out")"
}

# ---------------------------------------------------------------------------
# Padding (run-padding-*.sh): the file padding elfpmd inserts where a
# read-only segment's offset is not congruent with its address modulo the
# PMD size (lld's layout: text at offset 0x870, address 0x1870).

PMD=$((0x200000))
ARGS=(alpha "beta gamma")	# arguments of every fixture run

# The fixtures padded or aligned, one per line:
#   NAME  TARGET  FILE  PROGRAM  PADDED  GDB
# NAME labels the case; TARGET is the make target; FILE is the file
# rewritten; PROGRAM what runs (FILE itself, or a program that loads the
# library FILE from LD_LIBRARY_PATH); PADDED says whether the text segment
# must be "padded and aligned" (yes) or only "aligned" (no); GDB is "full"
# (debug info in FILE), "split" (debug info in TARGET.debug, made before the
# rewrite) or "-".
PADDING_FIXTURES='
lld-pie         lld-pie         lld-pie          lld-pie          yes  -
libbiglld       libbiglld       libbiglld.so     usebig-lld       yes  -
lld-nosections  lld-nosections  lld-nosections   lld-nosections   yes  -
lld-twoseg      lld-twoseg      lld-twoseg       lld-twoseg       yes  -
debug-lld       debug-lld       debug-lld        debug-lld        yes  full
debug-lld-split debug-lld       debug-lld-split  debug-lld-split  yes  split
debug-bfd-split debug-bfd       debug-bfd-split  debug-bfd-split  no   split
static          static          static           static           no   -
'

# for_each_padding_fixture COMMAND...: for each fixture of PADDING_FIXTURES
# that builds, set name target file prog padded gdbmode, the work directory
# w, orig ($w/orig/FILE, a copy of the fixture) and new (where a rewrite
# goes, $w/new/FILE), run COMMAND..., and remove w unless something failed.
# Exits 77 when none builds.
# in_fixture_dir NAME FILE COMMAND...: for the built FILE of fixture NAME,
# set w ($WORK/NAME), orig (a copy of it there) and new (where a rewrite
# goes), run COMMAND..., and remove w unless something failed.
in_fixture_dir () {
	local name=$1 file=$2 before
	shift 2
	w=$WORK/$name orig=$WORK/$name/orig/$file new=$WORK/$name/new/$file
	mkdir -p "$w/orig" "$w/new"
	cp -p "$O/$file" "$orig"
	before=$n_fail
	"$@"
	[ "$n_fail" -eq "$before" ] && rm -rf "$w"
	return 0
}

for_each_padding_fixture () {
	built_any=false
	while read -r name target file prog padded gdbmode <&3; do
		[ -n "$name" ] || continue
		echo "# fixture $name"
		build_or_skip "$name" "$target" || continue
		built_any=true
		in_fixture_dir "$name" "$file" "$@"
	done 3<<<"$PADDING_FIXTURES" </dev/null
	stop_unless_built
}

# pad_rewrite: rewrite a copy of $orig in place at $new with the JSON report
# in $w/real.json; FAIL and return 1 when elfpmd fails.
pad_rewrite () {
	cp -p "$orig" "$new"
	"$ELFPMD" --json "$new" >"$w/real.json" 2>"$w/real.err" && return 0
	fail "$name: elfpmd --json exited non-zero: $(head -3 "$w/real.err")"
	return 1
}

# An awk function (POSIX awk, mawk too) turning phdr-dump's 0x-hex numbers
# into numbers; exact below 2^53, which is plenty for these files.
AWK_HEX='function hex(s,  i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'

# phdr_field FILE TYPE COLUMN: phdr-dump's COLUMN (1 index, 4 offset, 5
# vaddr, 6 filesz, 8 align) of FILE's first program header of TYPE, in
# decimal.
phdr_field () {
	"$PHDR_DUMP" "$1" | awk -v t="$2" -v c="$3" "$AWK_HEX"'
		$2 == t { printf "%.0f\n", c == 1 ? $1 : hex($c); exit }'
}

# text_segment FILE: "INDEX OFFSET VADDR FILESZ ALIGN" of the largest
# executable PT_LOAD of FILE, numbers in decimal.
text_segment () {
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

# check_loader_rules FILE: PASS when loader_rules holds for FILE.  Reads name.
check_loader_rules () {
	local msg
	if msg=$(loader_rules "$1"); then
		pass "$name: AT_PHDR (kernel < 5.18) and p_align congruence (glibc < 2.35) rules hold"
	else
		fail "$name: loader rules broken: $msg"
	fi
}

# second_run_alone FILE: a second elfpmd run on FILE (a rewrite) finds
# nothing to do and does not touch it, not even its mtime.  Reads name, w.
second_run_alone () {
	local copy=$w/second/${1##*/} sig
	mkdir -p "$w/second"
	cp -p "$1" "$copy"
	sig=$(file_signature "$copy")
	if "$ELFPMD" -q "$copy" >"$w/second.log" 2>&1; then
		check "$name: second run leaves bytes, inode and mtime alone" \
			test "$sig" = "$(file_signature "$copy")" -a -z "$(cmp "$1" "$copy" 2>&1)"
	else
		fail "$name: second run exited non-zero: $(head -3 "$w/second.log")"
	fi
}

# dry_run_alone FILE: elfpmd -n --json FILE (into $w/dry.json) exits 0 and
# leaves FILE alone.  Reads name, w.
dry_run_alone () {
	local sig status
	sig=$(file_signature "$1")
	"$ELFPMD" -n --json "$1" >"$w/dry.json" 2>"$w/dry.err"
	status=$?
	check "$name: -n --json exits 0 ($status) and leaves the file alone" \
		test "$status" -eq 0 -a "$sig" = "$(file_signature "$1")"
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

# check_pad_report JSON EXPECT_PADDED ORIG NEW DRYJSON: the report of the
# real rewrite (JSON) agrees with the written file, with the dry run DRYJSON,
# and with what this fixture must get (EXPECT_PADDED yes: the text "padded
# and aligned" with one hole below the PMD size; no: only "aligned").
check_pad_report () {
	python3 - "$@" "$PMD" \
		<("$PHDR_DUMP" "$3" | awk '$2 == "LOAD"') <("$PHDR_DUMP" "$4" | awk '$2 == "LOAD"') <<'EOF_PY'
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
EOF_PY
}

# require_lld_pie: the lld-pie fixture ($O/lld-pie), which the refusal and
# self-test scripts craft their files from, and python3 to craft them, or
# the script is skipped.
require_lld_pie () {
	have python3 && python3 -c 'import json, struct' 2>/dev/null || skip_all "python3 not found: needed to craft the files"
	build_fixture lld-pie || skip_all "the lld-pie fixture does not build here: $(why_unbuildable lld-pie)"
}

# check_refusal FILE CULPRIT CHANGES [SEGMENT]: FILE (crafted so that the
# text's hole cannot go where it is needed) is handled: elfpmd exits 0 with
# -n, -n --json and in place; the file is left alone (CHANGES no), or
# aligned without a hole (aligned), or padded with one hole (hole); the
# text's PT_LOAD (or the read-only one after it, SEGMENT rodata) is reported
# "padding refused" with a reason containing CULPRIT, by both JSON reports
# and by -n.  The checks are labelled with FILE's base name.
check_refusal () {
	local f=$1 culprit=$2 changes=$3 cname=${1##*/} ct_index sig j a why cnt st_n st_nj st_real
	read -r ct_index _ <<<"$(text_segment "$f")"
	if [ "${4:-}" = rodata ]; then
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
}

# BOLT's layout, made without BOLT (tests/fixtures/boltlayout.c after an lld
# link): the program header table, described by PT_PHDR, at the start of a
# later R-X PT_LOAD whose offset and address are the same multiple of 2 MiB
# (p_align 2 MiB), after a text PT_LOAD that lld left incongruent; rustc's
# librustc_driver-*.so is shipped like that.  One fixture per line:
#   NAME  FILE  PROGRAM  KIND
# KIND dso: a shared object (PROGRAM loads it), whose text must be padded
# (ld.so finds its table through PT_PHDR, or the PT_LOAD that holds
# e_phoff, both of which move with it); exe: a program, for which the
# kernel computes AT_PHDR, before 5.18 as first PT_LOAD p_vaddr - p_offset
# + e_phoff, which any hole before the table breaks.
BOLT_FIXTURES='
bolt-lib         libbolt.so         usebolt         dso
bolt-lib-nophdr  libbolt-nophdr.so  usebolt-nophdr  dso
bolt-pie         bolt-pie           bolt-pie        exe
'

# for_each_bolt_fixture KIND COMMAND...: for_each_padding_fixture for the
# BOLT_FIXTURES of KIND (dso, exe or all), with kind set; run_fixture and
# check_original work for them.
for_each_bolt_fixture () {
	local want=$1
	shift
	have python3 || skip_all "python3 not found: it reads the reports"
	built_any=false
	while read -r name file prog kind <&3; do
		[ -n "$name" ] && { [ "$want" = all ] || [ "$want" = "$kind" ]; } || continue
		echo "# bolt fixture $name"
		build_or_skip "$name" "$name" || continue
		built_any=true
		in_fixture_dir "$name" "$file" "$@"
	done 3<<<"$BOLT_FIXTURES" </dev/null
	stop_unless_built
}

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

# bolt_layout_ok: the fixture ($orig) is what boltlayout should make: notes
# table_rule's answer, kept in rule_in; FAIL and return 1 when it is not.
bolt_layout_ok () {
	if rule_in=$(table_rule "$orig"); then
		note "$name: $rule_in"
		return 0
	fi
	fail "$name: the fixture is not what boltlayout should make: $rule_in"
	return 1
}

# bolt_report JSON KIND TEXT: what the report JSON says of the segments:
# for KIND dso, no segment refused or left needing padding, TEXT "padded and
# aligned", every segment the relaxed rule found eligible or incongruent
# aligned (new_align PMD); for KIND exe, TEXT refused for AT_PHDR.  Prints
# the actions; fails with the discrepancies.
bolt_report () {
	python3 - "$@" "$PMD" <<'EOF_PY'
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
EOF_PY
}

# bolt_reports KIND: the dry run's report ($w/dry.json) and the rewrite's
# ($w/real.json) both say what bolt_report KIND wants of the text.
bolt_reports () {
	local j msg t_index what
	read -r t_index _ <<<"$(text_segment "$orig")"
	what="refusal gone, every eligible segment aligned"
	[ "$1" = exe ] && what="the text's padding is still refused for AT_PHDR (a program)"
	for j in dry.json real.json; do
		if msg=$(bolt_report "$w/$j" "$1" "$t_index" 2>&1); then
			pass "$name: $j: $what: $msg"
		else
			fail "$name: $j: ${what%%,*}: $msg"
		fi
	done
}

# The checkers' self-tests (run-padding-selftest-*.sh): a good rewrite
# $w/good of $w/in, damaged into $w/bad, must be refused by phdr-dump
# --bytemap and by elfpmd's own read-back checker (tests/check-output, which
# shares no code with phdr-dump, nor with elfpmd's planner), or the passes
# of the other tests prove nothing.

# damage WHAT PATTERN POKE-ARGS...: a copy of $w/good with POKE-ARGS applied
# must fail --bytemap with a message matching PATTERN, and check_output_rejects.
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

# check_output_rejects WHAT: elfpmd's read-back checker (with the options
# co_opts) accepts $w/good and refuses $w/bad as the rewrite of $w/in.
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

# ---------------------------------------------------------------------------
# Malformed inputs (run-malformed-*.sh): elfpmd fed malformed, truncated and
# non-ELF inputs must never crash, hang, trip a sanitizer, or touch a file
# it refused.  Knobs: MALFORMED_TIMEOUT (seconds per run, default 10),
# MALFORMED_PERCENT (scales the generated cases, default 100).

# malformed_setup: the common start of the run-malformed-*.sh scripts:
# elfpmd and mutate, a C compiler, the sanitizers' exit status 86, the work
# directory (WORK) and where failing inputs are kept (F, in it), and the
# seeds (malformed_seeds).
malformed_setup () {
	require_elfpmd
	[ -x "$MUTATE" ] || hard_error "MUTATE=$MUTATE is not an executable file"
	CC=${CC:-cc}
	have "${CC%% *}" || skip_all "no C compiler ($CC)"
	export ASAN_OPTIONS="exitcode=86:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	TMO=${MALFORMED_TIMEOUT:-10}
	PCT=${MALFORMED_PERCENT:-100}
	work_dir
	F=$WORK/failures
	FAILS=$WORK/fails
	: >"$FAILS"
	malformed_seeds
}

# malformed_seeds: build the seeds the malformed inputs are made from into
# $TESTS_BUILDDIR/malformed-seeds (S), once for every script (under a lock,
# again when lib.sh or a seed's source is newer), and list them in SEEDS
# ("NAME LEVEL"; LEVEL full, normal or light: how many cases are made from
# it).  Seeds: PIE, non-PIE, shared library, static, -m32 and -mx32
# (freestanding when the 32-bit libc is missing), files with 2 MiB of text
# in a segment starting at offset 0 and one with 4 MiB in the default
# layout (so that elfpmd really rewrites them), programs and a library with
# three whole chunks for --madvise, big-endian ppc64/aarch64 and other
# machines cross-linked with clang + ld.lld when present, byte-swapped
# copies made by `mutate swap`, a file without section headers, a separate
# debug file (objcopy --only-keep-debug), a copy of /bin/true.
malformed_seeds () {
	S=$TESTS_BUILDDIR/malformed-seeds
	mkdir -p "$S" || hard_error "cannot create $S"
	( have flock && flock 9; build_malformed_seeds ) 9>>"$S/.lock" || hard_error "could not build seed files with $CC"
	mapfile -t SEEDS <"$S/seeds.list"
	echo "seeds: $(for s in "${SEEDS[@]}"; do printf '%s ' "${s% *}"; done)"
}

# build_malformed_seeds: what malformed_seeds does under its lock (again
# unless another script did it meanwhile).
build_malformed_seeds () {
	local src=$TESTS_SRCDIR/fixtures nosep=-Wl,-z,noseparate-code t triple name level
	CC=${CC:-cc}
	[ "$S/seeds.list" -nt "$TESTS_SRCDIR/lib.sh" ] && [ "$S/seeds.list" -nt "$src/malhello.c" ] \
		&& [ "$S/seeds.list" -nt "$src/malbig.c" ] && [ "$S/seeds.list" -nt "$src/malfreebig.c" ] && [ "$S/seeds.list" -nt "$src/malfree.c" ] && return 0
	: >"$S/seeds.new"
	add_seed () { # NAME LEVEL
		if [ -s "$S/$1" ] && [ "$(head -c 4 "$S/$1" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			echo "$1 $2" >>"$S/seeds.new"
		fi
	}
	seed () { # NAME LEVEL COMPILER-ARGS...
		local name=$1 level=$2
		shift 2
		if "$@" -o "$S/$name" >"$S/$name.log" 2>&1; then
			add_seed "$name" "$level"
		else
			echo "note: seed $name not built: $(head -n 1 "$S/$name.log")"
		fi
	}
	seed pie full $CC -O1 -fPIE -pie "$src/malhello.c"
	seed nopie normal $CC -O1 -fno-pie -no-pie "$src/malhello.c"
	seed shlib normal $CC -O1 -fPIC -shared "$src/malhello.c"
	seed static light $CC -O1 -static "$src/malhello.c"
	seed bigpie full $CC -O1 -fPIE -pie $nosep -DBIG_FILL=2097152 "$src/malbig.c"
	seed bigpie4m light $CC -O1 -fPIE -pie -DBIG_FILL=4194304 "$src/malbig.c"
	seed bignopie normal $CC -O1 -fno-pie -no-pie $nosep -DBIG_FILL=2097152 "$src/malbig.c"
	seed bigshlib normal $CC -O1 -fPIC -shared $nosep -DBIG_FILL=2097152 "$src/malbig.c"
	if $CC -m32 -O1 -o "$S/m32" "$src/malhello.c" >/dev/null 2>&1; then
		add_seed m32 full
	else
		seed m32 full $CC -m32 -O1 -nostdlib -static -ffreestanding -fno-pic "$src/malfree.c"
	fi
	seed bigm32 normal $CC -m32 -O1 -nostdlib -static -ffreestanding -fno-pic \
		$nosep -Wl,-Ttext-segment=0x8000000 "$src/malfreebig.c"
	seed x32 light $CC -mx32 -O1 -nostdlib -static -ffreestanding "$src/malfree.c"
	cp /bin/true "$S/true" && add_seed true normal
	# For --madvise (every case of these seeds runs with it): a PIE and a
	# shared library with three whole 2 MiB chunks of text, in the default
	# layout, and an lld PIE (the program header table grows in place).
	seed madpie normal $CC -O1 -fPIE -pie -DBIG_FILL=8388608 "$src/malbig.c"
	seed madlib normal $CC -O1 -fPIC -shared -DBIG_FILL=8388608 "$src/malbig.c"
	if have clang && have ld.lld; then
		seed madlld normal clang -O1 -fPIE -pie -fuse-ld=lld -DBIG_FILL=8388608 "$src/malbig.c"
		# Big-endian and other machines: one read-execute segment from
		# offset 0 at a 2 MiB-aligned base, so that elfpmd changes them.
		# (lld 14 cannot link big-endian arm32; ppc32 has no PMD size.)
		for t in powerpc64-linux-gnu:ppc64be:normal aarch64_be-linux-gnu:arm64be:normal \
			 powerpc-linux-gnu:ppc32be:light aarch64-linux-gnu:arm64:light \
			 riscv64-linux-gnu:riscv64:light; do
			IFS=: read -r triple name level <<<"$t"
			seed "$name" "$level" clang --target="$triple" -O1 -ffreestanding -nostdlib \
				-static -fuse-ld=lld -Wl,--no-rosegment,--image-base=0x400000 "$src/malfreebig.c"
		done
	else
		echo "note: clang/ld.lld missing: big-endian seeds come from mutate swap only"
	fi
	# Byte-swapped copies (x86-64 headers in big-endian order) always exist.
	"$MUTATE" swap 0 "$S/pie" "$S/pie-swapped" >/dev/null && add_seed pie-swapped normal
	"$MUTATE" swap 0 "$S/bigpie" "$S/bigpie-swapped" >/dev/null && add_seed bigpie-swapped normal
	# No section headers at all (valid; patchelf refuses those).
	"$MUTATE" noshdr 0 "$S/bigpie" "$S/bigpie-noshdr" >/dev/null && add_seed bigpie-noshdr light
	# A separate debug file: skipped without its program headers being
	# checked against the end of the file, so whatever the mutations do to
	# them must still end in a skip or a clean error.
	if have objcopy; then
		objcopy --only-keep-debug "$S/pie" "$S/pie-debug" 2>/dev/null && add_seed pie-debug light
	fi
	[ "$(wc -l <"$S/seeds.new")" -ge 3 ] || return 1
	mv "$S/seeds.new" "$S/seeds.list"
}

# malformed_cases LIST: the generated cases, one line each, "ID SEEDNAME
# MODE MUTSEED ARG", into LIST: truncations (the ELF header byte by byte or
# at a stride, the first KiB at a stride, a bounded, evenly thinned sample
# of table and segment boundaries +-1, a few random offsets), random byte
# flips biased toward the headers, one or several header fields set to
# absurd values (tests/mutate.c).  Deterministic.
malformed_cases () {
	local list=$1 n=0 s name level f size hstep lstep nmax nrand nflip nfield nmulti nt keep i o
	scale () { echo $(( ($1 * PCT + 99) / 100 )); }
	addcase () { n=$((n + 1)); echo "$n $*" >>"$list"; }
	RANDOM=4711
	: >"$list"
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
		{ seq 0 "$hstep" 72; seq 72 "$lstep" 1024; } >"$WORK/offsets.$name"
		"$MUTATE" offsets 0 "$f" - | while read -r o; do
			echo "$o"
			[ "$o" -gt 0 ] && echo $((o - 1))
			echo $((o + 1))
		done | sort -nu | awk -v max="$size" '$1 > 72 && $1 <= max' >"$WORK/offsets.$name.more"
		nt=$(wc -l <"$WORK/offsets.$name.more")
		keep=1
		[ "$nt" -gt "$nmax" ] && keep=$(( (nt + nmax - 1) / nmax ))
		awk -v k="$keep" 'NR % k == 1 || k == 1' "$WORK/offsets.$name.more" >>"$WORK/offsets.$name"
		for ((i = 0; i < nrand; i++)); do echo $(( (RANDOM * 32768 + RANDOM) % size )); done >>"$WORK/offsets.$name"
		while read -r o; do
			[ "$o" -le "$size" ] && addcase "$name" truncate 0 "$o"
		done < <(sort -nu "$WORK/offsets.$name")
		for ((i = 1; i <= nflip; i++)); do addcase "$name" flip "$i" -; done
		for ((i = 0; i < nfield; i++)); do addcase "$name" field "$i" -; done
		for ((i = 0; i < nmulti; i++)); do addcase "$name" fields "$i" -; done
	done
	echo "generated $n case specs"
}

# make_case SEED MODE MUTSEED ARG OUT: write the case to OUT with mutate;
# its exit status (3: the mutation does not apply to this seed).
make_case () {
	if [ "$2" = truncate ]; then
		"$MUTATE" truncate 0 "$S/$1" "$5" "$4"
	elif [ "$4" = - ]; then
		"$MUTATE" "$2" "$3" "$S/$1" "$5"
	else
		"$MUTATE" "$2" "$3" "$S/$1" "$5" "$4"
	fi
}

# mal_tool OUTPREFIX ARGS...: run elfpmd ARGS... under timeout; its exit
# status in RC, its stderr in ERR (and OUTPREFIX.err), its stdout in
# OUTPREFIX.out.  Exit 2 (a file for a machine without a known PMD size,
# nothing else failed) is a refusal with the same promises as 1 (one line
# on stderr, the file untouched): counted as 1.
mal_tool () {
	local pfx=$1
	shift
	timeout -k 2 "$TMO" "$ELFPMD" "$@" >"$pfx.out" 2>"$pfx.err"
	RC=$?
	ERR=
	IFS= read -r -d '' ERR <"$pfx.err"
	[ "$RC" = 2 ] && RC=1
	return 0
}

# mal_status_ok RC ERR: whether the run itself is good; else the reason in
# BAD: a sanitizer report, an internal error (the planner and its checker
# disagreeing: a hostile input must be refused for what it is, or
# handled), a crash, a hang, an exit status other than 0 and 1.
mal_status_ok () {
	local rc=$1 err=$2
	BAD=
	case $err in
	*AddressSanitizer* | *LeakSanitizer* | *"runtime error"* | *UndefinedBehaviorSanitizer*)
		BAD="sanitizer report (exit $rc)"
		return 1 ;;
	*"internal error"*)
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

# mal_one_line ERR FILE: ERR is exactly one line `elfpmd: FILE: ...`.
mal_one_line () {
	local err=$1 file=$2 body
	body=${err%$'\n'}
	[[ $err == *$'\n' ]] || return 1
	[[ $body != *$'\n'* ]] || return 1
	[[ $body == "elfpmd: $file: "?* ]] || return 1
	return 0
}

# mal_only_files DIR NAME...: DIR holds exactly those names (no temporary
# file left behind).
mal_only_files () {
	local d=$1 f n=0
	shift
	local -a there=("$d"/* "$d"/.[!.]* "$d"/..?*)
	for f in "${there[@]}"; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		n=$((n + 1))
	done
	[ "$n" -eq $# ] || return 1
	for f; do [ -e "$d/$f" ] || return 1; done
	return 0
}

# mal_expect_exit1 FILE: for a run (RC and ERR, see mal_tool) that must
# fail cleanly on FILE, append to the caller's reasons what is wrong with
# it: a bad run, an exit status other than 1, or stderr other than one line
# `elfpmd: FILE: reason`.
mal_expect_exit1 () {
	if ! mal_status_ok "$RC" "$ERR"; then
		reasons+="$BAD"$'\n'
	elif [ "$RC" != 1 ]; then
		reasons+="exit $RC, expected 1"$'\n'
	else
		mal_one_line "$ERR" "$1" || reasons+="stderr is not one line 'elfpmd: $1: reason': $(printf %q "$ERR")"$'\n'
	fi
}

# mal_record ID DESC CASEFILE REASONS: keep the failing input as
# $F/case-ID.elf with the reasons in $F/case-ID.txt, and append them to
# $FAILS.
mal_record () {
	mkdir -p "$F"
	[ -f "$3" ] && cp "$3" "$F/case-$1.elf"
	{
		echo "case $1: $2"
		echo "$4" | sed 's/^/  - /'
		echo "  input kept as $F/case-$1.elf"
	} | tee -a "$FAILS" >"$F/case-$1.txt"
}

# mal_count ID DESC CASEFILE REASONS: PASS DESC when REASONS is empty, else
# FAIL it with the reasons, and mal_record it.
mal_count () {
	if [ -z "$4" ]; then
		pass "$2"
		return 0
	fi
	fail "$2"
	printf '%s' "$4" | sed 's/^/      /'
	mal_record "$@"
	return 1
}

# mal_case ID DESC CASEFILE WORKDIR SYNCFLAG [prepared]: run elfpmd three
# times on the case CASEFILE (with the options XOPTS, word-split on
# purpose): in place, -n --json (its stdout kept in $WORK/json/ID.out for
# mal_check_json) and -o OUT.  Each run exits 0 or 1 and no worse (see
# mal_status_ok); on 1, stderr is exactly one line `elfpmd: FILE: reason`
# and -o left no output; no temporary file is left; mutate verify checks
# the contents (the in-place result against CHECKMODE, strict: only p_align
# fields raised, to a larger power of two keeping p_vaddr congruent with
# p_offset, and the build-id (a new one of the same length); loose: may grow, then phdr-dump --bytemap checks it; the inputs
# of -n and -o untouched; -o's output the in-place result); the three runs
# agree on the status.  Appends "ID RC1 RC2" to $RCS; on failure
# mal_records it and returns 1.  "prepared": WORKDIR/in-place.elf and
# WORKDIR/dry.elf already hold copies of CASEFILE.
XOPTS= CHECKMODE=loose
mal_case () {
	local id=$1 desc=$2 c=$3 d=$4 syncflag=$5 prepared=${6:-}
	local reasons="" rc1 rc2 rc3 e1 e2 e3 line
	local t=$d/in-place.elf n=$d/dry.elf o=$d/out.elf
	[ -d "$d" ] || mkdir -p "$d"
	[ -d "$WORK/json" ] || mkdir -p "$WORK/json"
	if [ -z "$prepared" ]; then
		cp "$c" "$t" && cp "$c" "$n"
	fi
	# shellcheck disable=SC2086
	mal_tool "$d.1" $XOPTS $syncflag "$t"
	rc1=$RC e1=$ERR
	if ! mal_status_ok "$rc1" "$e1"; then
		reasons+="in place: $BAD"$'\n'
	elif [ "$rc1" = 1 ]; then
		mal_one_line "$e1" "$t" || reasons+="in place: exit 1 but stderr is not one line 'elfpmd: $t: reason': $(printf %q "$e1")"$'\n'
	fi
	mal_only_files "$d" in-place.elf dry.elf || reasons+="in place: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'

	# shellcheck disable=SC2086
	mal_tool "$WORK/json/$id" $XOPTS -n --json "$n"
	rc2=$RC e2=$ERR
	if ! mal_status_ok "$rc2" "$e2"; then
		reasons+="-n --json: $BAD"$'\n'
	elif [ "$rc2" = 1 ]; then
		mal_one_line "$e2" "$n" || reasons+="-n --json: exit 1 but stderr is not one line 'elfpmd: $n: reason': $(printf %q "$e2")"$'\n'
	fi
	mal_only_files "$d" in-place.elf dry.elf || reasons+="-n --json: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'

	# shellcheck disable=SC2086
	mal_tool "$d.3" $XOPTS -o "$o" "$n"
	rc3=$RC e3=$ERR
	if ! mal_status_ok "$rc3" "$e3"; then
		reasons+="-o: $BAD"$'\n'
	elif [ "$rc3" = 1 ]; then
		mal_one_line "$e3" "$n" || reasons+="-o: exit 1 but stderr is not one line 'elfpmd: $n: reason': $(printf %q "$e3")"$'\n'
		[ -e "$o" ] && reasons+="-o: exit 1 but the output file exists"$'\n'
	fi
	if [ "$rc3" = 0 ]; then
		mal_only_files "$d" in-place.elf dry.elf out.elf || reasons+="-o: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'
	else
		mal_only_files "$d" in-place.elf dry.elf || reasons+="-o: files left behind: $(ls -A "$d" | tr '\n' ' ')"$'\n'
	fi

	if ! "$MUTATE" verify 0 "$c" "$d" "$rc1,$rc3,$CHECKMODE" >"$d.v" 2>&1; then
		while IFS= read -r line; do reasons+="$line"$'\n'; done <"$d.v"
	fi
	# A rewrite that moved contents: every byte where the map says, holes
	# zero, both loader rules kept.  (Not after --madvise: the stub adds a
	# program header and sections, which the byte map does not describe;
	# run-madvise-structure.sh checks such files structurally.)
	if [ "$rc1" = 0 ] && [ "$CHECKMODE" = loose ] && [ "$XOPTS" != --madvise ] && ! cmp -s "$c" "$t" \
		&& ! "$PHDR_DUMP" --bytemap "$c" "$t" >"$d.bm" 2>&1; then
		reasons+="in place: byte map broken: $(grep -v '^bytemap ok' "$d.bm" | head -3 | tr '\n' ' ')"$'\n'
	fi
	if [[ $rc1$rc2$rc3 =~ ^[01]{3}$ ]] && { [ "$rc1" != "$rc2" ] || [ "$rc1" != "$rc3" ]; }; then
		reasons+="inconsistent exit statuses: in place $rc1, -n $rc2, -o $rc3"$'\n'
	fi
	echo "$id $rc1 $rc2" >>"$RCS"
	if [ -n "$reasons" ]; then
		reasons+="stderr (in place): $(printf %q "$e1")"
		mal_record "$id" "$desc" "$c" "$reasons"
		rm -rf "$d"
		return 1
	fi
	return 0
}

# mal_check_json: every -n --json output of the cases ($WORK/json/ID.out)
# is one JSON object with "file" per line, or nothing when that run failed
# (its status from the $WORK/rcs.* files); one PASS or a FAIL per bad one.
mal_check_json () {
	have python3 || { note "python3 missing, JSON not validated"; return 0; }
	if python3 - "$WORK" >"$WORK/json.report" 2>&1 <<'EOF_PY'
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
EOF_PY
	then
		pass "-n --json: $(tail -n 1 "$WORK/json.report")"
	else
		while read -r line; do fail "$line"; done < <(grep '^case ' "$WORK/json.report" | head -n 50)
		mkdir -p "$F"
		cp "$WORK/json.report" "$F/json.report"
	fi
}

# malformed_finish: finish, keeping the work directory (with the failing
# inputs under failures/) when something failed or MALFORMED_KEEP=1.
malformed_finish () {
	if [ "$n_fail" -gt 0 ]; then
		echo "failing inputs kept under $F"
	elif [ "${MALFORMED_KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"
	fi
	finish
}

# ---------------------------------------------------------------------------
# --madvise (run-madvise-*.sh): the startup stub that gets the aligned text
# onto PMD (2 MiB) pages at run time, on programs and a shared library with
# 17 MiB of text (tests/fixtures madbig.S), one per line:
#   NAME  TARGET  FILE  PROGRAM  HOOK
# TARGET is the tests/fixtures/Makefile target; FILE the file rewritten;
# PROGRAM what runs (FILE itself, or a program that loads the library FILE
# from LD_LIBRARY_PATH); HOOK how the stub must be hooked (the start of the
# report's "hook").
MAD_FIXTURES='
pie         mad-pie         mad-pie         mad-pie         e_entry
nopie       mad-nopie       mad-nopie       mad-nopie       e_entry
static-pie  mad-static-pie  mad-static-pie  mad-static-pie  e_entry
lib         mad-lib         libmadbig.so    usemadbig       DT_INIT
lld-pie     mad-lld-pie     mad-lld-pie     mad-lld-pie     e_entry
'
MIN_PERCENT=95		# coverage required in every cache state

# madvise_setup [cache]: the common start of the run-madvise-*.sh scripts:
# elfpmd, python3, the work directory; with "cache" (a script that
# measures what the page cache gives): root, THP, the page-cache lock, the
# helpers (PAGECACHE, fixtures/pagecache.c; THP_OFF, fixtures/thp-off.c)
# and file THP working on the build tree's file system (probed
# independently of elfpmd), or the script is skipped.
madvise_setup () {
	require_elfpmd
	if [ "${1:-}" = cache ]; then
		require_root_thp "drop_caches for the cold and order-0 cache states, /proc/kpageflags"
		page_cache_lock
	fi
	have python3 || skip_all "python3 not found (reads the JSON report and the files' bytes)"
	work_dir
	[ "${1:-}" = cache ] || return 0
	build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c, thp-off.c): $(tail -1 "$O/mad-tools.log")"
	PAGECACHE=$O/pagecache
	THP_OFF=$O/thp-off
	require_file_thp "$WORK"
}

# for_each_mad_fixture COMMAND...: for each fixture of MAD_FIXTURES that
# builds and whose original runs (check_original), set name target file
# prog hook, w (its work directory), dir ($w/rewritten) and r ($dir/FILE),
# a copy of the original at $w/orig/FILE, then run COMMAND... and remove w
# unless something failed.  Exits 77 when none builds.
for_each_mad_fixture () {
	local before
	built_any=false
	while read -r name target file prog hook <&3; do
		[ -n "$name" ] || continue
		echo "# fixture $name"
		# (why_unbuildable knows the toolchain needs of the classic
		# targets that the mad-* ones mirror)
		if ! build_fixture "$target"; then
			skip "$name: cannot build it here: $(why_unbuildable "${target#mad-}") (log: $O/$target.log)"
			tail -3 "$O/$target.log" | sed 's/^/      /'
			continue
		fi
		built_any=true
		w=$WORK/$name dir=$WORK/$name/rewritten r=$WORK/$name/rewritten/$file
		mkdir -p "$w/orig" "$dir"
		cp -p "$O/$file" "$w/orig/$file"
		before=$n_fail
		check_original
		$can_run && "$@"
		[ "$n_fail" -eq "$before" ] && rm -rf "$w"
	done 3<<<"$MAD_FIXTURES" </dev/null
	stop_unless_built
}

# mad_rewrite: rewrite a copy of the original into $r with elfpmd -q
# --madvise; FAIL and return 1 when it fails.
mad_rewrite () {
	cp -p "$w/orig/$file" "$r"
	"$ELFPMD" -q --madvise "$r" >"$w/rewrite.log" 2>&1 && return 0
	fail "$name: elfpmd -q --madvise failed: $(head -3 "$w/rewrite.log")"
	return 1
}

# run_as DIR OUT [WRAPPER...]: run the current fixture with the file in DIR,
# under WRAPPER... when given; stdout and "exit status N" into OUT, stderr
# into OUT.err.  The library is found through LD_LIBRARY_PATH=DIR.  Reads
# prog, file, ARGS, O.
run_as () {
	local dir=$1 out=$2 exe status
	shift 2
	if [ "$prog" = "$file" ]; then exe=$dir/$file; else exe=$O/$prog; fi
	# (the group's 2>/dev/null keeps bash's "Segmentation fault" notice off
	# the log; the status says it)
	{ LD_LIBRARY_PATH=$dir timeout 60 "$@" "$exe" "${ARGS[@]}" >"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# same_output OUT WHAT: OUT is what the original printed; PASS or FAIL.
same_output () {
	if cmp -s "$w/orig.out" "$1"; then
		pass "$name: $2: prints the same and exits 42"
		return 0
	fi
	fail "$name: $2: prints something else than the original"
	diff "$w/orig.out" "$1" | head -10 | sed 's/^/      /'
	sed 's/^/      stderr: /' "$1.err" | head -5
	return 1
}

# coverage STATE DIR OBJECT [WRAPPER...]: run the fixture with the file in
# DIR (under WRAPPER...), taking its smaps copy; then stub_coverage.
coverage () {
	local state=$1 dir=$2 object=$3
	shift 3
	rm -f "$w/smaps.$state"
	FIXTURE_SMAPS=$w/smaps.$state run_as "$dir" "$w/$state.out" "$@"
	stub_coverage "$state" "$object"
}

# stub_coverage STATE OBJECT: the run STATE (its output $w/STATE.out, its
# smaps copy $w/smaps.STATE) printed what the original prints, and
# FilePmdMapped of OBJECT is at least MIN_PERCENT of the ideal (whole 2 MiB
# chunks of the text).
stub_coverage () {
	local state=$1 object=$2 smaps=$w/smaps.$1 kb want ideal
	same_output "$w/$state.out" "$state run" || return 0
	if [ ! -s "$smaps" ]; then fail "$name: $state: the program wrote no smaps copy"; return 0; fi
	ideal=$(ideal_chunks "$object")
	want=$((ideal * PMD / 1024))
	kb=$(pmd_kb "$smaps" "$object")
	if [ "$want" -eq 0 ]; then
		fail "$name: $state: no whole PMD chunk in the text to measure"
	elif [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
		pass "$name: $state: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))%"
	else
		fail "$name: $state: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))% < $MIN_PERCENT%"
		awk -v ino="$(stat -c %i "$object")" '/^[0-9a-f]+-[0-9a-f]+ / { cur = $5 == ino; if (cur) hdr = $0; next }
			cur && $1 == "FilePmdMapped:" { print "      " hdr "  FilePmdMapped " $2 " kB" }' "$smaps"
	fi
}

# coverage_concurrent N DIR OBJECT: N runs of the fixture started at once
# (states concurrent1 to concurrentN), each checked by stub_coverage.  When
# one falls short, the order-0 state is made again and the N runs repeated
# once, and only that second round counts, the first one noted (never when
# a run printed something else than the original): on a loaded machine a
# start that repairs can be preempted past the 15 ms the others wait for it
# to finish one more chunk (elfpmd-stub(7), SECURITY), and the three then repair
# at once; twice in a row is a failure.
coverage_concurrent () {
	local count=$1 dir=$2 object=$3 k round short kb want
	for round in 1 2; do
		local pids=()
		for ((k = 1; k <= count; k++)); do
			rm -f "$w/smaps.concurrent$k"
			FIXTURE_SMAPS=$w/smaps.concurrent$k run_as "$dir" "$w/concurrent$k.out" &
			pids+=($!)
		done
		wait "${pids[@]}"
		short=
		# A run that printed something else is never run again: it fails.
		for ((k = 1; k <= count; k++)); do
			cmp -s "$w/orig.out" "$w/concurrent$k.out" || break 2
		done
		for ((k = 1; k <= count; k++)); do
			want=$(($(ideal_chunks "$object") * PMD / 1024))
			kb=$(pmd_kb "$w/smaps.concurrent$k" "$object" 2>/dev/null)
			[ $((${kb:-0} * 100)) -ge $((want * MIN_PERCENT)) ] || short="$short concurrent$k:${kb:-0}/$want"
		done
		[ -z "$short" ] && break
		[ "$round" = 1 ] || break
		note "$name: $count at once, first round short ($short kB): made the order-0 state again, once more"
		drop_caches
		"$PAGECACHE" order0 "$object" >/dev/null 2>&1
	done
	for ((k = 1; k <= count; k++)); do
		stub_coverage "concurrent$k" "$object"
	done
}

# coverage_small_folios DIR FRESH: the states the stub repairs, for the
# current fixture's file in DIR ($r): cached in order-0 folios (the note
# says whether the state was reached); a copy just written into FRESH in
# 4 KiB writes, as a package manager may write it (its pages are dirty
# order-0 folios, which cannot be dropped before they are written back);
# three copies of the program started at once on an order-0 cache (each
# must get its text PMD-mapped, not keep the others' small folios alive).
coverage_small_folios () {
	local dir=$1 fresh=$2 o0
	drop_caches
	o0=$("$PAGECACHE" order0 "$r" 2>&1)
	note "$name: $o0"
	case $o0 in *" 0 in large folios") ;; *) note "$name: order-0 state not reached: some pages are in large folios" ;; esac
	coverage order-0 "$dir" "$r"
	mkdir -p "$fresh"
	dd if="$r" of="$fresh/$file" bs=4k status=none
	chmod 755 "$fresh/$file"
	coverage fresh "$fresh" "$fresh/$file"
	drop_caches
	"$PAGECACHE" order0 "$r" >/dev/null 2>&1
	coverage_concurrent 3 "$dir" "$r"
}

# xfs_mount DIR SIZE: an xfs image of SIZE made in DIR and mounted at
# DIR/xfs.mnt (MNTED; LOOPDEV its loop device, ext4_umount added to
# CLEANUP undoes it), with Linux's default read-ahead of 128 KiB; or
# prints why not and fails.
xfs_mount () {
	LOOPIMG=$1/xfs.img
	have mkfs.xfs && have losetup || { echo "mkfs.xfs or losetup not found"; return 1; }
	CLEANUP+=("ext4_umount")
	truncate -s "$2" "$LOOPIMG" && mkfs.xfs -q "$LOOPIMG" >"$LOOPIMG.log" 2>&1 || { echo "mkfs.xfs failed: $(tail -1 "$LOOPIMG.log")"; return 1; }
	LOOPDEV=$(losetup --find --show "$LOOPIMG" 2>"$LOOPIMG.log") || { LOOPDEV=; echo "no loop device: $(tail -1 "$LOOPIMG.log")"; return 1; }
	mkdir -p "$1/xfs.mnt"
	mount "$LOOPDEV" "$1/xfs.mnt" 2>"$LOOPIMG.log" || { echo "mount failed: $(tail -1 "$LOOPIMG.log")"; return 1; }
	MNTED=$1/xfs.mnt
	echo 128 >"/sys/block/${LOOPDEV##*/}/queue/read_ahead_kb" 2>/dev/null || :
}

# ---------------------------------------------------------------------------
# The stub's tests (run-invisible-*.sh, run-copy-*.sh): each checks one
# behaviour of a program rewritten by elfpmd --madvise (or --madvise=copy)
# against the original's, over fixtures built once for all of them
# (tests/fixtures/Makefile: inv.S, 17 MiB of text whose exported mid()
# lies in a whole 2 MiB chunk; madbig.S; the tools).  Each works in a
# directory of its own, WORK, kept when something failed.

STUB_BUILD=$TESTS_BUILDDIR/stub-build

# stub_fixture TARGET...: build the tests/fixtures/Makefile TARGETs into
# $STUB_BUILD/fixtures (O, which build_fixture reads), shared by the stub's
# tests: make builds only what is missing or out of date, one script at a
# time.  Skips the script when a TARGET does not build here.
stub_fixture () {
	local t
	O=$STUB_BUILD/fixtures
	mkdir -p "$O" || hard_error "cannot create $O"
	for t; do
		# (the outer lock keeps the log of a build that another script
		# waits for whole: build_fixture opens it before its own lock)
		{ flock 9 2>/dev/null; build_fixture "$t"; } 9>>"$O/.fixtures.lock" \
			|| skip_all "cannot build the fixture $t here: $(why_unbuildable "$t") (log: $O/$t.log)"
	done
}

# stub_test_start [WHY]: what each of the stub's tests does first: cleanup
# on exit (CLEANUP), the tool, x86-64 (the fixtures, the seccomp filters
# and the patches are x86-64 code), python3 (reads the JSON reports), a
# fresh WORK ($STUB_BUILD/NAME, NAME the script's), phdr-dump, and the
# page cache helpers PAGECACHE and THP_OFF (fixtures pagecache.c,
# thp-off.c).  With WHY, also root for WHY with transparent huge pages
# (require_root_thp) and the page-cache lock.  Sets PMD, MIN_PERCENT (the
# coverage asserted where it is) and ARGS (every program run's arguments).
stub_test_start () {
	PMD=$((0x200000))
	MIN_PERCENT=95
	ARGS=(alpha "beta gamma")
	WORK=$STUB_BUILD/$(basename "$0" .sh)
	cleanup_on_exit
	require_elfpmd
	[ "$(uname -m)" = x86_64 ] || skip_all "the stub's fixtures are x86-64 code"
	have python3 || skip_all "python3 not found (reads the JSON reports)"
	if [ $# -gt 0 ]; then
		require_root_thp "$1"
		page_cache_lock
	fi
	rm -rf "$WORK"
	mkdir -p "$WORK" || hard_error "cannot create $WORK"
	require_phdr_dump "$WORK/tools"
	stub_fixture mad-tools
	PAGECACHE=$O/pagecache THP_OFF=$O/thp-off
}

# invisible_start WHY: stub_test_start WHY, and file THP working on WORK's
# file system (require_file_thp), where the stub of a rewrite must leave
# no trace but PMD-mapped text.
invisible_start () {
	stub_test_start "$1"
	require_file_thp "$WORK"
}

# stub_finish: undo what CLEANUP holds, remove WORK when nothing failed,
# print the summary and exit (finish).
stub_finish () {
	run_cleanup
	[ "$n_fail" -eq 0 ] && rm -rf "$WORK"
	finish
}

# require_strace: strace, or the script is skipped.
require_strace () { have strace || skip_all "strace not found (Debian: strace)"; }

# stub_json FILE: the "stub" object of elfpmd -n --json --madvise FILE, as
# "injected present reason" (one line, reason last).
stub_json () {
	"$ELFPMD" -n --json --madvise "$1" 2>/dev/null | python3 -c '
import json, sys
try:
    s = json.loads(sys.stdin.read().splitlines()[0]).get("stub") or {}
except (ValueError, IndexError) as e:
    print("error error no JSON report: %s" % e)
    sys.exit()
print("%s %s %s" % (str(s.get("injected")).lower(), str(s.get("present")).lower(), s.get("reason", "")))'
}

# madvise_rewrite IN OUT: elfpmd -q --madvise -o OUT IN, which must inject
# the stub (FAIL otherwise).
madvise_rewrite () {
	local injected present reason
	mkdir -p "$(dirname "$2")"
	if ! "$ELFPMD" -q --madvise -o "$2" "$1" >"$2.log" 2>&1; then
		fail "elfpmd -q --madvise ${1##*/}: $(head -2 "$2.log")"
		return 1
	fi
	read -r injected present reason <<<"$(stub_json "$2")"
	[ "$present" = true ] && return 0
	fail "elfpmd -q --madvise ${1##*/}: no stub in the result ($injected $present $reason)"
	return 1
}

# stub_refused WHAT ORIG WORD RESULT: elfpmd -n --json --madvise ORIG says
# the stub is not injected, for a reason with WORD in it; elfpmd -q
# --madvise -o RESULT ORIG exits 0 and RESULT has no stub.
stub_refused () {
	local what=$1 orig=$2 word=$3 res=$4 injected present reason
	read -r injected present reason <<<"$(stub_json "$orig")"
	if [ "$injected" = false ] && [[ $reason == *"$word"* ]]; then
		pass "$what: -n --json --madvise: stub not injected: $reason"
	else
		fail "$what: -n --json --madvise: injected $injected, reason \"$reason\" (expected false, a reason naming $word)"
	fi
	mkdir -p "$(dirname "$res")"
	if ! "$ELFPMD" -q --madvise -o "$res" "$orig" >"$res.log" 2>&1; then
		fail "$what: elfpmd -q --madvise exits non-zero: $(head -2 "$res.log")"
		return 1
	fi
	pass "$what: elfpmd -q --madvise exits 0"
	read -r injected present reason <<<"$(stub_json "$res")"
	if [ "$present" = false ]; then
		pass "$what: the result has no stub"
	else
		fail "$what: the result has a stub (present $present)"
	fi
}

# same_in_states WHAT REF FILE COMMAND...: COMMAND (which runs FILE) prints
# what REF holds (run_logged), from a cold, a warm and an order-0 page
# cache of FILE.
same_in_states () {
	local what=$1 ref=$2 file=$3 s
	shift 3
	for s in cold warm order-0; do
		cache_state $s "$file" "$@"
		run_logged "$ref.$s" "$@"
		same "$ref" "$ref.$s" "$what, $s"
	done
}

# inv_fixture pie|static-pie|lib: the inv.S fixture copied into WORK/orig
# and rewritten by elfpmd -q --madvise into WORK/mad: P_ORIG and P_MAD
# (the PIE), S_ORIG and S_MAD (the static PIE), or L_ORIG and L_MAD (the
# library) with INVDL, which dlopens it.  For the PIE and the library, the
# original's run, WORK/pie.ref or WORK/lib.ref, must exit 42.  Stops the
# script with a FAIL when the rewrite or that run does not work.
inv_fixture () {
	local orig ref=
	case $1 in
	pie) stub_fixture inv-pie; P_ORIG=$WORK/orig/inv-pie P_MAD=$WORK/mad/inv-pie; orig=$P_ORIG ;;
	static-pie) stub_fixture inv-static-pie; S_ORIG=$WORK/orig/inv-static-pie S_MAD=$WORK/mad/inv-static-pie; orig=$S_ORIG ;;
	lib) stub_fixture inv-lib; L_ORIG=$WORK/orig/libinv.so L_MAD=$WORK/mad/libinv.so INVDL=$O/invdl; orig=$L_ORIG ;;
	*) hard_error "inv_fixture: unknown fixture $1" ;;
	esac
	mkdir -p "$WORK/orig"
	cp -p "$O/${orig##*/}" "$orig" || hard_error "cannot copy $O/${orig##*/}"
	madvise_rewrite "$orig" "$WORK/mad/${orig##*/}" || finish
	case $1 in
	pie) ref=$WORK/pie.ref; run_logged "$ref" "$P_ORIG" "${ARGS[@]}" ;;
	lib) ref=$WORK/lib.ref; run_logged "$ref" "$INVDL" "$L_ORIG" 1 ;;
	esac
	if [ -n "$ref" ] && [ "$(tail -1 "$ref")" != "exit status 42" ]; then
		fail "${orig##*/}: the original does not run here ($(tail -1 "$ref"))"
		finish
	fi
}

# cache_order0 FILE...: each FILE evicted from the page cache, then cached
# whole in 4 KiB folios (the order-0 state, where the stub repairs); a
# file that did not get there is noted.
cache_order0 () {
	local f msg
	for f in "$@"; do
		"$PAGECACHE" evict "$f" >/dev/null 2>&1
		msg=$("$PAGECACHE" order0 "$f" 2>&1)
		case $msg in
		*" 0 in large folios" | *"? in large folios") ;;
		*) note "order-0 state of ${f##*/} not reached: $msg" ;;
		esac
	done
}

# cache_state cold|warm|order-0 FILE [COMMAND...]: FILE in that page cache
# state: cold, the whole cache dropped (drop_caches); warm, after two runs
# of COMMAND (default: FILE); order-0 (cache_order0).
cache_state () {
	local s=$1 f=$2
	shift 2
	[ $# -gt 0 ] || set -- "$f"
	case $s in
	cold) drop_caches ;;
	warm) run_logged "$WORK/warmup" "$@"; run_logged "$WORK/warmup" "$@" ;;
	order-0) cache_order0 "$f" ;;
	*) hard_error "cache_state: unknown state $s" ;;
	esac
}

# pmd_coverage SMAPS OBJECT: "KB WANT IDEAL": OBJECT's FilePmdMapped in the
# smaps copy SMAPS (kB), the ideal in kB and in whole chunks.
pmd_coverage () {
	local ideal
	ideal=$(ideal_chunks "$2")
	echo "$(pmd_kb "$1" "$2") $((ideal * PMD / 1024)) $ideal"
}

# check_pmd_coverage WHAT SMAPS OBJECT: OBJECT's FilePmdMapped in SMAPS is
# at least MIN_PERCENT of the ideal.
check_pmd_coverage () {
	local kb want ideal
	if [ ! -s "$2" ]; then fail "$1: the program wrote no smaps copy"; return; fi
	read -r kb want ideal <<<"$(pmd_coverage "$2" "$3")"
	if [ "$want" -eq 0 ]; then
		fail "$1: no whole PMD chunk in the text to measure"
	elif [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
		pass "$1: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))%"
	else
		fail "$1: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))% < $MIN_PERCENT%"
	fi
}

# note_mid_coverage WHAT SMAPS OBJECT: OBJECT's FilePmdMapped in SMAPS,
# noted, not asserted, beside the ideal without mid's chunk: where a
# debugger or a patch has made a page of that chunk anonymous.
note_mid_coverage () {
	local kb want ideal
	[ -s "$2" ] || return 0
	read -r kb want ideal <<<"$(pmd_coverage "$2" "$3")"
	[ "$want" -gt 0 ] || return 0
	note "$1: FilePmdMapped $kb kB of $want kB ideal ($((kb * 100 / want))%; $(((ideal - 1) * PMD / 1024)) kB without mid's chunk)"
}

# strace_calls LOG CALL...: the lines of LOG (strace -f -o) that start a
# call to one of CALL.
strace_calls () {
	local log=$1 re
	shift
	re=$(IFS='|'; echo "$*")
	grep -E "^[0-9]+ +($re)\(" "$log"
}

# strace_sleep_ns LOG: the nanoseconds that the nanosleep and
# clock_nanosleep calls in LOG asked for, in all.
strace_sleep_ns () {
	strace_calls "$1" nanosleep clock_nanosleep | awk '
		{ if (match($0, /tv_sec=[0-9]+, tv_nsec=[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), a, /[=,]/)
			ns += a[2] * 1000000000 + a[4] } }
		END { printf "%d\n", ns }'
}

# check_sleeps WHAT LOG MAX: the sleeps in the strace LOG ask for at most
# MAX nanoseconds in all.
check_sleeps () {
	local ns calls
	ns=$(strace_sleep_ns "$2")
	calls=$(strace_calls "$2" nanosleep clock_nanosleep | wc -l)
	if [ "$ns" -le "$3" ]; then
		pass "$1: sleeps $((ns / 1000)) us in all ($calls calls) <= $(($3 / 1000000)) ms"
	else
		fail "$1: sleeps $((ns / 1000)) us in all ($calls calls) > $(($3 / 1000000)) ms"
	fi
}

# symbol_file_offset FILE SYMBOL: the file offset (0x...) of the address of
# SYMBOL, from FILE's dynamic symbols and program headers.
symbol_file_offset () {
	local va
	va=$(nm -D --defined-only "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$va" ] || return 1
	"$PHDR_DUMP" "$1" | awk -v va="$va" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && hex(va) >= hex($5) && hex(va) < hex($5) + hex($6) {
			printf "0x%x\n", hex($4) + hex(va) - hex($5); exit }'
}

# gdb_mid FILE OUT: FILE (with ARGS) under gdb -batch with a breakpoint in
# mid, run and continued; the program's output and exit status into OUT,
# its standard error into OUT.err, gdb's output into OUT.gdb, the program's
# smaps copy into OUT.smaps; prints the breakpoint's hits.
gdb_mid () {
	local file=$1 out=$2 status args
	rm -f "$out.smaps"
	# (run's own arguments replace --args': the arguments, quoted for the
	# shell that starts the program, then the redirections)
	args=$(printf '%q ' "${ARGS[@]}")
	FIXTURE_SMAPS=$out.smaps timeout -k 5 120 gdb -batch -nx -ex 'break mid' \
		-ex "run $args>'$out' 2>'$out.err'" -ex continue -ex continue -ex continue -ex continue \
		"$file" >"$out.gdb" 2>&1 </dev/null
	status=$(sed -n 's/^\[Inferior 1 (process [0-9]*) exited with code \([0-7]*\)\]$/\1/p; s/^\[Inferior 1 (process [0-9]*) exited normally\]$/0/p' "$out.gdb" | tail -1)
	[ -n "$status" ] && status=$((8#$status))
	echo "exit status ${status:-(did not exit under gdb)}" >>"$out"
	grep -c '^Breakpoint 1, .* in mid ' "$out.gdb"
}

# tracefs_find: TRACE, a tracefs with uprobe_events: the one mounted, or,
# when none is, one mounted on WORK/tracefs (unmounted on exit); else
# print why not and fail.
TRACE=
tracefs_find () {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/uprobe_events" ] && { TRACE=$d; return 0; }
	done
	grep -qw tracefs /proc/filesystems || { echo "no tracefs in this kernel"; return 1; }
	mkdir -p "$WORK/tracefs"
	mount -t tracefs nodev "$WORK/tracefs" 2>/dev/null || { echo "cannot mount tracefs"; return 1; }
	CLEANUP+=("umount '$WORK/tracefs'")
	[ -e "$WORK/tracefs/uprobe_events" ] || { echo "kernel without uprobe events (CONFIG_UPROBE_EVENTS)"; return 1; }
	TRACE=$WORK/tracefs
}

# uprobe_add EVENT FILE SYMBOL: a uprobe elfpmd_test/EVENT on SYMBOL in
# FILE (in TRACE), removed on exit; when the kernel refuses it, print why
# and fail.  SYMBOL not found in FILE is a FAIL that stops the script.
uprobe_add () {
	local off
	off=$(symbol_file_offset "$2" "$3")
	[ -n "$off" ] || { fail "uprobe: cannot find $3's file offset in ${2##*/} (nm -D, phdr-dump)"; finish; }
	echo "p:elfpmd_test/$1 $2:$off" >>"$TRACE/uprobe_events" 2>/dev/null \
		|| { echo "the kernel refuses a uprobe ($(tail -1 "$TRACE/error_log" 2>/dev/null))"; return 1; }
	CLEANUP+=("echo '-:elfpmd_test/$1' >>'$TRACE/uprobe_events'")
	note "uprobe $1: $3 at file offset $off of ${2##*/}" >&2
}

# uprobe_instance: UPROBE_INSTANCE, a trace instance of the test's own in
# TRACE with the elfpmd_test events enabled, removed on exit; when it
# cannot be made, print why and fail.
UPROBE_INSTANCE=
uprobe_instance () {
	UPROBE_INSTANCE=$TRACE/instances/elfpmd_test_$$
	mkdir "$UPROBE_INSTANCE" 2>/dev/null || { echo "cannot make a trace instance ($TRACE/instances)"; return 1; }
	CLEANUP+=("rmdir '$UPROBE_INSTANCE'" "echo 0 >'$UPROBE_INSTANCE/events/elfpmd_test/enable'")
	echo 1 >"$UPROBE_INSTANCE/events/elfpmd_test/enable" || { echo "cannot enable the uprobes"; return 1; }
}

# uprobe_hits EVENT OUT FILE: FILE run (with ARGS; output in OUT, its smaps
# copy in OUT.smaps) with the instance's trace emptied first; prints the
# hits of EVENT.
uprobe_hits () {
	: >"$UPROBE_INSTANCE/trace"
	rm -f "$2.smaps"
	FIXTURE_SMAPS=$2.smaps run_logged "$2" "$3" "${ARGS[@]}"
	grep -c " $1: " "$UPROBE_INSTANCE/trace"
}

# require_nobody FILE: a way to run commands as the user nobody
# (find_as_nobody), who can read FILE, or the script is skipped.
require_nobody () {
	find_as_nobody || skip_all "cannot run anything as the user nobody (no such user, or neither setpriv nor runuser works)"
	"${AS_NOBODY[@]}" test -r "$1" || skip_all "the user nobody cannot read $1 (a directory above it is not searchable)"
}

# nobody_locks LOG MODE FILE...: the user nobody runs the fixture invlock
# MODE FILE... (HOLDER, ended on exit; its output in LOG) and says
# "locked" within 5 s, or this fails.
HOLDER=
nobody_locks () {
	local log=$1 k
	shift
	"${AS_NOBODY[@]}" "$O/invlock" "$@" >"$log" 2>&1 </dev/null &
	HOLDER=$!
	CLEANUP+=("nobody_unlocks")
	for ((k = 0; k < 50; k++)); do
		grep -qs locked "$log" && return 0
		kill -0 "$HOLDER" 2>/dev/null || return 1
		sleep 0.1
	done
	grep -qs locked "$log"
}

# nobody_unlocks: end the lock holder and reap it (idempotent).
nobody_unlocks () {
	[ -n "$HOLDER" ] || return 0
	kill "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	HOLDER=
}

# MAX_LOCK_WAIT_NS: the longest another user's lock may delay a start.
MAX_LOCK_WAIT_NS=20000000

# locked_start MODE: nobody holds a MODE lock (invlock) on P_MAD, cached in
# order-0 folios; the holders that work on the file (worker, pretender)
# start; the rewrite starts under strace (flock, fcntl, fadvise64, the
# sleeps), into WORK/lock.out, .smaps and .strace, and must print what the
# original prints.  Sets LOCK_WHAT (the label), LOCK_GOT (the stub's flocks
# taken), LOCK_UNLOCKED (its LOCK_UN) and LOCK_EVICTIONS (its fadvise64).
# Skips the script when nobody cannot take the lock.
locked_start () {
	local mode=$1 w=$WORK/lock
	LOCK_WHAT="lock ($mode held by nobody), order-0"
	nobody_locks "$w.holder" "$mode" "$P_MAD" \
		|| skip_all "nobody could not take the $mode lock: $(head -1 "$w.holder")"
	cache_order0 "$P_MAD"
	# The worker and the pretender start their work now, on the chunks
	# that the start finds in small folios.
	case $mode in worker | pretender) kill -USR1 "$HOLDER" ;; esac
	rm -f "$w.smaps"
	FIXTURE_SMAPS=$w.smaps run_logged "$w.out" strace -f -qq -o "$w.strace" \
		-e trace=flock,fcntl,fadvise64,nanosleep,clock_nanosleep "$P_MAD" "${ARGS[@]}"
	same "$WORK/pie.ref" "$w.out" "$LOCK_WHAT"
	LOCK_GOT=$(strace_calls "$w.strace" flock | grep -c 'LOCK_EX|LOCK_NB) *= 0')
	LOCK_UNLOCKED=$(strace_calls "$w.strace" flock | grep -c 'LOCK_UN')
	LOCK_EVICTIONS=$(strace_calls "$w.strace" fadvise64 | wc -l)
	nobody_unlocks
}

# check_repaired_unlocked: after locked_start, the stub never got the lock,
# unlocked nothing, and repaired (evicted chunks) without it.
check_repaired_unlocked () {
	if [ "$LOCK_GOT" -eq 0 ] && [ "$LOCK_UNLOCKED" -eq 0 ] && [ "$LOCK_EVICTIONS" -ge 1 ]; then
		pass "$LOCK_WHAT: the stub never got the lock, unlocked nothing, and repaired without it ($LOCK_EVICTIONS evictions)"
	else
		fail "$LOCK_WHAT: the stub got the lock $LOCK_GOT time(s), unlocked $LOCK_UNLOCKED, evicted $LOCK_EVICTIONS chunk(s) while nobody held it"
	fi
}

# seccomp_like_original MODE FIXTURE ORIG MAD CALL...: for each CALL, the
# fixture invseccomp runs ORIG and then MAD (from an order-0 cache) under a
# filter MODE (eperm, enosys, kill) on CALL; one PASS naming the calls
# with which the rewrite does what the original does, a FAIL for each
# other; the calls the original itself fails with are noted.
seccomp_like_original () {
	local mode=$1 fx=$2 o=$3 m=$4 call w ok=() orig_fails=()
	shift 4
	for call; do
		w=$WORK/seccomp.$fx.$mode.$call
		cache_order0 "$m"
		run_logged "$w.orig" "$O/invseccomp" "$mode" "$call" "$o" "${ARGS[@]}"
		run_logged "$w.mad" "$O/invseccomp" "$mode" "$call" "$m" "${ARGS[@]}"
		[ "$(tail -1 "$w.orig")" = "exit status 42" ] || orig_fails+=("$call")
		if cmp -s "$w.orig" "$w.mad"; then
			ok+=("$call")
			rm -f "$w".*
		else
			fail "seccomp $mode $call, $fx, order-0: the rewrite $(tail -1 "$w.mad"), the original $(tail -1 "$w.orig")"
			diff "$w.orig" "$w.mad" | head -4 | sed 's/^/      /'
		fi
	done
	[ ${#ok[@]} -gt 0 ] && pass "seccomp $mode, $fx, order-0: the rewrite does what the original does with ${#ok[@]} call(s) failing: ${ok[*]}"
	[ ${#orig_fails[@]} -gt 0 ] && note "seccomp $mode, $fx: the original itself fails with: ${orig_fails[*]}"
	return 0
}

# The copy fallback (--madvise=copy): the stub copies the text into
# anonymous huge pages where the file cannot have PMD-sized folios.

# copy_fixture: the fixture mad-pie (MADPIE) and its ideal: IDEAL whole
# chunks (IDEAL_KB kB) of text in its --madvise=copy rewrite
# (WORK/mad-pie.copy; the original's load base is not PMD-aligned).
copy_fixture () {
	stub_fixture mad-pie
	MADPIE=$O/mad-pie
	"$ELFPMD" -q --madvise=copy -o "$WORK/mad-pie.copy" "$MADPIE" || hard_error "elfpmd --madvise=copy mad-pie failed"
	IDEAL=$(ideal_chunks "$WORK/mad-pie.copy")
	IDEAL_KB=$((IDEAL * PMD / 1024))
	[ "$IDEAL" -gt 1 ] || hard_error "mad-pie has $IDEAL whole chunks of text (phdr-dump); expected 7"
}

# copy_rewrite IN OUT [OPTION...]: elfpmd -q OPTION... (default:
# --madvise=copy) -o OUT IN; a FAIL that stops the script otherwise.
copy_rewrite () {
	local in=$1 out=$2
	shift 2
	[ $# -gt 0 ] || set -- --madvise=copy
	"$ELFPMD" -q "$@" -o "$out" "$in" >"$out.log" 2>&1 && return 0
	fail "elfpmd $* ${in##*/}: $(head -2 "$out.log")"
	finish
}

# copy_run OUT COMMAND...: COMMAND with ARGS (at most 60 s), its smaps copy
# in OUT.smaps, its output and exit status in OUT (run_logged).
copy_run () {
	local out=$1
	shift
	rm -f "$out.smaps"
	FIXTURE_SMAPS=$out.smaps run_logged "$out" "$@" "${ARGS[@]}"
}

# copy_journal: an ext4 image mounted data=journal (journal_mount: no large
# folios there on any kernel, so that only the copy gives huge pages), J
# its mount point, holding J/orig, a copy of mad-pie, and J/orig.out, its
# run.  Skips the script where loop mounts fail.
copy_journal () {
	journal_mount "$WORK" 300M >"$WORK/loop.why" 2>&1 || skip_all "data=journal: $(tail -1 "$WORK/loop.why")"
	J=$MNTED
	cp "$MADPIE" "$J/orig" || hard_error "cannot copy mad-pie to $J"
	copy_run "$J/orig.out" "$J/orig"
}

# copy_inv_pie: the fixture inv-pie (mid() in a whole chunk, inv_sum()
# through the whole text) on the copy_journal mount, J/inv-orig, its copy
# rewrite J/inv-copy, and the original's run J/inv-orig.out; INV_IDEAL,
# the whole chunks of the rewrite, and KEPT_KB, the kB of all but one.
copy_inv_pie () {
	stub_fixture inv-pie inv-tools
	cp "$O/inv-pie" "$J/inv-orig" || hard_error "cannot copy inv-pie to $J"
	copy_rewrite "$O/inv-pie" "$J/inv-copy"
	INV_IDEAL=$(ideal_chunks "$J/inv-copy")
	KEPT_KB=$(((INV_IDEAL - 1) * PMD / 1024))
	copy_run "$J/inv-orig.out" "$J/inv-orig"
}

# copy_anon_kb SMAPS: AnonHugePages of the anonymous executable mappings
# (inode 0, but [vdso] and [vsyscall]) in the smaps copy SMAPS, in kB,
# summed independently of elfpmd.
copy_anon_kb () {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { cur = $2 ~ /x/ && $5 == 0 && $6 != "[vdso]" && $6 != "[vsyscall]"; next }
		cur && $1 == "AnonHugePages:" { kb += $2 }
		END { print kb + 0 }' "$1"
}

# expect_copy_kb WHAT SMAPS OBJECT ANON PMD: in SMAPS, the anonymous text on
# huge pages is ANON kB and OBJECT's FilePmdMapped PMD kB.
expect_copy_kb () {
	local a p
	if [ ! -s "$2" ]; then fail "$1: the program wrote no smaps copy"; return; fi
	a=$(copy_anon_kb "$2") p=$(pmd_kb "$2" "$3")
	if [ "$a" -eq "$4" ] && [ "$p" -eq "$5" ]; then
		pass "$1: anonymous text on huge pages $a kB (want $4), FilePmdMapped $p kB (want $5)"
	else
		fail "$1: anonymous text on huge pages $a kB (want $4), FilePmdMapped $p kB (want $5)"
	fi
}

# ---------------------------------------------------------------------------
# Fixtures that scripts build themselves (not with tests/fixtures/Makefile),
# shared by the scripts that split one behaviour each out of a larger test
# (run-map-*.sh, run-stub-symbols-*.sh, run-manifest-*.sh, ...): built once
# into SHARED_BUILD/NAME and reused, by every script of a `make check` and
# by the next one, until their sources change.

SHARED_BUILD=$TESTS_BUILDDIR/shared-build

# shared_build NAME FUNCTION [FILE...]: make SHARED (SHARED_BUILD/NAME) hold
# what FUNCTION (shell code of the caller, run in SHARED, its output into
# SHARED/.log) builds there, unless it already does: the key of a build is
# the text of FUNCTION, of this file (the helpers FUNCTION calls, as
# bigtext_asm) and the contents of FILE... (the sources it reads);
# while one script builds, the others wait for it (flock).  A failed build
# leaves no key, so that the next script tries again; returns FUNCTION's
# status.  (Without flock(1) the scripts build one after the other only
# when make runs them so.)
shared_build () {
	local name=$1 fn=$2 key st=0 fd
	shift 2
	SHARED=$SHARED_BUILD/$name
	key=$({ declare -f "$fn"; cat -- "${BASH_SOURCE[0]}" "$@"; } | sha256sum | cut -c1-64)
	mkdir -p "$SHARED" || hard_error "cannot create $SHARED"
	exec {fd}>>"$SHARED.lock" || hard_error "cannot open $SHARED.lock"
	have flock && flock "$fd"
	if [ "$(cat "$SHARED/.key" 2>/dev/null)" != "$key" ]; then
		find "$SHARED" -mindepth 1 -delete
		(cd "$SHARED" && "$fn") >"$SHARED/.log" 2>&1 || st=$?
		[ "$st" -eq 0 ] && echo "$key" >"$SHARED/.key"
	fi
	exec {fd}>&-
	return "$st"
}

# test_finish: leave WORK, remove it unless something failed, and finish.
test_finish () {
	cd / || true
	[ "$n_fail" -eq 0 ] && rm -rf "$WORK"
	finish
}

# find_python: PYTHON, the python3 interpreter itself rather than a
# version manager's shim (which costs a third of a second a call), or the
# script is skipped without python3.  The answer is kept in
# SHARED_BUILD/python for the next scripts, as long as python3 is found
# where it was.
find_python () {
	local cache=$SHARED_BUILD/python found
	found=$(command -v python3) || skip_all "python3 not found"
	if [ "$(head -1 "$cache" 2>/dev/null)" = "$found" ]; then
		PYTHON=$(sed -n 2p "$cache")
		[ -x "$PYTHON" ] && return 0
	fi
	PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	[ -x "$PYTHON" ] || PYTHON=python3
	mkdir -p "$SHARED_BUILD" && printf '%s\n%s\n' "$found" "$PYTHON" >"$cache.$$" && mv -f "$cache.$$" "$cache"
}

# ---------------------------------------------------------------------------
# elfpmd map (run-map-*.sh): a program of three compilation units (map-a.c,
# map-b.c, map-c.c) whose functions are naked blocks of known size, so that
# with about 6.4 MiB of text at 0x401000 (gcc -no-pie) it has two whole
# 2 MiB chunks (map-json.py layout says where each function lies).  Each
# script compares elfpmd map --json with what tests/map-json.py computes
# from nm -S and readelf -lW alone.  The variants, built once:
#   exec-g     DWARF in the file
#   exec-dl    DWARF in a separate file, exec-dl.dbg, named exec-g.debug by
#              its .gnu_debuglink
#   exec-bid   stripped, its DWARF under root/.build-id/ (the build ID)
#   exec-sym   no DWARF (strip -g): .symtab, no compilation units
#   exec-dyn   strip --strip-all of a -rdynamic build: .dynsym
#   exec-none  a static program stripped of everything: no names (missing
#              where there is no static C library)
#   pie-g      a PIE (p_align 4 KiB)
# ELFPMD_DEBUG_ROOT replaces /usr/lib/debug.

# map_fixture_build: the variants, in the current directory; status 1
# when they cannot be built, 2 when exec-g is not laid out as designed.
map_fixture_build () {
	local block cflags='-g -O0 -fno-toplevel-reorder -Wl,--build-id' srcs='map-a.c map-b.c map-c.c' id
	block='#define BLOCK(name, size) __attribute__ ((naked, noinline)) void name (void) { __asm__ (".fill " #size ", 1, 0xcc\n\tret"); }'
	printf '%s\nBLOCK (lead, 0x100000)\nBLOCK (cross01, 0x180000)\nint main (void) { return 0; }\n' "$block" >map-a.c
	printf '%s\nBLOCK (inb, 0x100000)\nBLOCK (cross12, 0x180000)\n' "$block" >map-b.c
	printf '%s\nBLOCK (inc, 0xe0000)\nBLOCK (tail_c, 0x80000)\nBLOCK (tiny_c, 0x40)\n' "$block" >map-c.c
	# shellcheck disable=SC2086  # the flags and sources are words
	gcc $cflags -no-pie -o exec-g $srcs || return 1
	# shellcheck disable=SC2086
	gcc $cflags -fPIE -pie -o pie-g $srcs || return 1
	# shellcheck disable=SC2086
	gcc $cflags -no-pie -rdynamic -o exec-dyn $srcs && strip --strip-all exec-dyn || return 1
	# shellcheck disable=SC2086
	{ gcc $cflags -static -o exec-none $srcs && strip --strip-all exec-none; } || rm -f exec-none
	cp exec-g exec-sym && strip -g exec-sym || return 1
	objcopy --only-keep-debug exec-g exec-g.debug || return 1
	objcopy --strip-debug --add-gnu-debuglink=exec-g.debug exec-g exec-dl || return 1
	mv exec-g.debug exec-dl.dbg
	cp exec-g exec-bid && strip --strip-all exec-bid || return 1
	id=$(readelf -n exec-g | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || { echo "no build ID in exec-g"; return 1; }
	mkdir -p root/.build-id/"${id:0:2}" && cp exec-dl.dbg root/.build-id/"${id:0:2}/${id:2}.debug" || return 1
	echo "$id" >build-id
	# The fixture is laid out as designed, or the checks mean nothing
	# (status 2: a hard error).
	"$PYTHON" "$TESTS_SRCDIR/map-json.py" layout exec-g || { echo "exec-g is not laid out as designed (nm -S exec-g)"; return 2; }
}

# map_start FILE...: what each map script does first: the tool, the tools
# the fixture needs, the fixture (built once, shared), and WORK (work_dir)
# as the current directory, holding copies of exec-g (map-json.py's source
# of the stripped files' symbols) and of each FILE (a variant, or root:
# the build-ID tree); sets dwarf (true when this build reads DWARF), src
# (dwarf or symtab: where the names of a file with DWARF come from), id
# (exec-g's build ID) and ELFPMD_DEBUG_ROOT=WORK/no-root (no debug files).
# Skipped (77) without gcc for x86-64, objcopy, strip, nm, readelf,
# python3.
map_start () {
	local t f
	require_elfpmd
	for t in gcc objcopy strip nm readelf; do
		have "$t" || skip_all "$t not found"
	done
	find_python
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixture's addresses are laid out for x86-64"
	shared_build map map_fixture_build "$TESTS_SRCDIR/map-json.py"
	case $? in
	0) ;;
	2) hard_error "the map fixture is not laid out as designed (log: $SHARED/.log)" ;;
	*) skip_all "cannot build the map fixture: $(tail -1 "$SHARED/.log") (log: $SHARED/.log)" ;;
	esac
	work_dir
	cp "$SHARED/exec-g" "$WORK/" || hard_error "cannot copy the fixture into $WORK"
	for f; do
		[ -e "$SHARED/$f" ] && { cp -r "$SHARED/$f" "$WORK/" || hard_error "cannot copy $f into $WORK"; }
	done
	cd "$WORK" || hard_error "cannot enter $WORK"
	dwarf=false
	grep -q '^#define HAVE_LIBDWARF 1' "$TESTS_BUILDDIR/../config.h" 2>/dev/null && dwarf=true
	if $dwarf; then src=dwarf; else src=symtab; fi
	id=$(cat "$SHARED/build-id")
	export ELFPMD_DEBUG_ROOT=$WORK/no-root
	note "this build reads DWARF: $dwarf"
}

# map_expect NAME FILE SOURCE NAMEFILE[:FOUND_BY] [HOT]: the expected JSON
# of elfpmd map --json FILE into NAME.expect (map-json.py expect).
map_expect () {
	"$PYTHON" "$TESTS_SRCDIR/map-json.py" expect "$@" || hard_error "cannot compute the expected map of $2"
}

# map_compare NAME: NAME.json (elfpmd's) is NAME.expect; the differences
# into NAME.diff.
map_compare () { "$PYTHON" "$TESTS_SRCDIR/map-json.py" compare "$1"; }

# map_check NAME FILE SOURCE FOUND_BY [HOT]: run elfpmd map --json on FILE
# and check it against the expectation; the stderr goes to NAME.err.
map_check () {
	local name=$1 file=$2 hot=${5:-}
	map_expect "$@"
	if "$ELFPMD" map --json ${hot:+--hot="$hot"} "$file" >"$name.json" 2>"$name.err" && map_compare "$name"; then
		pass "$name: elfpmd map --json $file equals the map computed from nm and readelf"
	else
		fail "$name: elfpmd map --json $file (see $WORK/$name.diff, $name.err)"
		head -5 "$name.diff" "$name.err" 2>/dev/null | sed 's/^/      /'
	fi
}

# map_err_check DESCRIPTION STATUS PATTERN ARGS...: elfpmd ARGS exits STATUS
# with one line on stderr matching PATTERN (usage errors, 64: with argp's
# lines); a build without libdwarf's line about a file with DWARF aside.
map_err_check () {
	local what=$1 want=$2 pat=$3 got
	shift 3
	"$ELFPMD" "$@" >err.out 2>err.all
	got=$?
	grep -v ': built without libdwarf: ' err.all >err.err
	if [ "$got" = "$want" ] && grep -q -- "$pat" err.err && { [ "$want" = 64 ] || [ "$(wc -l <err.err)" = 1 ]; }; then
		pass "$what"
	else
		fail "$what: exit $got, stderr: $(head -2 err.err)"
	fi
}

# ---------------------------------------------------------------------------
# bigtext_asm FILE: x86-64 assembly of 4 MiB of ret instructions, page
# aligned, under the global big_text: whole 2 MiB chunks of text wherever
# the linker puts it.
bigtext_asm () {
	cat >"$1" <<'EOF_S'
	.section .text.big, "ax", @progbits
	.p2align 12
	.globl big_text
big_text:
	.fill	4 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF_S
}

# hashlib_asm FILE: x86-64 assembly of a shared library's 12,000 exported
# functions (a .gnu.hash of about 100 KiB) and 4 MiB of text.
hashlib_asm () {
	{
		echo '	.text'
		for ((i = 0; i < 12000; i++)); do
			echo "	.globl f$i; .type f$i, @function; f$i: mov \$$i, %eax; ret"
		done
		echo '	.section .text.big, "ax", @progbits'
		echo '	.p2align 12'
		echo '	.fill 4 << 20, 1, 0xc3'
		echo '	.section .note.GNU-stack, "", @progbits'
	} >"$1"
}

# A PIE with 4 MiB of text beside main (whole chunks for the stub), built
# once (shared_build bigtext), for run-stub-symbols-*.sh and
# run-manifest-*.sh: prog7 and prog8 (main returns 7, 8), prog7-stripped
# (strip), libbig.so (the text alone, cc -shared).

# bigtext_build: those, in the current directory.
bigtext_build () {
	bigtext_asm big.S
	local v
	for v in 7 8; do
		echo "int main (void) { return $v; }" >"main$v.c"
		cc -O2 -fPIE -pie -o "prog$v" "main$v.c" big.S || return 1
	done
	cp prog7 prog7-stripped && strip prog7-stripped || return 1
	cc -shared -fPIC -o libbig.so big.S
}

# bigtext_fixture: BIG, the directory of the bigtext fixture, built unless
# it is; skips the script where it cannot be (no cc for x86-64 assembly).
bigtext_fixture () {
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixture is x86-64 assembly"
	have cc || skip_all "needs cc"
	shared_build bigtext bigtext_build || skip_all "cannot build the fixture: $(tail -1 "$SHARED/.log") (log: $SHARED/.log)"
	BIG=$SHARED
}

# ---------------------------------------------------------------------------
# The stub's symbols (run-stub-symbols-*.sh): a file without a symbol
# table gets the stub's MiniDebugInfo, .gnu_debugdata, an xz stream of a
# small ELF file whose symbol table names the stub's functions.

# stub_symbols_start: the tool, cc, readelf, objcopy, xz, the bigtext
# fixture, WORK (work_dir) as the current directory, and rw there: the
# --madvise rewrite of the stripped prog7.
stub_symbols_start () {
	require_elfpmd
	[ "$(uname -m)" = x86_64 ] || skip_all "the stub's symbols are checked on x86-64 hosts"
	if ! have cc || ! have readelf || ! have objcopy || ! have xz; then
		skip_all "needs cc, readelf, objcopy and xz"
	fi
	bigtext_fixture
	work_dir
	cd "$WORK" || hard_error "cannot enter $WORK"
	"$ELFPMD" -q --madvise -o rw "$BIG/prog7-stripped" || hard_error "elfpmd --madvise failed on the fixture"
}

# stub_symbols FILE: the stub's symbols in the MiniDebugInfo of FILE, one
# per line: VALUE SIZE TYPE BIND NDX NAME (readelf -s's columns); the
# MiniDebugInfo's ELF file into mini, its xz stream into mini.xz.  (objcopy
# with only an input file rewrites it in place: its output goes to another
# file, so that FILE is left as elfpmd wrote it.)
stub_symbols () {
	rm -f mini mini.xz
	objcopy --dump-section .gnu_debugdata=mini.xz "$1" mini.objcopy 2>/dev/null && rm -f mini.objcopy
	xz -dc mini.xz >mini 2>/dev/null
	readelf -sW mini 2>/dev/null |
		awk '/Symbol table .\.symtab./ { on = 1; next } on && $8 ~ /^elfpmd\./ { print $2, $3, $4, $5, $7, $8 }'
}

# ---------------------------------------------------------------------------
# A conversion kept, --manifest and --keep-originals (run-manifest-*.sh):
# the manifest's lines are checked by Python's json and hashlib against
# copies the test made itself, not by elfpmd's code.

# manifest_start: the tool, python3, the bigtext fixture and W, a new
# directory under /tmp (removed on exit; as root, others may need to reach
# it) holding W/orig/prog, W/orig/prog-v2 (the fixture's prog7 and prog8:
# exit 7 and 8) and W/orig/libbig.so.
manifest_start () {
	require_elfpmd
	find_python
	bigtext_fixture
	cleanup_on_exit
	W=$(mktemp -d) || hard_error "cannot make a directory under /tmp"
	CLEANUP+=("rm -rf '$W'")
	mkdir -p "$W/orig" && cp "$BIG/prog7" "$W/orig/prog" && cp "$BIG/prog8" "$W/orig/prog-v2" \
		&& cp "$BIG/libbig.so" "$W/orig/libbig.so" || hard_error "cannot copy the fixture into $W"
}

# manifest_tree: W/tree (bin/prog, its hard link bin/prog-link and
# lib/libbig.so) converted by elfpmd -q --madvise --manifest=M
# --keep-originals=K -r; its exit status.
manifest_tree () {
	mkdir -p "$W/tree/bin" "$W/tree/lib" "$W/state"
	cp "$W/orig/prog" "$W/tree/bin/prog" && ln "$W/tree/bin/prog" "$W/tree/bin/prog-link" \
		&& cp "$W/orig/libbig.so" "$W/tree/lib/libbig.so" || hard_error "cannot make $W/tree"
	M=$W/state/manifest K=$W/state/originals
	"$ELFPMD" -q --madvise --manifest="$M" --keep-originals="$K" -r "$W/tree"
}

# manifest_upgrade: after manifest_tree, an upgrade: a new build of prog
# (orig/prog-v2) renamed over it, as dpkg does, and the library replaced
# by a script.
manifest_upgrade () {
	cp "$W/orig/prog-v2" "$W/new-prog" && mv "$W/new-prog" "$W/tree/bin/prog"
	printf '#!/bin/sh\necho script\n' >"$W/script" && chmod 755 "$W/script" && mv "$W/script" "$W/tree/lib/libbig.so"
}

# manifest_verify PATH:ORIG:KEPT...: for each, one PASS or FAIL: the last
# line of the manifest M about PATH records a --madvise conversion of the
# file ORIG into the file PATH is (SHA-256 and size, before and after)
# and, unless KEPT is -, its original kept in the directory KEPT.
manifest_verify () {
	local line
	while IFS= read -r line; do
		case $line in PASS:*) pass "${line#PASS: }" ;; *) fail "${line#FAIL: }" ;; esac
	done < <("$PYTHON" - "$M" "$@" <<'PY'
import hashlib, json, os, sys
manifest, args = sys.argv[1], sys.argv[2:]
lines = [json.loads(l) for l in open(manifest)]
def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()
last = {}
for d in lines:
    last[d["file"]] = d
out = []
for a in args:
    path, orig, kept = a.split(":")
    d = last.get(path)
    if d is None:
        out.append("FAIL: %s: not in the manifest" % path); continue
    ok = (d["action"] == "convert" and bytes.fromhex(d["file_hex"]).decode() == path
          and d["sha256_before"] == sha(orig) and d["sha256_after"] == sha(path)
          and d["size_before"] == os.path.getsize(orig) and d["size_after"] == os.path.getsize(path)
          and d["options"] == ["--madvise"] and d["elfpmd"])
    if kept != "-":
        k = os.path.join(bytes.fromhex(d["originals_hex"]).decode(), d["sha256_before"])
        ok = ok and os.path.realpath(os.path.dirname(k)) == os.path.realpath(kept) and sha(k) == d["sha256_before"] \
             and open(k, "rb").read() == open(orig, "rb").read()
    out.append(("PASS" if ok else "FAIL") + ": %s: its last entry says what the files are (%s...)" % (path, json.dumps(d)[:160]))
print("\n".join(out))
PY
)
}

# require_root_nobody WHAT: root and the user nobody (setpriv), or WHAT is
# not run: the script is skipped.
require_root_nobody () {
	[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || skip_all "not root (or no user nobody): $1"
}

# ---------------------------------------------------------------------------
# The stub across privilege boundaries (run-privilege-*.sh, elfpmd-stub(7),
# SECURITY), on this machine's kernel, with the fixtures of the stub's
# tests, their text cached in 4 KiB folios so that a stub that repairs
# would evict and lock.

# privilege_start WHY TARGET...: root for WHY with transparent huge pages
# and the page-cache lock, x86-64, the fixtures TARGET... and mad-tools
# built (stub_fixture: O, PAGECACHE), WORK a new directory under /tmp that
# every user can reach (removed on exit), on a file system that honours
# the set-user-ID bit; ARGS, the arguments of every run.
privilege_start () {
	local why=$1
	shift
	ARGS=(alpha "beta gamma")
	cleanup_on_exit
	require_elfpmd
	require_root_thp "$why"
	page_cache_lock
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 only"
	stub_fixture mad-tools "$@"
	PAGECACHE=$O/pagecache
	WORK=$(mktemp -d /tmp/elfpmd-privilege.XXXXXX) || hard_error "cannot make a directory under /tmp"
	CLEANUP+=("rm -rf '$WORK'")
	chmod 755 "$WORK"
	if findmnt -n -o OPTIONS --target "$WORK" 2>/dev/null | tr ',' '\n' | grep -qx nosuid; then
		skip_all "$WORK is on a file system mounted nosuid"
	fi
}

# privileged WHAT SETUP: inv-pie's --madvise=copy rewrite made privileged
# by SETUP (shell code run on the file, P), started by nobody with
# ELFPMD_PERF_MAP=1 under setarch --uname-2.6 (a personality that
# survives the set-user-ID execution and once sent the stub down its
# "kernel before 5.18" copy path): it prints what the original prints, no
# /tmp/perf-PID.map appears, and under strace -u nobody the stub reads no
# environment, creates no file, takes no lock, evicts, syncs and drops
# nothing and never sleeps.  The control: the same file started by root
# (no privilege gained) does lock and evict, so that these checks can
# fail.  Needs strace, setarch and a way to run as nobody (skipped
# otherwise).
privileged () {
	local what=$1 w pid log bad
	have strace || skip_all "strace not found (Debian: strace)"
	have setarch || skip_all "setarch not found (Debian: util-linux)"
	find_as_nobody || skip_all "cannot run a command as nobody (no such user, or neither setpriv nor runuser works)"
	run_logged "$WORK/orig.out" "$O/inv-pie" "${ARGS[@]}"
	[ "$(tail -1 "$WORK/orig.out")" = "exit status 42" ] || skip_all "inv-pie does not run here: $(tail -1 "$WORK/orig.out")"
	P=$WORK/inv-pie.copy
	"$ELFPMD" -q --madvise=copy -o "$P" "$O/inv-pie" || hard_error "elfpmd --madvise=copy inv-pie failed"
	w=$WORK/${what// /-}
	chown root:root "$P" && chmod 755 "$P" && eval "$2" || { fail "$what: cannot make $P privileged"; return; }
	cache_order0 "$P"
	"${AS_NOBODY[@]}" env ELFPMD_PERF_MAP=1 setarch "$(uname -m)" --uname-2.6 "$P" "${ARGS[@]}" \
		>"$w.out" 2>"$w.out.err" &
	pid=$!
	wait "$pid"
	echo "exit status $?" >>"$w.out"
	same "$WORK/orig.out" "$w.out" "$what, started by nobody"
	if [ -e "/tmp/perf-$pid.map" ]; then
		fail "$what, started by nobody: the stub wrote /tmp/perf-$pid.map ($(stat -c '%U %a' "/tmp/perf-$pid.map"))"
		rm -f "/tmp/perf-$pid.map"
	else
		pass "$what, started by nobody: no /tmp/perf-$pid.map"
	fi
	cache_order0 "$P"
	log=$w.strace
	strace -f -qq -u nobody -o "$log" -e trace=openat,open,flock,fadvise64,sync_file_range,madvise,clock_nanosleep,nanosleep \
		env ELFPMD_PERF_MAP=1 setarch "$(uname -m)" --uname-2.6 "$P" "${ARGS[@]}" >"$w.traced" 2>&1
	grep -q '= 42$\|mid() = 42' "$w.traced" || note "$what under strace: $(tail -1 "$w.traced")"
	bad=$( { grep -E 'openat\(.*(/proc/self/environ|O_CREAT)' "$log"
		strace_calls "$log" flock fadvise64 sync_file_range clock_nanosleep nanosleep
		grep -E 'madvise\(.*MADV_DONTNEED' "$log"; } | sed 's/^[0-9]* *//; s/(.*//' | sort | uniq -c | tr -s ' \n' ' ')
	# (A stub that wrote perf maps under strace leaves them behind.)
	for pid in $(awk '{ print $1 }' "$log" | sort -u); do rm -f "/tmp/perf-$pid.map"; done
	if [ -z "$bad" ]; then
		pass "$what, started by nobody (strace -u nobody): no environment read, no file created, no lock, eviction, sync, drop or sleep"
	else
		fail "$what, started by nobody (strace -u nobody): $bad"
	fi
	cache_order0 "$P"
	strace -f -qq -o "$w.root.strace" -e trace=flock,fadvise64 "$P" "${ARGS[@]}" >/dev/null 2>&1
	if [ -n "$(strace_calls "$w.root.strace" flock)" ] && [ -n "$(strace_calls "$w.root.strace" fadvise64)" ]; then
		pass "$what, started by root (the control): the stub locks and evicts ($(strace_calls "$w.root.strace" fadvise64 | wc -l) evictions)"
	else
		fail "$what, started by root (the control): no flock or fadvise64, so the checks above prove nothing"
	fi
}

# ---------------------------------------------------------------------------
# elfpmd as root over a tree another user owns (run-rootsafe-*.sh; elfpmd(1),
# RUNNING AS ROOT): no name that user controls can redirect what root
# writes, opens or waits for.  The user is played by fixtures/racer.c, an
# LD_PRELOAD library in elfpmd that swaps a directory of the tree for a
# symbolic link to a directory of root's (or a file for a FIFO) right
# before the call where the swap hurts most; the tree (T) belongs to
# nobody, the victim (V) to root.  Each case checks that the racer did
# swap, else it proves nothing.

# rootsafe_start: root, x86-64, a way to run as nobody (AS_NOBODY), the
# fixtures inv-pie (ELF) and rootsafe-tools (racer.so, mapper: stub_fixture,
# O), and W, a new directory under /tmp that others can reach (removed on
# exit), with T=W/tree and V=W/victim; skipped (77) without them.
rootsafe_start () {
	cleanup_on_exit
	require_elfpmd
	[ "$(id -u)" = 0 ] || skip_all "needs root (elfpmd as root over another user's tree)"
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 only"
	find_as_nobody || skip_all "cannot run a command as nobody (no such user, or neither setpriv nor runuser works)"
	stub_fixture inv-pie rootsafe-tools
	ELF=$O/inv-pie
	W=$(mktemp -d /tmp/elfpmd-rootsafe.XXXXXX) || hard_error "cannot make a directory under /tmp"
	CLEANUP+=("rm -rf '$W'")
	chmod 755 "$W"
	T=$W/tree V=$W/victim
}

# rootsafe_fresh: a new tree of nobody's and a new victim directory of
# root's, with root's set-user-ID copy of the fixture at victim/prog (and
# victim/new).
rootsafe_fresh () {
	rm -rf "$T" "$T".* "$V" "$W/racer.log"
	mkdir -p "$T" "$V"
	cp "$ELF" "$V/prog" && chmod 4755 "$V/prog" && cp "$ELF" "$V/new"
	sha256sum "$V/prog" "$V/new" >"$W/victim.sum"
	stat -c '%n %u %a %i' "$V/prog" "$V/new" >"$W/victim.stat"
}

# nobody_tree CMD: shell code run as nobody in the tree (to make it).
nobody_tree () { chown nobody "$T" && "${AS_NOBODY[@]}" sh -c "cd '$T' && $1"; }

# victim_untouched WHAT: root's files as they were.
victim_untouched () {
	if sha256sum -c --quiet "$W/victim.sum" >/dev/null 2>&1 \
		&& [ "$(stat -c '%n %u %a %i' "$V/prog" "$V/new")" = "$(cat "$W/victim.stat")" ] \
		&& [ -z "$(find "$V" -name '.elfpmd*')" ]; then
		pass "$1: root's files outside the tree untouched"
	else
		fail "$1: root's files outside the tree changed: $(ls -la "$V" | tr '\n' ' ')"
	fi
}

# raced WHAT: the racer did swap (else the case proves nothing).
raced () {
	if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null; then
		pass "$1: the directory was swapped ($(sed 's/^racer: //' "$W/racer.log" | head -1))"
	else
		fail "$1: the racer never swapped ($(cat "$W/racer.log" 2>/dev/null)): this case proves nothing"
	fi
}

# racing DIR TARGET AT MATCH COMMAND...: COMMAND (elfpmd) with the racer,
# which swaps DIR for a symbolic link to TARGET (a FIFO when TARGET is
# empty and RACER_FIFO is set) right before the first call of AT (a list)
# naming MATCH.
racing () {
	local dir=$1 target=$2 at=$3 match=$4
	shift 4
	env LD_PRELOAD="$O/racer.so" RACER_DIR="$dir" RACER_TARGET="$target" RACER_AT="$at" \
		RACER_MATCH="$match" RACER_LOG="$W/racer.log" "$@"
}

# rootsafe_reapply_setup: root converted tree/d/prog with --manifest=W/M,
# then nobody replaced it (an upgrade).
rootsafe_reapply_setup () {
	rootsafe_fresh
	rm -f "$W/M"
	nobody_tree "mkdir d && cp '$ELF' d/prog"
	"$ELFPMD" -q --madvise --manifest="$W/M" "$T/d/prog" || hard_error "cannot convert $T/d/prog"
	nobody_tree "cp '$ELF' d/prog.new && mv d/prog.new d/prog"
}

# rootsafe_revert_setup: root converted tree/d/prog with --manifest=W/M,
# keeping its original in a directory of root's, W/K.
rootsafe_revert_setup () {
	rootsafe_fresh
	rm -rf "$W/M" "$W/K"
	nobody_tree "mkdir d && cp '$ELF' d/prog"
	"$ELFPMD" -q --madvise --manifest="$W/M" --keep-originals="$W/K" "$T/d/prog" \
		|| hard_error "cannot convert $T/d/prog"
}

# ---------------------------------------------------------------------------
# IMA and EVM (run-ima-*.sh; doc/design.md, IMA and EVM): what a rewrite in
# place does with their extended attributes, made and checked by
# tests/ima.py with Python's hashlib, independently of elfpmd.  The
# fixture is tests/fixtures' pie (and lld-pie, padded with a hole), in the
# shared FIXTURES_O.  The hash comes from the kernel's crypto API
# (AF_ALG): where this kernel has none, the hash cases are refused with
# that reason (run-ima-no-afalg.sh), and the rehash cases run in Debian
# 12's kernel in qemu (run-ima-vm.sh) instead of here (run-ima-rehash.sh).

# ima ARG...: tests/ima.py ARG...
ima () { "$PYTHON" "$TESTS_SRCDIR/ima.py" "$@"; }

# ima_start: root, python3, a work directory W (WORK, work_dir) whose file
# system stores security.ima and security.evm, the fixture pie (PIE; O, its directory) and, where it
# builds, lld-pie (have_lld), host_afalg (true where this kernel hashes
# with AF_ALG) and ARGS; skipped (77) without them.
ima_start () {
	ARGS=(alpha "beta gamma")
	cleanup_on_exit
	require_elfpmd
	[ "$(id -u)" = 0 ] || skip_all "needs root (setting security.* extended attributes)"
	have python3 || skip_all "python3 is needed to make and check the attributes"
	find_python
	work_dir
	W=$WORK
	local err afalg
	printf 'probe\n' >"$W/probe"
	if ! err=$(ima set "$W/probe" sha256 2>&1) || ! ima has "$W/probe" security.ima; then
		skip_all "cannot set security.ima on $(df -PT "$W" | awk 'NR == 2 { print $2 }') here: ${err##*$'\n'}"
	fi
	if ! err=$(ima evm "$W/probe" portable 2>&1); then
		skip_all "cannot set security.evm here: ${err##*$'\n'}"
	fi
	rm -f "$W/probe"
	O=$FIXTURES_O
	build_fixture pie || skip_all "cannot build the fixture pie: $(tail -1 "$O/pie.log")"
	PIE=$O/pie
	have_lld=false
	build_fixture lld-pie && have_lld=true
	if afalg=$(ima afalg); then host_afalg=true; else host_afalg=false; fi
	note "this kernel ($(uname -r)): $afalg"
}

# ima_run FILE OUT: FILE's output and "exit status N" into OUT.
ima_run () {
	timeout 60 "$1" "${ARGS[@]}" </dev/null >"$2" 2>"$2.err"
	echo "exit status $?" >>"$2"
}

# ima_orig: W/orig.out, what the fixture pie prints (it must exit 42).
ima_orig () {
	ima_run "$PIE" "$W/orig.out"
	[ "$(tail -1 "$W/orig.out")" = "exit status 42" ] || hard_error "the fixture pie does not run here: $(head -3 "$W/orig.out.err")"
}

# ima_fresh NAME [FROM]: a copy of FROM (default the fixture pie) at W/NAME,
# without attributes.
ima_fresh () { rm -f "$W/$1"; cp "${2:-$PIE}" "$W/$1"; }

# ima_user_attr FILE: user.elfpmd=kept on FILE (an attribute a rewrite keeps).
ima_user_attr () { "$PYTHON" -c 'import os, sys; os.setxattr(sys.argv[1], "user.elfpmd", b"kept")' "$1"; }

# ima_refused WHAT NAME PATTERN OPTION...: elfpmd OPTION... W/NAME exits 1
# with one line on stderr naming the file and matching PATTERN (grep -E),
# and leaves the file as it was: bytes, inode, dates, attributes; no
# temporary file left behind.
ima_refused () {
	local what=$1 f=$W/$2 pattern=$3 status sig attrs
	shift 3
	cp "$f" "$f.before"
	sig=$(file_signature "$f")
	attrs=$(ima dump "$f")
	"$ELFPMD" "$@" "$f" </dev/null >"$f.out" 2>"$f.err"
	status=$?
	if [ "$status" -eq 1 ] && [ "$(wc -l <"$f.err")" -eq 1 ] \
		&& grep -q "^elfpmd: $f: " "$f.err" && grep -Eq "$pattern" "$f.err"; then
		pass "$what: refused (exit 1): $(cut -d: -f3- "$f.err")"
	else
		fail "$what: exit $status, expected 1 and one line matching /$pattern/"
		sed 's/^/      stderr: /' "$f.err" | head -5
	fi
	holds "$what: the file is byte for byte, inode, dates and attributes as it was" \
		'cmp -s "$f" "$f.before" && [ "$sig" = "$(file_signature "$f")" ] && [ "$attrs" = "$(ima dump "$f")" ]'
	[ -z "$(find "$W" -name '.elfpmd.*')" ] || fail "$what: a temporary file was left behind"
	rm -f "$f.before"
}

# ima_json_is WHAT FILE EXPR WANT: the Python expression EXPR over the JSON
# report R (FILE's last line) prints WANT.
ima_json_is () {
	local got
	got=$(ima json "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then pass "$1: $3 is $4"; else fail "$1: $3 is '$got', expected '$4'"; fi
}

# ima_cases FILE: the rehash cases into FILE, one line each: NAME KIND
# FIXTURE OPTIONS.  A hash (type 0x04 with SHA-256 or SHA-1, legacy type
# 0x01 with SHA-1; SHA-256 also with --madvise and on the padded lld-pie).
ima_cases () {
	{
		echo "sha256 sha256 pie"
		echo "sha1 sha1 pie"
		echo "legacy legacy pie"
		[ "$(uname -m)" = x86_64 ] && echo "mad256 sha256 pie --madvise"
		$have_lld && echo "lld256 sha256 lld-pie"
	} >"$1"
}

# ima_stage DIR NAME KIND FIXTURE: DIR/NAME, a copy of FIXTURE with KIND's
# hash and a user attribute; DIR/NAME.orig and .attrs as ima_rehash_checks
# reads.
ima_stage () {
	cp "$O/$4" "$1/$2"
	ima set "$1/$2" "$3"
	ima_user_attr "$1/$2"
	cp "$1/$2" "$1/$2.orig"
	ima dump "$1/$2" >"$1/$2.attrs"
}

# ima_rehash_checks DIR NAME KIND DRYSTATUS STATUS: what must hold of case
# NAME after elfpmd -n --json OPTS (exit DRYSTATUS, report
# DIR/NAME.dry.json) and elfpmd --json OPTS (exit STATUS, report
# DIR/NAME.json) rewrote DIR/NAME, DIR/NAME.run being what the rewrite
# printed: the rewrite's security.ima is the same type and algorithm
# holding the hash of the new bytes, the report says
# "ima":"rehashed-ALG" ("would-rehash-ALG" in the dry run), the other
# attributes are kept, and the program prints what the original prints
# (W/orig.out).
ima_rehash_checks () {
	local d=$1 name=$2 kind=$3 alg=$3 what="rehash $2" res
	[ "$kind" = legacy ] && alg=sha1
	if [ "$4" -eq 0 ] && [ "$(ima json "$d/$name.dry.json" 'R["status"], R["ima"]')" = "('would change', 'would-rehash-$alg')" ]; then
		pass "$what: -n --json says \"ima\":\"would-rehash-$alg\""
	else
		fail "$what: -n --json: exit $4, $(ima json "$d/$name.dry.json" 'R.get("status"), R.get("ima"), R.get("error")' 2>&1)"
	fi
	if [ "$5" -eq 0 ] && [ "$(ima json "$d/$name.json" 'R["status"], R["ima"]')" = "('changed', 'rehashed-$alg')" ]; then
		pass "$what: exit 0, the report says \"ima\":\"rehashed-$alg\""
	else
		fail "$what: exit $5, $(ima json "$d/$name.json" 'R.get("status"), R.get("ima"), R.get("error")' 2>&1)"
		sed 's/^/      stderr: /' "$d/$name.err" 2>/dev/null | head -3
	fi
	cmp -s "$d/$name" "$d/$name.orig" && fail "$what: the file did not change"
	if res=$(ima expect "$d/$name" "$kind"); then
		pass "$what: $res"
	else
		fail "$what: $res"
	fi
	holds "$what: the other attributes kept, no security.evm" \
		'[ "$(ima dump "$d/$name" | grep -v "^security\.ima=")" = "$(grep -v "^security\.ima=" "$d/$name.attrs")" ] && ! ima has "$d/$name" security.evm'
	if cmp -s "$W/orig.out" "$d/$name.run"; then
		pass "$what: the rewrite prints what the original prints"
	else
		fail "$what: the rewrite prints something else"
		diff "$W/orig.out" "$d/$name.run" | head -5 | sed 's/^/      /'
	fi
}

# ---------------------------------------------------------------------------
# Other architectures (run-cross-*.sh): elfpmd and elfpmd --madvise on
# programs and libraries cross-built with the Debian cross toolchains
# (tests/fixtures/Makefile cross-*: 17 MiB of text from big.S) and run
# under qemu-user.  For each fixture (cross_fixture):
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
# An architecture without its cross compiler ($ARCH-linux-gnu-gcc, with
# libc6-dev-ARCH-cross) or qemu-$ARCH is skipped with the reason, the
# whole script (77) when none can run.  The fixtures of the default
# flavour are built once per architecture into the shared
# $TESTS_BUILDDIR/cross-build/ARCH, the others into the script's WORK.

# cross_start: the slow suites' switch, the tool, phdr-dump, readelf,
# eu-elflint where there is one (have_elflint), WORK (work_dir), ARGS; no
# architecture run yet.
cross_start () {
	require_slow "cross builds run under qemu-user"
	ARGS=(alpha "beta gamma")
	require_elfpmd
	work_dir
	export PHDR_DUMP
	have readelf || skip_all "readelf (binutils) not found"
	have_elflint=false
	if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
	built_any=false
	arches_run=0
}

# cross_arch ARCH [FLAVOUR [VAR=VALUE...]]: get ready for the fixtures of
# ARCH (aarch64, riscv64), or say why not (SKIP) and fail: arch, O (the
# shared cross-build/ARCH, or WORK/ARCH-FLAVOUR), make_vars (CROSS= and
# VAR=VALUE...), and the defaults pmd (2 MiB), min_chunks (2), qemu_opts
# (none), stub_works (yes: qemu -strace shows the stub's madvise) and
# expect (aligned; refused: nothing can be aligned; nostub: aligned, but
# the stub refused for nostub_why).
cross_arch () {
	arch=$1
	if ! have "$arch-linux-gnu-gcc"; then
		skip "$arch: $arch-linux-gnu-gcc not found (Debian: gcc-$arch-linux-gnu): skipped"
		return 1
	fi
	if ! have "qemu-$arch"; then
		skip "$arch: qemu-$arch not found (Debian: qemu-user): skipped"
		return 1
	fi
	if [ ! -d "/usr/$arch-linux-gnu/lib" ]; then
		skip "$arch: no /usr/$arch-linux-gnu/lib (Debian: libc6-dev-${arch/aarch64/arm64}-cross): skipped"
		return 1
	fi
	arches_run=$((arches_run + 1))
	if [ -n "${2:-}" ]; then O=$WORK/$arch-$2; else O=$TESTS_BUILDDIR/cross-build/$arch; fi
	make_vars=(CROSS="$arch-linux-gnu-" "${@:3}")
	pmd=$((2 << 20))
	min_chunks=2
	qemu_opts=()
	stub_works=yes
	expect=aligned
}

# cross_finish: skipped (77) when no architecture could run or no fixture
# be built; else WORK removed unless something failed, and finish.
cross_finish () {
	[ "$arches_run" -gt 0 ] || skip_all "no architecture can be cross-built and run here (see above)"
	stop_unless_built
	test_finish
}

# cross_dec N: N (0x-hex or decimal) in decimal.
cross_dec () { printf '%d' "$1"; }

# cross_file_offset FILE ADDR: the file offset (decimal) of address ADDR
# (decimal) in the PT_LOAD of FILE holding it, as phdr-dump shows them;
# nothing if none holds it.
cross_file_offset () {
	"$PHDR_DUMP" "$1" | awk -v e="$2" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$2 == "LOAD" && hex($5) <= e && e < hex($5) + hex($6) { printf "%.0f\n", hex($4) + e - hex($5) }'
}

# cross_init_array_first FILE: what ld.so calls first in FILE's DT_INIT_ARRAY
# (decimal, relative to the load base): the addend of the R_RISCV_RELATIVE
# relocation of the first entry as readelf -r lists it, or, when it lists
# none (DT_RELR, whose entries readelf shows without addends), the entry's
# own bytes.  Nothing without DT_INIT_ARRAY.
cross_init_array_first () {
	local slot addend off
	slot=$(readelf -dW "$1" | awk '$2 == "(INIT_ARRAY)" { print $3 }')
	[ -n "$slot" ] || return 0
	addend=$(readelf -rW "$1" | awk -v s="$(printf '%016x' "$(cross_dec "$slot")")" \
		'$1 == s && $3 == "R_RISCV_RELATIVE" { print $4 }')
	if [ -n "$addend" ]; then
		cross_dec "0x$addend"
		return
	fi
	off=$(cross_file_offset "$1" "$(cross_dec "$slot")")
	[ -n "$off" ] && od -An -tu8 -j "$off" -N 8 "$1" | tr -d ' '
}

# cross_qemu OUT DIR [QEMU_OPTION...]: run the current fixture ($prog, from
# DIR, or from $O with the library in DIR) under qemu-$arch with ARGS and a
# fixed environment; stdout and "exit status N" into OUT, stderr into
# OUT.err.  Reads arch, prog, file, O, ARGS.
cross_qemu () {
	local out=$1 dir=$2 exe status
	shift 2
	local env=(-E FIXTURE_TAG=cross)
	if [ "$prog" = "$file" ]; then exe=$dir/$file; else exe=$O/$prog; env+=(-E "LD_LIBRARY_PATH=$dir"); fi
	{ env -i timeout 60 "qemu-$arch" "$@" -L "/usr/$arch-linux-gnu" "${env[@]}" "$exe" "${ARGS[@]}" \
		>"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# cross_same OUT WHAT: OUT is what the original printed; PASS or FAIL.
cross_same () {
	if cmp -s "$w/orig.out" "$1"; then
		pass "$name: $2 prints the same as the original and exits 42"
	else
		fail "$name: $2 prints something else than the original"
		diff "$w/orig.out" "$1" | head -10 | sed 's/^/      /'
		sed 's/^/      stderr: /' "$1.err" | head -5
	fi
}

# cross_check_layout OUT WHAT STUB: phdr-dump's view of OUT: the text (the
# largest executable PT_LOAD) has p_align $pmd, congruent modulo it, with
# at least $min_chunks whole chunks; every PT_LOAD congruent modulo the
# original's largest p_align (up to 64 KiB); with STUB=yes, one executable
# PT_LOAD more than the original, holding $hook: e_entry (programs),
# DT_INIT or DT_INIT_ARRAY[0] (libraries).
cross_check_layout () {
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
	s_vaddr=$(cross_dec "$s_vaddr"); s_filesz=$(cross_dec "$s_filesz")
	case $hook in
	e_entry) entry=$(cross_dec "$("$PHDR_DUMP" "$out" | sed -n 's/.* entry=\(0x[0-9a-f]*\).*/\1/p')") ;;
	DT_INIT) entry=$(cross_dec "$(readelf -dW "$out" | awk '$2 == "(INIT)" { print $3 }')") ;;
	*) entry=$(cross_init_array_first "$out"); entry=${entry:-0} ;;
	esac
	if [ "$n_out" -eq $((n_orig + 1)) ] && [ "$entry" -ge "$s_vaddr" ] && [ "$entry" -lt $((s_vaddr + s_filesz)) ]; then
		pass "$name: $what: the stub's R-X PT_LOAD at $(printf %#x "$s_vaddr") holds $hook ($(printf %#x "$entry"))"
	else
		fail "$name: $what: no stub PT_LOAD holding $hook (executable PT_LOADs $n_orig -> $n_out, last at $(printf %#x "$s_vaddr") +$(printf %#x "$s_filesz"), $hook $(printf %#x "$entry"))"
	fi
}

# check_bytemap IN OUT HOOK: phdr-dump --bytemap accepts OUT as IN with the
# stub injected, hooked as HOOK says (e_entry, DT_INIT, ...); a refusal, for
# whatever reason, is a failure.
check_bytemap () {
	local msg first
	if ! msg=$("$PHDR_DUMP" --bytemap "$1" "$2" 2>&1); then
		fail "$name: phdr-dump --bytemap: the rewritten file is not the original with the stub injected"
		printf '%s\n' "$msg" | head -10 | sed 's/^/      /'
		return
	fi
	first=$(printf '%s\n' "$msg" | grep -m1 '^bytemap ok')
	case $first in
	*"; stub: "*", hook $3 "*) pass "$name: phdr-dump --bytemap: the original with the stub, hooked through $3: $first" ;;
	*"; stub: "*) fail "$name: phdr-dump --bytemap: the stub is not hooked through $3: $first" ;;
	*) fail "$name: phdr-dump --bytemap finds no stub in the rewritten file: $first" ;;
	esac
}

# cross_stub_acts OUT.strace WANT: whether qemu -strace's log shows the stub at
# work (madvise ... MADV_HUGEPAGE: neither ld.so nor the C library makes
# that call); WANT yes or no.
cross_stub_acts () {
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

# cross_refused CAN_RUN [ELFPMD OPTION...]: a fixture whose text cannot
# be aligned (riscv64's ET_EXEC layout: the first PT_LOAD, at 0x10000,
# holds the ELF header at offset 0, so padding before it is refused): the
# report says so, --madvise injects no stub, whatever is written is the
# original, and it runs the same.
cross_refused () {
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
		cross_qemu "$w/mad.out" "$w/mad" "${qemu_opts[@]}"
		cross_same "$w/mad.out" "the refused rewrite"
	fi
}

# cross_fixture NAME TARGET FILE PROG HOOK [ELFPMD OPTION...]: build (the
# tests/fixtures/Makefile TARGET into $O, under the lock of the scripts
# that share O), rewrite, check and run one fixture of $arch: FILE is the
# file rewritten, PROG what runs (FILE, or a program that loads the
# library FILE), HOOK what the stub is hooked through (e_entry, DT_INIT,
# DT_INIT_ARRAY[0]).  Reads what cross_arch sets.
cross_fixture () {
	name=$arch/$1
	w=$WORK/$arch-$1
	local target=$2
	file=$3 prog=$4 hook=$5
	shift 5
	local opts=("$@")
	mkdir -p "$O" || hard_error "cannot create $O"
	if ! { flock 9 2>/dev/null; build_fixture "$target" "${make_vars[@]}"; } 9>>"$O/.fixtures.lock"; then
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

	cross_qemu "$w/orig.out" "$w/orig" "${qemu_opts[@]}"
	local can_run=true
	if [ "$(tail -1 "$w/orig.out")" = "exit status 42" ] && grep -q 'destructor ran' "$w/orig.out"; then
		pass "$name: the original runs under qemu-$arch and exits 42"
	else
		skip "$name: the original does not run under qemu-$arch ($(tail -1 "$w/orig.out")): run checks skipped"
		sed 's/^/      stderr: /' "$w/orig.out.err" | head -3
		can_run=false
	fi

	if [ "$expect" = refused ]; then
		cross_refused "$can_run" "${opts[@]}"
		return
	fi
	if "$ELFPMD" -q "${opts[@]}" -o "$w/plain/$file" "$w/orig/$file" 2>"$w/plain.err"; then
		check_elflint "$w/plain/$file" "elfpmd"
		cross_check_layout "$w/plain/$file" "elfpmd" no
		if $can_run; then
			cross_qemu "$w/plain.out" "$w/plain" "${qemu_opts[@]}"
			cross_same "$w/plain.out" "elfpmd's rewrite"
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
		cross_check_layout "$w/mad/$file" "--madvise" yes
		check_bytemap "$w/orig/$file" "$w/mad/$file" "$hook"
		if $can_run; then
			cross_qemu "$w/mad.out" "$w/mad" "${qemu_opts[@]}" -strace
			# qemu -strace writes to stderr, and so would the program
			mv "$w/mad.out.err" "$w/mad.strace"
			: >"$w/mad.out.err"
			cross_same "$w/mad.out" "--madvise rewrite"
			cross_stub_acts "$w/mad.strace" "$stub_works"
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

# Shared builds and scratch directories, for tests split into many scripts
# over one expensive setup (the packaging and build-system tests:
# deb-lib.sh, rpm-lib.sh, packages-lib.sh, buildsys-lib.sh).

# scratch_dir: the script's own work directory, $TESTS_BUILDDIR/NAME-work
# (NAME: the script's name without .sh), made empty, into work.  On exit
# the commands of CLEANUP run (run_cleanup), then the directory is
# removed, or kept (and said so) when a check failed, for a look at it.
scratch_dir () {
	work=$TESTS_BUILDDIR/$(basename "$0" .sh)-work
	rm -rf "$work"
	mkdir -p "$work" || hard_error "cannot create $work"
	trap 'run_cleanup; if [ "$n_fail" -eq 0 ]; then rm -rf "$work"; else echo "      (kept $work)"; fi' EXIT
	trap 'exit 130' INT TERM HUP
}

# content_key FILE...: a key of the names and contents of FILE... and of
# the text on standard input (tool versions, options), for built_once.
content_key () { { sha256sum -- "$@"; cat; } | sha256sum | cut -d' ' -f1; }

# built_once DIR KEY BUILDER [ARG...]: DIR as the shell function BUILDER
# ARG... makes it, made once for KEY and then reused by every script that
# asks for it (the first one builds, the others wait for it: flock on
# DIR.lock), so that many small scripts inspect one build.  A KEY that
# changed (a source edited, another elfpmd, a tool upgraded: the caller
# puts all of them in) makes it again.  BUILDER runs in a subshell in an
# empty DIR, its output in DIR.out; it exits 0 (made), 77 with the reason
# in DIR/skip (cannot be made here) or anything else (failed: recorded
# too, not tried again by the next script, nor by the next make check
# while KEY stays the same: make clean, or removing DIR, tries again).
# Returns BUILDER's status; on 77 the script is skipped.
built_once () {
	local dir=$1 key=$2 fd t0=$SECONDS rc
	shift 2
	mkdir -p "${dir%/*}" || hard_error "cannot create ${dir%/*}"
	have flock || hard_error "flock(1) not found (Debian: package util-linux)"
	exec {fd}>>"$dir.lock" || hard_error "cannot open $dir.lock"
	flock -w 7200 "$fd" || hard_error "waited two hours for $dir.lock"
	if [ "$(cat "$dir/.key" 2>/dev/null)" = "$key" ]; then
		rc=$(cat "$dir/.status")
		note "${dir##*/}: made before for these sources (status $rc, waited $((SECONDS - t0)) s)"
	else
		rm -rf "$dir" && mkdir -p "$dir" || hard_error "cannot create $dir"
		( "$@" ) > "$dir.out" 2>&1 {fd}>&-
		rc=$?
		echo "$rc" > "$dir/.status" && echo "$key" > "$dir/.key"
		note "${dir##*/}: made in $((SECONDS - t0)) s, status $rc (log: $dir.out)"
	fi
	exec {fd}>&-
	case $rc in
	0) return 0 ;;
	77) skip_all "$(cat "$dir/skip" 2>/dev/null)" ;;
	*) tail -5 "$dir.out" | sed 's/^/      /'; return "$rc" ;;
	esac
}

# ---------------------------------------------------------------------------
# The command line (run-cli-*.sh): a PIE with 4 MiB of text that the relaxed
# rule aligns (sample, which calls into its big text and prints "ok") and a
# small program it does not (small), built once (shared_build cli).

# cli_build: those, in the current directory.
cli_build () {
	printf '.text\n.globl big\nbig: .fill 0x400000,1,0xc3\n' >big.S
	printf '#include <stdio.h>\nextern char big[];\nint main(void){((void(*)(void))(big+0x300000))();puts("ok");return 0;}\n' >m.c
	printf 'int main(void){return 0;}\n' >small.c
	cc -O1 -fPIE -pie -Wa,--noexecstack -o sample m.c big.S && cc -O1 -o small small.c
}

# cli_fixture: the script's work directory (work_dir), and CLI, the directory
# of sample and small (never written to), built unless they are; skips the
# script where they cannot be.
cli_fixture () {
	require_elfpmd
	work_dir
	have cc || skip_all "no C compiler to build a sample"
	shared_build cli cli_build || skip_all "cannot build sample programs: $(tail -1 "$SHARED/.log") (log: $SHARED/.log)"
	CLI=$SHARED
}

# expect_status WANT DESCRIPTION COMMAND...: COMMAND exits WANT; its stdout
# is in $WORK/out, its stderr in $WORK/err (shown when it does not).
expect_status () {
	local want=$1 what=$2 got
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass "$what (exit $got)"; else fail "$what: exit $got, expected $want"; sed 's/^/      /' "$WORK/err"; fi
}

# expect_skip FILE REASON: FILE is skipped, its skip_reason starts with
# REASON: exit 0, status "skipped", the file left alone in place, an -o copy
# identical to it.
expect_skip () {
	local f=$1 want=$2 what sig
	what=$(basename "$f")
	sig=$(file_signature "$f")
	expect_status 0 "$what: dry run" "$ELFPMD" -n --json "$f"
	grep -q '"status":"skipped"' "$WORK/out" && grep -qF "\"skip_reason\":\"$want" "$WORK/out" \
		&& pass "$what: skipped ($want)" || fail "$what: not skipped for '$want': $(cat "$WORK/out")"
	expect_status 0 "$what: in place" "$ELFPMD" -q "$f"
	check "$what: left alone" test "$sig" = "$(file_signature "$f")"
	rm -f "$WORK/skip.out"
	expect_status 0 "$what: -o" "$ELFPMD" -q -o "$WORK/skip.out" "$f"
	check "$what: -o copy identical" cmp -s "$f" "$WORK/skip.out"
}

# man_bold SECTION: the bold tokens of the man page's section SECTION (.B,
# the bold arguments of .BR/.BI/.RB/.IB, or \fB...\fR), one a line, with \-
# read as -, and an option's "=ARG" dropped.
man_bold () {
	awk -v want="$1" '
	function args(line, a,   n, i, c, cur, inarg, q) {
		n = 0; cur = ""; inarg = 0; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) {
				if (c == "\"") q = 0; else cur = cur c
				continue
			}
			if (c == "\"" && !inarg) { q = 1; inarg = 1; continue }
			if (c == " " || c == "\t") {
				if (inarg) { a[++n] = cur; cur = ""; inarg = 0 }
				continue
			}
			cur = cur c; inarg = 1
		}
		if (inarg) a[++n] = cur
		return n
	}
	function emit(t) {
		gsub(/\\-/, "-", t); gsub(/\\&/, "", t); gsub(/\\f[BIRP]/, "", t)
		if (t ~ /^--/) sub(/=.*/, "", t)
		if (t != "") print t
	}
	/^\.SH / { sec = $0; sub(/^\.SH +/, "", sec); gsub(/"/, "", sec); next }
	sec != want { next }
	{
		line = $0
		# inline bold: \fBtoken\fR (or \fP, \fI)
		rest = line
		while (match(rest, /\\fB[^\\]*(\\-[^\\]*)*\\f[RPI]/)) {
			emit(substr(rest, RSTART + 3, RLENGTH - 6))
			rest = substr(rest, RSTART + RLENGTH)
		}
		if (line !~ /^\.(B|BR|BI|RB|IB)( |$)/) next
		m = line; sub(/ .*/, "", m); sub(/^\./, "", m)
		n = args(substr(line, length(m) + 3), a)
		for (i = 1; i <= n; i++)
			if (m == "B" || ((m == "BR" || m == "BI") && i % 2 == 1) || ((m == "RB" || m == "IB") && i % 2 == 0))
				emit(a[i])
	}' "$TESTS_SRCDIR/../man/elfpmd.1"
}

# ---------------------------------------------------------------------------
# elfpmd status (run-status-*.sh): programs with 17 MiB of text (tests/fixtures
# madbig.S, madmain.c with FIXTURE_PAUSE: they stay, text mapped, until
# killed) run paused, each under a label:
#   orig   mad-pie as linked (not aligned)
#   align  elfpmd's rewrite without the stub
#   mad    elfpmd --madvise's rewrite
#   lib    usemadbig with libmadbig.so rewritten by --madvise
#   gone   a copy of mad deleted while it runs
#   moved  a copy of mad renamed while it runs (to old), and another file
#          given its name

# status_require: what every script of elfpmd status needs (elfpmd, the
# page-cache lock, python3, THP with a 2 MiB PMD), its work directory, and
# the paused programs stopped by PID when it exits, whatever happens.
status_require () {
	PMD=$((0x200000))
	pids=()
	require_elfpmd
	page_cache_lock
	have python3 || skip_all "python3 not found (reads smaps and the JSON report)"
	[ -r /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ] \
		|| skip_all "kernel without transparent huge pages (elfpmd status has nothing to report)"
	[ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)" = "$PMD" ] \
		|| skip_all "this test's fixtures are made for a 2 MiB PMD"
	work_dir
	trap status_stop EXIT
}
status_stop () {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}

# status_fixtures: the fixtures built (mad-pie, mad-lib, mad-tools, into $O).
status_fixtures () {
	local t
	built_any=false
	for t in mad-pie mad-lib mad-tools; do
		build_or_skip "$t" "$t" && built_any=true
	done
	stop_unless_built
	[ -x "$O/mad-pie" ] || skip_all "mad-pie could not be built"
}

# status_build: in the current directory, orig/mad-pie (a copy), and
# elfpmd's rewrites align/mad-pie, mad/mad-pie and, where usemadbig was
# built, lib/libmadbig.so.
status_build () {
	mkdir -p orig align mad lib || return 1
	cp "$O/mad-pie" orig/mad-pie || return 1
	"$ELFPMD" -q -o align/mad-pie "$O/mad-pie" || return 1
	"$ELFPMD" -q --madvise -o mad/mad-pie "$O/mad-pie" || return 1
	[ ! -x "$O/usemadbig" ] || "$ELFPMD" -q --madvise -o lib/libmadbig.so "$O/libmadbig.so"
}

# status_files: status_fixtures, and the files of the labels: those of
# status_build, built once (shared_build status) in FILES, and copies of
# mad in $WORK/gone and $WORK/moved; have_lib says whether lib can run,
# ideal is the whole chunks of align's file (phdr-dump; what aligning adds
# to orig).
status_files () {
	local libs=()
	status_fixtures
	[ -x "$O/usemadbig" ] && libs=("$O/libmadbig.so")
	shared_build status status_build "$ELFPMD" "$O/mad-pie" "${libs[@]}" \
		|| hard_error "elfpmd fails on mad-pie: $(tail -1 "$SHARED/.log")"
	FILES=$SHARED
	mkdir -p "$WORK/gone" "$WORK/moved"
	cp "$FILES/mad/mad-pie" "$WORK/gone/mad-pie"
	cp "$FILES/mad/mad-pie" "$WORK/moved/mad-pie"
	have_lib=false
	[ -s "$FILES/lib/libmadbig.so" ] && have_lib=true
	ideal=$(ideal_chunks "$FILES/align/mad-pie")
}

# status_start LABEL...: start the programs of those labels paused (lib only
# when have_lib), their PIDs in pid_LABEL and, in order, in pid_list;
# labels lists the labels started.
status_start () {
	local l p
	labels= pid_list=()
	for l in "$@"; do
		case $l in
		lib) $have_lib || continue
		     start_paused lib "$O/usemadbig" "$FILES/lib" ;;
		gone) start_paused gone "$WORK/gone/mad-pie"
		      rm -f "$WORK/gone/mad-pie" ;;
		moved) start_paused moved "$WORK/moved/mad-pie"
		       mv "$WORK/moved/mad-pie" "$WORK/moved/old"
		       cp "$O/mad-pie" "$WORK/moved/mad-pie" ;;
		*) start_paused "$l" "$FILES/$l/mad-pie" ;;
		esac
		labels="${labels:+$labels }$l"
	done
	for l in $labels; do
		p=pid_$l
		pid_list+=("${!p}")
	done
}

# ---------------------------------------------------------------------------
# Runs over many files (run-batch-*.sh): two programs and a library with
# 4.5 MiB of text each, built once (shared_build batch) into BATCH: prog
# (which calls into its text and the library's and prints "batch ok 42"),
# libbatch.so.1, obj.o (relocatable) and prog.debug (objcopy
# --only-keep-debug); batch_tree lays them out as a staging tree.

# batch_build: those, in the current directory, with CC (default cc).
batch_build () {
	local cc=${CC:-cc}
	printf '\t.text\n\t.globl big\nbig:\n\t.fill 0x480000,1,0xc3\n\t.section .note.GNU-stack,"",@progbits\n' >big.S
	cat >main.c <<'EOF_C'
#include <stdio.h>
extern char big[];
int lib_answer (void);
int main (void)
{
  for (long off = 0; off < 0x480000; off += 0x100000)
    ((void (*) (void)) (big + off)) ();
  printf ("batch ok %d\n", lib_answer ());
  return 0;
}
EOF_C
	printf 'extern char big[];\nint lib_answer (void) { ((void (*) (void)) big) (); return 42; }\n' >lib.c
	"$cc" -O2 -g -fPIC -shared -Wl,-soname,libbatch.so.1 -o libbatch.so.1 lib.c big.S \
		&& "$cc" -O2 -g -fPIE -pie -o prog main.c big.S -L. -l:libbatch.so.1 \
		&& "$cc" -O2 -c -o obj.o lib.c \
		&& objcopy --only-keep-debug prog prog.debug
}

# batch_fixture: the script's work directory (work_dir) and BATCH, the
# directory of the fixture (never written to), built unless it is; skips
# the script where it cannot be.
batch_fixture () {
	require_elfpmd
	work_dir
	have "${CC:-cc}" || skip_all "no C compiler (${CC:-cc})"
	shared_build batch batch_build || hard_error "cannot build the fixtures: $(tail -1 "$SHARED/.log") (log: $SHARED/.log)"
	BATCH=$SHARED
}

# batch_tree DIR: the staging tree in DIR: prog with hard links in two
# directories and a symbolic link, a set-user-ID helper, the library and its
# link, a script, the object, separate debug files inside and outside
# usr/lib/debug, a README, copies of prog in a directory to prune
# (opt/skipme) and under a name to exclude (usr/bin/excluded-prog) and
# under a name with a newline, a FIFO, a MIPS copy (e_machine 8: a machine
# without a PMD size).
batch_tree () {
	local t=$1
	mkdir -p "$t/usr/bin" "$t/usr/lib" "$t/usr/libexec/batch" "$t/usr/lib/debug/.build-id/aa" \
		"$t/usr/share/doc" "$t/opt/skipme"
	cp "$BATCH/prog" "$t/usr/bin/prog"
	ln "$t/usr/bin/prog" "$t/usr/bin/prog-link"
	ln "$t/usr/bin/prog" "$t/usr/libexec/batch/prog-other-dir"
	ln -s prog "$t/usr/bin/prog-alias"
	cp "$BATCH/prog" "$t/usr/libexec/batch/helper"
	cp "$BATCH/libbatch.so.1" "$t/usr/lib/libbatch.so.1"
	ln -s libbatch.so.1 "$t/usr/lib/libbatch.so"
	printf '#!/bin/sh\necho script\n' > "$t/usr/bin/script"
	chmod 755 "$t/usr/bin/script"
	cp "$BATCH/obj.o" "$t/usr/lib/obj.o"
	cp "$BATCH/prog.debug" "$t/usr/lib/debug/.build-id/aa/bbcc.debug"
	cp "$BATCH/prog.debug" "$t/usr/lib/debug/prog.debug"
	cp "$BATCH/prog.debug" "$t/usr/share/doc/prog.debug"
	printf 'text\n' > "$t/usr/share/doc/README"
	cp "$BATCH/prog" "$t/opt/skipme/prog"
	cp "$BATCH/prog" "$t/usr/bin/excluded-prog"
	cp "$BATCH/prog" "$t/usr/bin/name with
newline"
	mkfifo "$t/usr/bin/fifo"
	cp "$BATCH/prog" "$t/usr/lib/firmware-mips"
	printf '\010\000' | dd of="$t/usr/lib/firmware-mips" bs=1 seek=18 conv=notrunc 2> /dev/null
	chmod 4755 "$t/usr/libexec/batch/helper"
}

# batch_walk: the staging tree in $WORK/orig, and a copy of it in
# $WORK/tree with another name of prog outside it ($WORK/outside-link)
# rewritten by one run (-r -j2 -p, skipme pruned, excluded-prog excluded;
# the library's date set first): its stdout in $WORK/out, its stderr in
# $WORK/err; PASS when it exits 0.
batch_walk () {
	local status
	batch_tree "$WORK/orig"
	cp -a "$WORK/orig" "$WORK/tree"
	ln "$WORK/tree/usr/bin/prog" "$WORK/outside-link"
	touch -d '2001-02-03 04:05:06' "$WORK/tree/usr/lib/libbatch.so.1"
	"$ELFPMD" -r -j2 -p --exclude='skipme' --exclude='*/usr/bin/excluded-*' "$WORK/tree" >"$WORK/out" 2>"$WORK/err"
	status=$?
	check "-r exits 0" test "$status" -eq 0
	note "$(tail -1 "$WORK/out")"
}

# ---------------------------------------------------------------------------
# elfpmd prime (run-prime-*.sh), which puts a file's aligned text into the
# page cache as PMD-sized folios without running it, over the 17 MiB-text
# PIE mad-pie (tests/fixtures madbig.S, madmain.c) in the rewrites that
# status_build makes (shared_build status): align (elfpmd, no stub) and mad
# (elfpmd --madvise), copied into $WORK/align and $WORK/mad (new files,
# their own page cache), and orig, as linked.

# prime_require: what every script of elfpmd prime needs (root and THP for
# drop_caches, the page-cache lock, python3, file THP on the file system of
# the work directory), its work directory, the paused programs (pids) and
# the CLEANUP functions run when it exits; the helpers PAGECACHE and
# THP_OFF; ARGS, the arguments of every run; and the files of the labels
# LABEL... (orig, align, mad) in $WORK/LABEL/mad-pie.
prime_require () {
	local l
	ARGS=(alpha "beta gamma")
	pids=()
	CLEANUP=()
	require_elfpmd
	require_root_thp "drop_caches for the cold and order-0 states"
	page_cache_lock
	have python3 || skip_all "python3 not found (reads the JSON report)"
	work_dir
	trap prime_stop EXIT
	build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c, thp-off.c): $(tail -1 "$O/mad-tools.log")"
	PAGECACHE=$O/pagecache
	THP_OFF=$O/thp-off
	build_or_skip mad-pie mad-pie || skip_all "mad-pie cannot be built here"
	require_file_thp "$WORK"
	local libs=()
	[ -x "$O/usemadbig" ] && libs=("$O/libmadbig.so")
	shared_build status status_build "$ELFPMD" "$O/mad-pie" "${libs[@]}" || hard_error "elfpmd fails on mad-pie: $(tail -1 "$SHARED/.log")"
	for l in "$@"; do
		mkdir -p "$WORK/$l" && cp "$SHARED/$l/mad-pie" "$WORK/$l/mad-pie" || hard_error "cannot copy $l"
	done
}
prime_stop () {
	local p c
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for c in "${CLEANUP[@]}"; do "$c"; done
}

# json FILE KEY: KEY of the JSON object in FILE (one line).
json () { python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print("null" if v is None else v)' "$1" "$2" 2>/dev/null; }

# prime_states LABEL: for the rewrite LABEL (align or mad), in three page
# cache states: cold (caches dropped), order0 (caches dropped, then the
# whole file cached in 4 KiB folios: fixtures/pagecache order0), fresh (a
# copy just written with dd bs=4k: dirty small folios, as a package manager
# leaves it), prime_then_run.
prime_states () {
	local label=$1 exe=$WORK/$1/mad-pie
	have_strace=false
	if have strace; then have_strace=true; else skip "strace not found: the no-repair checks are skipped"; fi
	"$WORK/orig/mad-pie" "${ARGS[@]}" >"$WORK/orig.out" 2>&1
	echo "exit status $?" >>"$WORK/orig.out"
	[ "$(tail -1 "$WORK/orig.out")" = "exit status 42" ] || skip_all "mad-pie does not run here: $(tail -1 "$WORK/orig.out")"
	drop_caches
	prime_then_run "$label" cold "$exe"
	drop_caches
	"$PAGECACHE" order0 "$exe" >/dev/null || hard_error "pagecache order0 failed"
	prime_then_run "$label" order0 "$exe"
	mkdir -p "$WORK/fresh-$label"
	dd if="$exe" of="$WORK/fresh-$label/mad-pie" bs=4k 2>/dev/null
	chmod 755 "$WORK/fresh-$label/mad-pie"
	prime_then_run "$label" fresh "$WORK/fresh-$label/mad-pie"
}

# prime_then_run LABEL STATE EXE: prime EXE: elfpmd prime --json must report
# every whole chunk (counted by tests/phdr-dump, which shares no code with
# elfpmd) in PMD-sized folios and exit 0; then one start of the program must
# print what the original prints, exit 42 and have its text PMD-mapped, all
# of it (FilePmdMapped from its own smaps copy: an independent measure of
# what prime did; align has no stub, so only the page cache can give it PMD
# pages in THP mode madvise), and mad's stub must have nothing to repair
# (strace: no fadvise64).  Reads have_strace.
prime_then_run () {
	local label=$1 state=$2 exe=$3 ideal w=$WORK/$1.$2 rc
	ideal=$(ideal_chunks "$exe")
	"$ELFPMD" prime --json "$exe" >"$w.json" 2>"$w.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(json "$w.json" chunks)" = "$ideal" ] && [ "$(json "$w.json" pmd_folios)" = "$ideal" ] \
		&& [ "$(json "$w.json" reason)" = null ] && [ "$ideal" -gt 0 ]; then
		pass "$label $state: prime: $ideal of $ideal chunks in PMD-sized folios ($(json "$w.json" primed) primed)"
	else
		fail "$label $state: prime exit $rc, expected $ideal chunks: $(cat "$w.json" "$w.err") (free blocks of 2 MiB or more: $(free_pmd_blocks))"
	fi
	rm -f "$w.smaps"
	if [ "$label" = mad ] && $have_strace; then
		FIXTURE_SMAPS=$w.smaps strace -f -o "$w.strace" -e trace=fadvise64,madvise "$exe" "${ARGS[@]}" >"$w.out" 2>"$w.out.err"
	else
		FIXTURE_SMAPS=$w.smaps "$exe" "${ARGS[@]}" >"$w.out" 2>"$w.out.err"
	fi
	echo "exit status $?" >>"$w.out"
	if cmp -s "$WORK/orig.out" "$w.out"; then
		pass "$label $state: the first start after prime prints the same and exits 42"
	else
		fail "$label $state: the first start after prime prints something else"
		diff "$WORK/orig.out" "$w.out" | head -5 | sed 's/^/      /'
	fi
	local kb
	kb=$(pmd_kb "$w.smaps" "$exe")
	if [ "$kb" -lt $((ideal * 2048)) ] && [ "$label" = align ]; then
		# This machine's DAMON pageout scheme reclaims cold memory: a PMD
		# folio can go between the prime and the start, and the start (no
		# stub) then reads that chunk in small folios.  A second prime that
		# has to prime a chunk again says so; the pair then runs once more.
		"$ELFPMD" prime --json "$exe" >"$w.again.json" 2>&1
		if [ "$(json "$w.again.json" primed)" -gt 0 ] 2>/dev/null; then
			note "$label $state: the first start had $kb kB PMD-mapped; prime found $(json "$w.again.json" primed) chunk(s) to prime again (reclaimed or split since): started once more"
			FIXTURE_SMAPS=$w.smaps "$exe" "${ARGS[@]}" >/dev/null 2>&1
			kb=$(pmd_kb "$w.smaps" "$exe")
		fi
	fi
	if [ "$kb" -eq $((ideal * 2048)) ]; then
		pass "$label $state: the first start after prime has its text PMD-mapped: $kb kB, all $ideal chunks"
	else
		fail "$label $state: the first start after prime has $kb kB PMD-mapped of $((ideal * 2048)) (free blocks of 2 MiB or more: $(free_pmd_blocks))"
	fi
	if [ "$label" = mad ] && $have_strace; then
		if grep -q fadvise64 "$w.strace"; then
			fail "$label $state: the stub repaired chunks after prime: $(grep -c fadvise64 "$w.strace") fadvise64"
		else
			pass "$label $state: the stub had nothing to repair (no fadvise64)"
		fi
	fi
}


# ---------------------------------------------------------------------------
# Real programs and libraries with more than 4 MiB of text
# (run-fixtures-*.sh, tests/fixtures), rewritten by raising p_align alone:
# moving file contents is run-padding-*.sh's part, so every run there is
# elfpmd --no-pad.  Each script checks one behaviour over every fixture of
# ALIGN_FIXTURES that builds (for_each_align_fixture).

# The fixtures, one per line:
#   NAME  FILE  PROGRAM  TYPE  RELAXED  KERNEL
# NAME is the make target; FILE is the file rewritten; PROGRAM is what runs
# (the file itself, or a program that needs the library FILE from
# LD_LIBRARY_PATH); TYPE is the "type" the JSON report must give; RELAXED and
# KERNEL say whether that rule must change an alignment ("yes"), or whether
# only agreement with phdr-dump's prediction is checked ("-").  lld places the
# text at an offset not congruent with its address, so nothing is asserted for
# the lld fixtures yet.
ALIGN_FIXTURES='
pie            pie             pie             pie            yes  -
nopie          nopie           nopie           executable     yes  -
static         static          static          executable     yes  -
static-pie     static-pie      static-pie      pie            yes  -
libbig         libbig.so       usebig          shared_object  yes  -
pie-noseparate pie-noseparate  pie-noseparate  pie            yes  yes
lld-pie        lld-pie         lld-pie         pie            -    -
libbiglld      libbiglld.so    usebig-lld      shared_object  -    -
'

# for_each_align_fixture FUNCTION: require elfpmd, set up the script's work
# directory (work_dir) and ELFPMD to elfpmd --no-pad; then for each fixture
# of ALIGN_FIXTURES that builds, set name file prog type must_relaxed
# must_kernel, the fixture's work directory w with the original in
# $w/orig/FILE (pristine, its file_signature), run FUNCTION, and remove w
# unless something failed.  Exits 77 when none builds.  Sets have_elflint
# and lint_before (the original's elflint_count), have_python and am_root.
for_each_align_fixture () {
	local fn=$1 fails_before
	require_elfpmd
	work_dir
	printf '#!/bin/sh\nexec "%s" --no-pad "$@"\n' "$ELFPMD" >"$WORK/elfpmd-no-pad"
	chmod +x "$WORK/elfpmd-no-pad"
	ELFPMD=$WORK/elfpmd-no-pad
	PMD=0x200000
	have_elflint=false
	if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
	have_python=false
	if have python3 && python3 -c 'import json' 2>/dev/null; then have_python=true
	else skip "python3 not found: JSON parse checks skipped"; fi
	am_root=false
	[ "$(id -u)" = 0 ] && am_root=true
	built_any=false
	while read -r name file prog type must_relaxed must_kernel <&3; do
		[ -n "$name" ] || continue
		echo "# fixture $name"
		build_or_skip "$name" "$name" || continue
		built_any=true
		w=$WORK/$name
		mkdir -p "$w/orig"
		cp -p "$O/$file" "$w/orig/$file"
		pristine=$(file_signature "$w/orig/$file")
		fails_before=$n_fail
		$have_elflint && lint_before=$(elflint_count "$w/orig/$file")
		"$fn"
		# Keep the work files of a failed fixture for a look, drop the
		# others (they are several MiB each).
		if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
	done 3<<<"$ALIGN_FIXTURES" </dev/null
	stop_unless_built
}

# check_phdrs RESULT RULE: everything but p_align is as in the original and
# every PT_LOAD's p_align is what phdr-dump predicts for RULE.
check_phdrs () {
	local result=$1 rule=$2
	if diff <(phdr_without_align "$w/orig/$file") <(phdr_without_align "$result") >"$w/diff" 2>&1
	then pass "$name: $rule: ELF header and program headers unchanged but for p_align"
	else fail "$name: $rule: ELF or program headers changed beyond p_align"; sed 's/^/      /' "$w/diff" | head -20
	fi
	if diff <(expected_aligns "$rule" "$PMD" "$w/orig/$file") <(load_aligns "$result") >"$w/diff" 2>&1
	then pass "$name: $rule: PT_LOAD alignments are the predicted ones ($(load_aligns "$result" | tr '\n' ' ' | sed 's/ $//'))"
	else fail "$name: $rule: PT_LOAD alignments differ from phdr-dump --expect-$rule (< predicted, > written)"
	     sed 's/^/      /' "$w/diff" | head -20
	fi
}

# check_changed RULE MUST RESULT: when MUST is yes, RULE has to change some
# PT_LOAD's p_align: the prediction says so and RESULT shows it.
check_changed () {
	[ "$2" = yes ] || return 0
	local predicted
	predicted=$("$PHDR_DUMP" "--expect-$1" "$PMD" "$w/orig/$file" | grep -c ' eligible$')
	if [ "$predicted" -gt 0 ] && ! cmp -s "$w/orig/$file" "$3"; then
		pass "$name: $1: $predicted segment(s) eligible and the file changed"
	else
		fail "$name: $1: expected an aligned segment: $predicted predicted eligible, file $(cmp -s "$w/orig/$file" "$3" && echo unchanged || echo changed)"
	fi
}

# unchanged_since COPY FILE SIGNATURE: FILE has COPY's bytes and still the
# file_signature SIGNATURE.
unchanged_since () { cmp -s "$1" "$2" && test "$3" = "$(file_signature "$2")"; }

has_cap_net_raw () { getcap "$1" | grep -q 'cap_net_raw[+=]ep'; }

# relaxed_rewrite: the original rewritten in place with the default
# (relaxed) rule, in r ($w/relaxed/FILE); PASS or FAIL as rewrite, whose
# status it returns.
relaxed_rewrite () {
	r=$w/relaxed/$file
	mkdir -p "$w/relaxed"
	cp -p "$w/orig/$file" "$r"
	rewrite relaxed "$r"
}

# rewrite WHAT FILE ARGS...: run elfpmd -q ARGS... FILE in place, expect exit 0
# and no output on stdout.
rewrite () {
	local what=$1 target=$2 status
	shift 2
	"$ELFPMD" -q "$@" "$target" >"$target.stdout" 2>"$target.stderr"
	status=$?
	if [ $status -eq 0 ] && [ ! -s "$target.stdout" ]; then
		pass "$name: $what: elfpmd -q${*:+ $*} exits 0, silently"
		rm -f "$target.stdout" "$target.stderr"
		return 0
	fi
	fail "$name: $what: elfpmd -q${*:+ $*} exited $status"
	sed 's/^/      stdout: /' "$target.stdout" | head -5
	sed 's/^/      stderr: /' "$target.stderr" | head -5
	rm -f "$target.stdout" "$target.stderr"
	return 1
}


# ---------------------------------------------------------------------------
# Hostile numbers (run-hostile-*.sh): files that are valid ELF but made to
# break the planner's arithmetic or its assumptions, one crafted case per
# defect found by review and fuzzing, made from the lld-pie, mad-pie and
# mad-lib fixtures (into $O, shared).  Every number read from a file is
# untrusted: a hostile value must become a refusal with a reason (exit 1,
# the file untouched, one line on stderr) or a plan that leaves the hostile
# part alone (a report saying why), never an "internal error", never a plan
# larger than one PMD per hole plus the stub, never a hang.  For each case,
# with its options (--madvise where the stub is what the case is about), a
# dry run (`-n --json`) and an in-place rewrite of a copy (check_case):
#   - exit status 0 or 1 within 5 s, reported when slower than 1 s;
#   - no "internal error", no sanitizer report;
#   - on 1: one stderr line naming the file, the file byte for byte as it was;
#   - on 0: the output at most 2 MiB per PT_LOAD plus 1 MiB larger than the
#     input; a second dry run of the output does not want to change it;
#   - what the case expects in the JSON report (a refusal's reason, a size).

# hostile_setup FIXTURE: elfpmd, python3 and the script's work directory;
# the fixture FIXTURE built into $O, or the script skipped.
hostile_setup () {
	require_elfpmd
	have python3 || skip_all "python3 is needed to read the JSON reports"
	work_dir
	build_fixture "$1" || skip_all "$1: cannot build it here: $(why_unbuildable "$1") (log: $O/$1.log)"
}

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
# GNU strip, eu-strip and objcopy after elfpmd --madvise (run-strip-*.sh),
# for the shapes whose program header table had no free slot (the table
# grows in place; it no longer moves into the stub's segment, which GNU
# strip breaks).  Built once (shared_build strip), x86-64 assembly:
#   dl         a helper that dlopens each library it is given (RTLD_NOW)
#              and calls the function named after it, if any, printing
#              what it returns;
#   libhash.so 4 MiB of text (whole chunks for the stub) and 12,000
#              exported functions, each returning its number: a .gnu.hash
#              of about 100 KiB right after the build-id note, which
#              follows the table (libgrpc, librustc_driver);
#   go         a static program whose section header table follows the
#              program header table inside the first PT_LOAD (the Go
#              linker's layout: terraform), moved there by hand;
#   go-noshdr  go without section headers, and 8 bytes after the table
#              that nothing accounts for: nothing can make room.

# strip_build: those, in the current directory.
strip_build () {
	cat >dl.c <<'EOF_C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int
main (int argc, char **argv)
{
  unsetenv ("LD_PRELOAD");
  for (int i = 1; i + 1 < argc; i += 2)
    {
      void *h = dlopen (argv[i], RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
	{
	  printf ("dlopen: %s\n", dlerror ());
	  return 1;
	}
      if (argv[i + 1][0] != '-')
	{
	  int (*f) (void) = (int (*) (void)) dlsym (h, argv[i + 1]);
	  if (f == NULL)
	    {
	      printf ("dlsym %s: not found\n", argv[i + 1]);
	      return 1;
	    }
	  printf ("%s() = %d\n", argv[i + 1], f ());
	}
      else
	printf ("loaded\n");
    }
  return 0;
}
EOF_C
	cc -O2 -o dl dl.c -ldl || return 1
	hashlib_asm lib.S
	cc -shared -nostdlib -Wl,--build-id -Wl,--hash-style=gnu -o libhash.so lib.S || return 1
	cat >go.S <<'EOF_S'
	.text
	.globl _start
_start:
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$len, %edx
	mov	$1, %eax
	syscall
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .rodata
msg:	.ascii "go-shaped program ran\n"
	len = . - msg
	.section .text.big, "ax", @progbits
	.p2align 12
	.fill 4 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF_S
	cc -c -o go.o go.S && ld -static -z noseparate-code -o go go.o || return 1
	# Move the section header table to right after the program header
	# table (ELF64 little-endian: e_phoff 32, e_shoff 40, e_phnum 56,
	# e_shnum 60).
	python3 - go <<'EOF_PY' || return 1
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
phoff, shoff = struct.unpack_from("<QQ", b, 32)
phnum, shnum = struct.unpack_from("<H", b, 56)[0], struct.unpack_from("<H", b, 60)[0]
at = phoff + phnum * 56
size = shnum * 64
# the bytes there must be free: before the first section with contents
first = min(struct.unpack_from("<Q", b, shoff + i * 64 + 24)[0]
            for i in range(1, shnum)
            if struct.unpack_from("<I", b, shoff + i * 64 + 4)[0] != 8)
if at + size > first or any(b[at:at + size]):
    sys.exit("no room after the program header table")
b[at:at + size] = b[shoff:shoff + size]
struct.pack_into("<Q", b, 40, at)
del b[shoff:shoff + size]
open(p, "wb").write(b)
EOF_PY
	cp go go-noshdr
	python3 - go-noshdr <<'EOF_PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
phoff = struct.unpack_from("<Q", b, 32)[0]
phnum = struct.unpack_from("<H", b, 56)[0]
at = phoff + phnum * 56
b[at:at + 8] = b"\x01" * 8           # bytes nothing accounts for
struct.pack_into("<Q", b, 40, 0)     # e_shoff
struct.pack_into("<HHH", b, 58, 64, 0, 0)  # e_shentsize, e_shnum, e_shstrndx
open(p, "wb").write(b)
EOF_PY
}

# strip_fixture: the script's work directory (work_dir) and W, the
# directory of the fixture (never written to), built unless it is; skips
# the script where it cannot be.
strip_fixture () {
	local t
	require_elfpmd
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 assembly"
	for t in cc ld strip objcopy readelf python3; do
		have $t || skip_all "needs $t"
	done
	work_dir
	shared_build strip strip_build || hard_error "cannot build the fixtures: $(tail -1 "$SHARED/.log") (log: $SHARED/.log)"
	W=$SHARED
}

# run_case KIND FILE FUNCTION OUT: run the program (its output, then the
# exit status) or dlopen the library.
run_case () {
	local kind=$1 file=$2 fn=$3 out=$4 dir=${2%/*}
	if [ "$kind" = lib ]; then
		(cd "$dir" && HOME=$WORK timeout -k 5 60 "$W/dl" "$file" "$fn") >"$out" 2>&1
	else
		(cd "$dir" && HOME=$WORK timeout -k 5 60 "$file" version) >"$out" 2>&1
	fi
	echo "exit status $?" >>"$out"
}


# strip_case NAME KIND FILE [FUNCTION]: KIND lib (run through dl, calling
# FUNCTION) or prog.  elfpmd --madvise's rewrite, then each of strip,
# strip -g, eu-strip and objcopy run over it, runs as the original (same
# output), still carries the stub (a second elfpmd run finds it) and passes
# eu-elflint where the original does; the stub is injected and the table
# grew in place (not moved); for libhash, the PT_NOTE and the .gnu.hash
# moved into the stub's segment.  Work in $WORK/NAME.d.
strip_case () {
	local name=$1 kind=$2 file=$3 fn=${4:-} d=$WORK/$1.d moved tool t f
	mkdir -p "$d"
	run_case "$kind" "$file" "$fn" "$d/orig.out"
	if ! grep -q '^exit status 0$' "$d/orig.out"; then
		skip "$name: the original does not run here ($(head -1 "$d/orig.out"))"
		return
	fi
	if ! "$ELFPMD" --json --madvise -o "$d/rw" "$file" >"$d/report.json" 2>"$d/err"; then
		fail "$name: elfpmd --madvise failed: $(head -1 "$d/err")"
		return
	fi
	check "$name: the stub is injected and the table grew in place (not moved)" \
		grep -q '"stub":{"injected":true,.*"table_moved":false,"table_grown":true' "$d/report.json"
	if [ "$name" = libhash ]; then
		moved=$(grep -o '"moved_bytes":[0-9]*' "$d/report.json" | cut -d: -f2)
		holds "$name: the PT_NOTE and the .gnu.hash moved ($moved bytes, more than 64 KiB)" \
			'grep -q "\"moved\":\[\"PT_NOTE\",\".gnu.hash\"\]" "$d/report.json" && [ "${moved:-0}" -gt 65536 ]'
	fi
	if [ -x "$PHDR_DUMP" ]; then
		check "$name: phdr-dump --bytemap accepts the rewrite" "$PHDR_DUMP" --bytemap "$file" "$d/rw"
	fi
	for tool in none strip strip-g eu-strip objcopy; do
		t=$d/$tool
		mkdir -p "$t"
		cp "$d/rw" "$t/${file##*/}"
		f=$t/${file##*/}
		case $tool in
		none) ;;
		strip) strip "$f" 2>"$t/err" ;;
		strip-g) strip -g "$f" 2>"$t/err" ;;
		eu-strip) if ! have eu-strip; then skip "$name: eu-strip not found"; continue; fi
			eu-strip "$f" 2>"$t/err" ;;
		objcopy) objcopy "$f" "$f.new" 2>"$t/err" && mv "$f.new" "$f" ;;
		esac
		if [ $? -ne 0 ]; then
			fail "$name: $tool fails on the rewrite: $(head -1 "$t/err")"
			continue
		fi
		if [ -s "$t/err" ]; then
			fail "$name: $tool warns: $(head -1 "$t/err")"
		fi
		run_case "$kind" "$f" "$fn" "$t/out"
		if cmp -s "$d/orig.out" "$t/out"; then
			pass "$name: after ${tool/none/elfpmd alone}, runs as the original ($(head -1 "$t/out"))"
		else
			fail "$name: after ${tool/none/elfpmd alone}, the output differs: $(head -2 "$t/out" | tr '\n' ' ')"
		fi
		"$ELFPMD" -n --json --madvise "$f" >"$t/again.json" 2>&1
		check "$name: after ${tool/none/elfpmd alone}, a second run finds the stub" \
			grep -q '"stub":{"injected":false,"present":true' "$t/again.json"
	done
	if have eu-elflint && eu-elflint --gnu-ld -q "$file" >/dev/null 2>&1; then
		check "$name: eu-elflint accepts the rewrite" eu-elflint --gnu-ld -q "$d/rw"
	fi
}
