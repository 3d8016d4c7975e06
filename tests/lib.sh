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
# invdl.c write one to $FIXTURE_SMAPS), shared by madvise.sh and
# invisible.sh.

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
# Fixtures: programs and libraries built by tests/fixtures/Makefile, shared by
# run-fixtures.sh and padding.sh.  The loop over the fixtures sets the
# globals these helpers read:
#   O        the build directory of the fixtures
#   ARGS     the arguments of every fixture run (an array)
#   name     the current fixture's label, for the PASS/FAIL/SKIP lines
#   file     the file rewritten (a program, or the library PROGRAM loads)
#   prog     what runs: FILE itself, or a program in $O that loads the
#            library FILE from LD_LIBRARY_PATH
#   w        the current fixture's work directory; $w/orig/$file is the
#            original, $w/orig.out what it printed
#   can_run  true or false: whether the original runs here (check_original)

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
	# Tests that share O (the parts of padding.sh) build one at a time.
	have flock && lock=(flock "$O/.build.lock")
	"${lock[@]}" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
		make -f "$TESTS_SRCDIR/fixtures/Makefile" SRC="$TESTS_SRCDIR/fixtures" \
		O="$O" "${@:2}" "$1" >"$O/$1.log" 2>&1
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
# difference (invisible.sh, copy.sh).
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
# happened (invisible.sh, copy.sh).
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
# folios (invisible.sh, run-prime.sh); or with the default options and a
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
