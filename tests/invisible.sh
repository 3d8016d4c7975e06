#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# invisible.sh: the body of the run-invisible-*.sh tests, one per part
# (INVISIBLE_PARTS below).  The startup stub of elfpmd --madvise must be invisible
# (DESIGN.md section 8, issue 8): a rewritten program behaves as the
# original next to the tools people use on big programs, and costs nothing
# where it cannot help.  Every run of a rewrite (elfpmd -q --madvise -o) is
# compared with the original's run under the same conditions: the same
# standard output and exit status.  The page cache states: cold (sync;
# drop_caches), warm (after two runs) and order-0 (the file evicted, then
# cached in 4 KiB folios by fixtures/pagecache order0: the stub goes down
# its repair path).
#
# The fixture (tests/fixtures/inv.S, invmain.c): a PIE with 17 MiB of text
# whose exported function mid (returns 42) lies in the middle of a whole
# 2 MiB chunk; libinv.so is the same text as a library, loaded by invdl.
#
#   1-3. gdb, uprobes and a patching preload: run-invisible-gdb.sh,
#      run-invisible-uprobe.sh and run-invisible-preload.sh.
#   4. Text relocations and execute-only text: run-invisible-textrel.sh and
#      run-invisible-execonly.sh.
#   5, 6. An explicit loader, and reads on ext4 data=journal:
#      run-invisible-ldso.sh and run-invisible-journal-reads.sh.
#   7, 7b, 12. Other users' locks, and a fork while the stub holds its
#      own: run-invisible-lock-*.sh.
#   8, 9. FIFOs at the mapped path, a long path, mlockall:
#      run-invisible-fifo.sh, run-invisible-long-path.sh and
#      run-invisible-mlockall.sh.
#  10. seccomp (fixtures/invseccomp.c): each of the calls the old and the
#      new stub make, and all of them at once, failing with EPERM, then
#      ENOSYS, for a static PIE and a PIE, order-0: the rewrite does what
#      the original does under the same filter; and a filter that kills the
#      process on a call the stub must never make (open, nanosleep, fdatasync).
#      Under systemd 252's @system-service allow-list (kill on anything
#      else, mincore and cachestat included), cold, order-0 and warm: the
#      same output, and the coverage without the filter (>= 95% where that
#      has it).
#
# Needs root (drop_caches, tracefs, loop devices, another user), THP not
# [never], and file THP working on the file system of $TESTS_BUILDDIR
# (probed with fixtures/pagecache.c); skipped (77) otherwise.  A case whose
# tool is missing (gdb, strace, tracefs, loop devices, the user nobody) is
# a SKIP line.  Fixtures are built into $TESTS_BUILDDIR/invisible-build; the
# work files stay there when something failed.  Probes, the loop mount, the
# lock holders and the FIFOs are removed on exit, whatever happened.
#
# Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and TESTS_BUILDDIR
# set, or by hand from the source tree: bash tests/invisible.sh, all parts,
# or INVISIBLE_PARTS=seccomp bash tests/invisible.sh (see tests/lib.sh for the
# defaults).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=$((0x200000))
MIN_PERCENT=95			# coverage required where it is asserted
ARGS=(alpha "beta gamma")	# arguments of every program run
O=$TESTS_BUILDDIR/invisible-build
# INVISIBLE_PARTS: the parts that run (default all), each a test of its own
# (run-invisible-PART.sh):
# seccomp (10); each works in work-PART.
INVISIBLE_PARTS=${INVISIBLE_PARTS:-seccomp}
want_part () { case " $INVISIBLE_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
WORK=$O/work-${INVISIBLE_PARTS// /-}
started=$SECONDS

cleanup_on_exit

require_elfpmd
require_root_thp "drop_caches, tracefs, loop devices, running as another user"
page_cache_lock
have python3 || skip_all "python3 not found (reads the JSON reports)"
[ "$(uname -m)" = x86_64 ] || skip_all "the stub, the seccomp filter and the patch are x86-64 only"

rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"

build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c): $(tail -1 "$O/mad-tools.log")"
PAGECACHE=$O/pagecache

require_file_thp "$WORK"

have_strace=false
if have strace; then have_strace=true; else skip "strace not found (Debian: strace): the checks of the stub's system calls are skipped"; fi

# ---------------------------------------------------------------------------
# Helpers.

# order0 FILE...: the order-0 state of each FILE: its cached pages dropped,
# then all of it cached in 4 KiB folios.
order0 () {
	local f msg
	for f in "$@"; do
		"$PAGECACHE" evict "$f" >/dev/null 2>&1
		msg=$("$PAGECACHE" order0 "$f" 2>&1)
		case $msg in
		*" 0 in large folios"|*"? in large folios") ;;
		*) note "order-0 state of ${f##*/} not reached: $msg" ;;
		esac
	done
}

# state STATE FILE...: put FILE... in the page cache state STATE (cold or
# order-0; warm is made by the caller's runs).
state () {
	local s=$1
	shift
	case $s in
	cold) drop_caches ;;
	order-0) order0 "$@" ;;
	esac
}

# coverage_figures SMAPS OBJECT: "KB WANT IDEAL" for OBJECT in SMAPS.
coverage_figures () {
	local ideal
	ideal=$(ideal_chunks "$2")
	echo "$(pmd_kb "$1" "$2") $((ideal * PMD / 1024)) $ideal"
}

# check_coverage WHAT SMAPS OBJECT: FilePmdMapped of OBJECT >= MIN_PERCENT
# of the ideal.
check_coverage () {
	local kb want ideal
	if [ ! -s "$2" ]; then fail "$1: the program wrote no smaps copy"; return; fi
	read -r kb want ideal <<<"$(coverage_figures "$2" "$3")"
	if [ "$want" -eq 0 ]; then
		fail "$1: no whole PMD chunk in the text to measure"
	elif [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
		pass "$1: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))%"
	else
		fail "$1: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))% < $MIN_PERCENT%"
	fi
}


# file_offset FILE SYMBOL: the file offset of SYMBOL's address in FILE
# (0x...), from its dynamic symbol table and program headers.
file_offset () {
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

# rewrite IN OUT: elfpmd -q --madvise -o OUT IN, which must inject the stub.
rewrite () {
	mkdir -p "$(dirname "$2")"
	if ! "$ELFPMD" -q --madvise -o "$2" "$1" >"$2.log" 2>&1; then
		fail "elfpmd -q --madvise ${1##*/}: $(head -2 "$2.log")"
		return 1
	fi
	local injected present reason
	read -r injected present reason <<<"$(stub_json "$2")"
	if [ "$present" != true ]; then
		fail "elfpmd -q --madvise ${1##*/}: no stub in the result ($injected $present $reason)"
		return 1
	fi
	return 0
}

# strace_calls LOG CALL...: the lines of LOG (strace -o) that are calls to
# one of CALL (the start of the call: plain or "<unfinished ...>").
strace_calls () {
	local log=$1 re
	shift
	re=$(IFS='|'; echo "$*")
	grep -E "^[0-9]+ +($re)\(" "$log"
}

# ---------------------------------------------------------------------------
# Fixtures.

built_any=false
have_pie=false have_spie=false have_lib=false have_tools=false
build_or_skip "tools (invpatch.so, invfifo.so, invlock, invseccomp)" inv-tools && have_tools=true
if build_or_skip "inv-pie" inv-pie; then
	P_ORIG=$WORK/orig/inv-pie P_MAD=$WORK/mad/inv-pie
	mkdir -p "$WORK/orig" && cp -p "$O/inv-pie" "$P_ORIG"
	rewrite "$P_ORIG" "$P_MAD" && have_pie=true && built_any=true
fi
if build_or_skip "inv-static-pie" inv-static-pie; then
	S_ORIG=$WORK/orig/inv-static-pie S_MAD=$WORK/mad/inv-static-pie
	cp -p "$O/inv-static-pie" "$S_ORIG"
	rewrite "$S_ORIG" "$S_MAD" && have_spie=true && built_any=true
fi
if build_or_skip "libinv.so" inv-lib; then
	L_ORIG=$WORK/orig/libinv.so L_MAD=$WORK/mad/libinv.so INVDL=$O/invdl
	cp -p "$O/libinv.so" "$L_ORIG"
	rewrite "$L_ORIG" "$L_MAD" && have_lib=true && built_any=true
fi
stop_unless_built

# The original's plain runs: the reference for runs where nothing else
# changes what the program prints.
if $have_pie; then
	run_logged "$WORK/pie.ref" "$P_ORIG" "${ARGS[@]}"
	[ "$(tail -1 "$WORK/pie.ref")" = "exit status 42" ] || { fail "inv-pie: the original does not run here ($(tail -1 "$WORK/pie.ref"))"; have_pie=false; }
fi
if $have_lib; then
	run_logged "$WORK/lib.ref" "$INVDL" "$L_ORIG" 1
	[ "$(tail -1 "$WORK/lib.ref")" = "exit status 42" ] || { fail "invdl libinv.so: the original does not run here ($(tail -1 "$WORK/lib.ref"))"; have_lib=false; }
fi

# sleep_ns LOG: the nanoseconds requested by the nanosleep and
# clock_nanosleep calls in LOG (strace -o).
sleep_ns () {
	strace_calls "$1" nanosleep clock_nanosleep | awk '
		{ if (match($0, /tv_sec=[0-9]+, tv_nsec=[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), a, /[=,]/)
			ns += a[2] * 1000000000 + a[4] } }
		END { printf "%d\n", ns }'
}

# ---------------------------------------------------------------------------
if want_part seccomp; then
# 10. seccomp filters.

echo "# 10. seccomp"
STUB_CALLS="prctl uname openat read pread64 close fstat newfstatat statfs fstatfs madvise ioctl
	mincore fadvise64 fdatasync sync_file_range mmap munmap clock_nanosleep clock_gettime flock fcntl open
	nanosleep all"
NEVER_CALLS="open nanosleep fdatasync"
if ! $have_tools; then
	skip "seccomp: no invseccomp"
else
	for fx in static-pie pie; do
		if [ $fx = pie ]; then $have_pie || continue; o=$P_ORIG m=$P_MAD
		else $have_spie || continue; o=$S_ORIG m=$S_MAD; fi
		for mode in eperm enosys kill; do
			if [ $mode = kill ]; then calls=$NEVER_CALLS; else calls=$STUB_CALLS; fi
			ok=() orig_fails=()
			for call in $calls; do
				w=$WORK/seccomp.$fx.$mode.$call
				order0 "$m"
				run_logged "$w.orig" "$O/invseccomp" $mode $call "$o" "${ARGS[@]}"
				run_logged "$w.mad" "$O/invseccomp" $mode $call "$m" "${ARGS[@]}"
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
		done
		# An allow-list: systemd 252's SystemCallFilter=@system-service
		# (fixtures/invseccomp.c system-service; a real unit needs systemd
		# as PID 1, which this machine need not have), which kills the
		# process on any other call, mincore and cachestat among them.
		# Cold, order-0 and warm: the same output and exit status as the
		# original; and the FilePmdMapped of the rewrite under the filter
		# at least MIN_PERCENT of the ideal wherever it is so without the
		# filter, from the same state.
		for s in cold order-0 warm; do
			w=$WORK/seccomp.$fx.service.$s
			run_logged "$w.orig" "$O/invseccomp" system-service "$o" "${ARGS[@]}"
			state $s "$m"
			rm -f "$w.smaps" "$w.free.smaps"
			FIXTURE_SMAPS=$w.smaps run_logged "$w.mad" "$O/invseccomp" system-service "$m" "${ARGS[@]}"
			if [ "$(tail -1 "$w.orig")" != "exit status 42" ]; then
				fail "seccomp system-service, $fx, $s: the original $(tail -1 "$w.orig"): $(head -1 "$w.orig.err")"
			elif cmp -s "$w.orig" "$w.mad"; then
				pass "seccomp system-service, $fx, $s: the rewrite does what the original does under systemd 252's @system-service allow-list"
			else
				fail "seccomp system-service, $fx, $s: the rewrite $(tail -1 "$w.mad"), the original $(tail -1 "$w.orig")"
				diff "$w.orig" "$w.mad" | head -4 | sed 's/^/      /'
				continue
			fi
			state $s "$m"
			FIXTURE_SMAPS=$w.free.smaps run_logged "$w.free" "$m" "${ARGS[@]}"
			read -r kb want _ <<<"$(coverage_figures "$w.free.smaps" "$m")"
			read -r fkb _ _ <<<"$(coverage_figures "$w.smaps" "$m")"
			if [ "${want:-0}" -gt 0 ] && [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
				check_coverage "seccomp system-service, $fx, $s (without the filter $kb kB)" "$w.smaps" "$m"
			else
				note "seccomp system-service, $fx, $s: FilePmdMapped ${fkb:-?} kB under the filter, ${kb:-?} kB without, of ${want:-?} kB ideal"
			fi
		done
	done
fi
fi

# ---------------------------------------------------------------------------

echo "# run time $((SECONDS - started)) s"
if [ "$n_fail" -eq 0 ]; then rm -rf "$WORK"; fi
finish
