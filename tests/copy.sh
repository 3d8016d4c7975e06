#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# copy.sh: elfpmd --madvise=copy, the stub's copy of the text into
# anonymous huge pages where the kernel cannot give the file PMD-sized page
# cache folios (man elfpmd: The copy fallback).
#
#  The report, its usage errors, and the copy where file THP works:
#     run-copy-report.sh, run-copy-usage.sh and run-copy-here.sh.
#  The copy on ext4 mounted data=journal, its bound and its refusals:
#     run-copy-journal.sh, run-copy-max.sh, run-copy-thp-disabled.sh,
#     run-copy-execmem.sh and run-copy-anon-name.sh.
#  observers. On ext4 mounted data=journal (a loop image; no large folios
#     there on any kernel), where only the copy can work:
#     - inv-pie (fixtures inv.S: mid() at text + 8.5 MiB, inv_sum() through
#       the whole text): a gdb breakpoint in mid, and a uprobe on it
#       registered before the start, hit as often as in the original, and
#       the chunk holding them stays file-backed (ideal - 1 chunks
#       copied); a preload that patches mid (fixtures/invpatch.c)
#       keeps its patch (mid() = 99, as in the original), same chunk count;
#       inv_sum() right (every copied byte is the file's);
#     - elfpmd status of a paused copy (FIXTURE_PAUSE) counts the copy with
#       its object: copied_huge_kb = the ideal, as smaps says;
#     - ELFPMD_PERF_MAP=1: /tmp/perf-PID.map holds exactly the function
#       symbols (nm -S, an independent reader) that overlap the copied
#       range, each at symbol + load bias; without it no file is written;
#     - perf (when it works here): a program looping in two functions of
#       its copied text, recorded by attaching (perf record -p), is named
#       hot_alpha and hot_beta by perf report with the map, and not without.
#
# Needs root (drop_caches, loop devices), THP not [never], x86-64 (the
# fixtures are x86-64 assembly); sections whose tool is missing (strace,
# gdb, perf, loop devices) are SKIP lines.  Fixtures are built into
# $TESTS_BUILDDIR/copy-build (removed by make clean); the loop mount, perf
# maps and paused programs are removed on exit, whatever happened.
#
# run-copy-observers.sh sets COPY_PARTS=observers and sources this file
# (the default when run by hand: bash tests/copy.sh).  Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and
# TESTS_BUILDDIR set (see tests/lib.sh for the defaults).  Each part works in
# copy-build/work-PART.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=$((0x200000))
ARGS=(alpha "beta gamma")
O=$TESTS_BUILDDIR/copy-build
COPY_PARTS=${COPY_PARTS:-observers}
WORK=$O/work-${COPY_PARTS// /-}

# want_part PART: whether COPY_PARTS names PART.
want_part () { case " $COPY_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

cleanup_on_exit

require_elfpmd
require_root_thp "drop_caches, loop devices"
page_cache_lock
[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 assembly"
have python3 || skip_all "python3 not found (reads the JSON reports)"

rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"

build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c, thp-off.c): $(tail -1 "$O/mad-tools.log")"
build_fixture mad-pie || skip_all "cannot build mad-pie: $(why_unbuildable mad-pie)"
have_inv=true
build_fixture inv-pie && build_fixture inv-tools || { have_inv=false; skip "inv-pie: cannot build it: $(why_unbuildable inv-pie)"; }
PAGECACHE=$O/pagecache THP_OFF=$O/thp-off INVPATCH=$O/invpatch.so
have_strace=false
if have strace; then have_strace=true; else skip "strace not found (Debian: strace): the mremap counts are skipped"; fi

# state STATE FILE: FILE's page cache state STATE: cold, warm (two runs
# first) or order-0 (cached whole in 4 KiB folios).
state () {
	case $1 in
	cold) drop_caches ;;
	warm) run "$WORK/warmup" "$2"; run "$WORK/warmup" "$2" ;;
	order-0) "$PAGECACHE" evict "$2" >/dev/null 2>&1; "$PAGECACHE" order0 "$2" >/dev/null 2>&1 ;;
	esac
}

# run OUT COMMAND...: COMMAND (at most 60 s) with the fixture's arguments
# and its smaps copy in OUT.smaps; standard output and "exit status N" into
# OUT, standard error into OUT.err.
run () {
	local out=$1 status
	shift
	rm -f "$out.smaps"
	{ FIXTURE_SMAPS=$out.smaps timeout -k 5 60 "$@" "${ARGS[@]}" >"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# anon_kb SMAPS: AnonHugePages of the anonymous executable mappings (inode
# 0, but [vdso] and [vsyscall]) in the smaps copy SMAPS, in kB.
anon_kb () {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { cur = $2 ~ /x/ && $5 == 0 && $6 != "[vdso]" && $6 != "[vsyscall]"; next }
		cur && $1 == "AnonHugePages:" { kb += $2 }
		END { print kb + 0 }' "$1"
}

# expect_kb WHAT SMAPS OBJECT ANON PMD: the anonymous text on huge pages is
# ANON kB and OBJECT's FilePmdMapped PMD kB.
expect_kb () {
	local a p
	if [ ! -s "$2" ]; then fail "$1: the program wrote no smaps copy"; return; fi
	a=$(anon_kb "$2") p=$(pmd_kb "$2" "$3")
	if [ "$a" -eq "$4" ] && [ "$p" -eq "$5" ]; then
		pass "$1: anonymous text on huge pages $a kB (want $4), FilePmdMapped $p kB (want $5)"
	else
		fail "$1: anonymous text on huge pages $a kB (want $4), FilePmdMapped $p kB (want $5)"
	fi
}

# mremaps LOG: the mremap calls in the strace LOG.
mremaps () { grep -c 'mremap(' "$1"; }

# The ideal: whole chunks of the rewritten text (the original's load base
# is not PMD-aligned).
"$ELFPMD" -q --madvise=copy -o "$WORK/mad-pie.copy" "$O/mad-pie" || hard_error "elfpmd --madvise=copy mad-pie failed"
IDEAL=$(ideal_chunks "$WORK/mad-pie.copy")
IDEAL_KB=$((IDEAL * PMD / 1024))
[ "$IDEAL" -gt 1 ] || hard_error "mad-pie has $IDEAL whole chunks of text (phdr-dump); expected 7"

# rewrite FILE OUT [OPTION...]: OUT is FILE rewritten with --madvise=copy
# (or OPTION...).
rewrite () {
	local in=$1 out=$2
	shift 2
	[ $# -gt 0 ] || set -- --madvise=copy
	"$ELFPMD" -q "$@" -o "$out" "$in" >"$out.log" 2>&1 || { fail "elfpmd $* ${in##*/}: $(head -2 "$out.log")"; return 1; }
}

# ---------------------------------------------------------------------------
want_part observers || finish
echo "# ext4 mounted data=journal: only the copy gives huge pages"
if ! journal_mount "$WORK" 300M >"$WORK/loop.why" 2>&1; then
	skip "data=journal: $(tail -1 "$WORK/loop.why")"
	finish
fi
J=$MNTED
cp "$O/mad-pie" "$J/orig" && rewrite "$O/mad-pie" "$J/copy" || finish
run "$J/orig.out" "$J/orig"

if want_part observers; then
	echo "# observers: status, the perf map, gdb, uprobes, patches, perf"
	# elfpmd status of a paused copy.
	FIXTURE_PAUSE=1 FIXTURE_SMAPS=$J/paused.smaps "$J/copy" "${ARGS[@]}" >"$J/paused.out" 2>&1 &
	pid=$!
	CLEANUP+=("kill $pid")
	for _ in $(seq 100); do [ -s "$J/paused.smaps" ] && break; sleep 0.05; done
	"$ELFPMD" status --json "$pid" >"$J/status.json" 2>"$J/status.err"
	read -r copied chunks whole <<<"$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    for o in d.get("objects", []):
        if o["path"].endswith("/copy"):
            print(o["copied_huge_kb"], o["pmd_mapped_chunks"], o["whole_chunks"])' "$J/status.json")"
	want=$(anon_kb "$J/paused.smaps")
	holds "data=journal, status of a paused copy: copied_huge_kb ${copied:-none} = smaps' $want = ideal $IDEAL_KB, pmd_mapped_chunks ${chunks:-none} of ${whole:-none}" \
		'[ "${copied:-x}" = "$want" ] && [ "$want" -eq "$IDEAL_KB" ] && [ "${chunks:-x}" = "$IDEAL" ] && [ "${whole:-x}" = "$IDEAL" ]'
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null

	# The perf map: exactly the function symbols that overlap the copy.
	rm -f "$J/pidfile"
	(echo "$BASHPID" >"$J/pidfile"; exec env ELFPMD_PERF_MAP=1 FIXTURE_SMAPS="$J/perfmap.smaps" "$J/copy" "${ARGS[@]}" >"$J/perfmap.out" 2>"$J/perfmap.out.err")
	echo "exit status $?" >>"$J/perfmap.out"
	mpid=$(cat "$J/pidfile")
	MAP=/tmp/perf-$mpid.map
	CLEANUP+=("rm -f $MAP")
	if [ -s "$MAP" ]; then
		range=$(awk '/^[0-9a-f]+-[0-9a-f]+ / && $2 ~ /x/ && $5 == 0 && $6 != "[vdso]" && $6 != "[vsyscall]" { print $1 }' "$J/perfmap.smaps")
		verdict=$(python3 - "$MAP" "$range" "$J/copy" <<'EOF'
import subprocess, sys
mapfile, ranges, exe = sys.argv[1], sys.argv[2].split(), sys.argv[3]
got = {}
for line in open(mapfile):
    a, s, name = line.rstrip("\n").split(" ", 2)
    got[name] = (int(a, 16), int(s, 16))
# nm -S: the file's function symbols (t/T/w/W with a size), an independent reader.
syms = {}
for line in subprocess.run(["nm", "-S", "--defined-only", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "tTwWiI":
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
# The load bias from any symbol, then every symbol checked against it.
if not got:
    print("empty map"); sys.exit()
name = next(iter(got))
if name not in syms:
    print("%s not in nm" % name); sys.exit()
bias = got[name][0] - syms[name][0]
spans = [tuple(int(x, 16) for x in r.split("-")) for r in ranges]
want = {n for n, (v, s) in syms.items() if s and any(v + bias < hi and v + bias + s > lo for lo, hi in spans)}
bad = [n for n, (a, s) in got.items() if n not in syms or syms[n] != (a - bias, s)]
if set(got) != want or bad:
    print("map %s, nm %s, wrong %s" % (sorted(got), sorted(want), bad))
else:
    print("ok %d symbols: %s" % (len(got), " ".join(sorted(got))))
EOF
	)
		holds "data=journal, ELFPMD_PERF_MAP=1: $MAP: $verdict" '[ "${verdict%% *}" = ok ]'
	else
		fail "data=journal, ELFPMD_PERF_MAP=1: no $MAP written"
	fi
	same "$J/orig.out" "$J/perfmap.out" "data=journal, copy with ELFPMD_PERF_MAP=1"
	(echo "$BASHPID" >"$J/pidfile"; exec "$J/copy" "${ARGS[@]}" >/dev/null 2>&1)
	npid=$(cat "$J/pidfile")
	holds "data=journal, copy without ELFPMD_PERF_MAP: no perf map written" '[ ! -e /tmp/perf-$npid.map ]'
	rm -f "/tmp/perf-$npid.map"

	# gdb and a preload patch: the chunk they change stays file-backed.
	if $have_inv; then
		cp "$O/inv-pie" "$J/inv-orig" && rewrite "$O/inv-pie" "$J/inv-copy"
		INV_IDEAL=$(ideal_chunks "$J/inv-copy")
		KEPT_KB=$(((INV_IDEAL - 1) * PMD / 1024))
		run "$J/inv-orig.out" "$J/inv-orig"
		state warm "$J/inv-copy"
		run "$J/inv-copy.out" "$J/inv-copy"
		same "$J/inv-orig.out" "$J/inv-copy.out" "data=journal, inv-pie copy (inv_sum through the copied text)"
		expect_kb "data=journal, inv-pie copy" "$J/inv-copy.out.smaps" "$J/inv-copy" $((INV_IDEAL * PMD / 1024)) 0
		run "$J/patch-orig" env LD_PRELOAD="$INVPATCH" "$J/inv-orig"
		run "$J/patch-copy" env LD_PRELOAD="$INVPATCH" "$J/inv-copy"
		if grep -q 'mid() = 99' "$J/patch-orig"; then
			same "$J/patch-orig" "$J/patch-copy" "data=journal, inv-pie copy with the patching preload (mid() = 99)"
			expect_kb "data=journal, inv-pie copy with the patching preload: the patched chunk kept" \
				"$J/patch-copy.smaps" "$J/inv-copy" "$KEPT_KB" 0
		else
			skip "preload patch: the original is not patched here ($(head -1 "$J/patch-orig.err"))"
		fi
		# A uprobe on mid, registered before the start: its breakpoint is in
		# the chunk at mmap time, so that chunk stays file-backed and the
		# probe fires.
		TRACE=
		for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -e "$d/uprobe_events" ] && { TRACE=$d; break; }
		done
		if [ -z "$TRACE" ] && grep -qw tracefs /proc/filesystems && mkdir -p "$WORK/tracefs" \
			&& mount -t tracefs nodev "$WORK/tracefs" 2>/dev/null; then
			CLEANUP+=("umount $WORK/tracefs")
			[ -e "$WORK/tracefs/uprobe_events" ] && TRACE=$WORK/tracefs
		fi
		va=$(nm -D --defined-only "$J/inv-copy" | awk '$3 == "mid" { print $1; exit }')
		off=$([ -n "$va" ] && "$PHDR_DUMP" "$J/inv-copy" | awk -v va="$va" '
			function hex(s,  i, v) {
				v = 0; s = tolower(s); sub(/^0x/, "", s)
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			$2 == "LOAD" && hex(va) >= hex($5) && hex(va) < hex($5) + hex($6) {
				printf "0x%x\n", hex($4) + hex(va) - hex($5); exit }')
		ev=copy_$$
		if [ -z "$TRACE" ]; then
			skip "uprobe: no tracefs with uprobe_events (CONFIG_UPROBE_EVENTS)"
		elif [ -z "$off" ]; then
			fail "uprobe: cannot find mid's file offset in inv-copy (nm -D, phdr-dump)"
		elif ! echo "p:elfpmd_copy/$ev $J/inv-copy:$off" >>"$TRACE/uprobe_events" 2>/dev/null; then
			skip "uprobe: the kernel refuses a uprobe"
		else
			inst=$TRACE/instances/elfpmd_copy_$$
			# (removed before gdb runs: a uprobe and a breakpoint on one
			# instruction get in each other's way)
			uprobe_off="echo 0 >$inst/events/elfpmd_copy/enable; rmdir $inst; echo -:elfpmd_copy/$ev >>$TRACE/uprobe_events"
			CLEANUP+=("$uprobe_off")
			if mkdir "$inst" 2>/dev/null && echo 1 >"$inst/events/elfpmd_copy/enable"; then
				: >"$inst/trace"
				run "$J/uprobe" "$J/inv-copy"
				hits=$(grep -c " $ev: " "$inst/trace")
				holds "data=journal, inv-pie copy with a uprobe on mid: $hits hits of 3 calls" '[ "$hits" -eq 3 ]'
				same "$J/inv-orig.out" "$J/uprobe" "data=journal, inv-pie copy with a uprobe on mid"
				expect_kb "data=journal, inv-pie copy with a uprobe on mid: the probed chunk kept" \
					"$J/uprobe.smaps" "$J/inv-copy" "$KEPT_KB" 0
			else
				skip "uprobe: cannot make a trace instance"
			fi
			eval "$uprobe_off" 2>/dev/null
		fi
		if have gdb; then
			# gdb_run FILE OUT: FILE under gdb with a breakpoint in mid, run
			# and continued; prints the hits.
			gdb_run () {
				local args
				args=$(printf '%q ' "${ARGS[@]}")
				FIXTURE_SMAPS=$2.smaps timeout -k 5 120 gdb -batch -nx -ex 'break mid' \
					-ex "run $args>'$2' 2>'$2.err'" -ex continue -ex continue -ex continue -ex continue \
					"$1" >"$2.gdb" 2>&1 </dev/null
				grep -c '^Breakpoint 1, .* in mid ' "$2.gdb"
			}
			h0=$(gdb_run "$J/inv-orig" "$J/gdb-orig")
			h1=$(gdb_run "$J/inv-copy" "$J/gdb-copy")
			if [ "$h0" -ne 3 ]; then
				skip "gdb: the original hits the breakpoint in mid $h0 times, not 3: gdb does not work here"
			else
				holds "data=journal, inv-pie copy under gdb: the breakpoint in mid hits $h1 times, as the original's $h0" '[ "$h1" -eq "$h0" ]'
				cmp -s "$J/gdb-orig" "$J/gdb-copy" && pass "data=journal, inv-pie copy under gdb prints the same" \
					|| fail "data=journal, inv-pie copy under gdb prints something else"
				expect_kb "data=journal, inv-pie copy under gdb: the chunk with the breakpoint kept" \
					"$J/gdb-copy.smaps" "$J/inv-copy" "$KEPT_KB" 0
			fi
		else
			skip "gdb not found (Debian: gdb): the breakpoint case is skipped"
		fi
	fi

	# perf: attached to a program that loops in two functions of its copied
	# text, perf report names them with the map, and cannot without it.
	if ! have perf || ! perf record -q -e cpu-clock -o "$WORK/perf.probe" -- true >/dev/null 2>&1; then
		skip "perf does not work here (Debian: linux-perf): the perf report case is skipped"
	else
		cat >"$WORK/hot.S" <<'EOF'
	.text
	.globl	main
	.type	main, @function
main:	call	hot_alpha
	call	hot_beta
	jmp	main
	.size	main, . - main
	.fill	0x300000, 1, 0xc3
	.globl	hot_alpha
	.type	hot_alpha, @function
hot_alpha:
	mov	$20000, %ecx
1:	dec	%ecx
	jnz	1b
	ret
	.size	hot_alpha, . - hot_alpha
	.fill	0x200000, 1, 0xc3
	.globl	hot_beta
	.type	hot_beta, @function
hot_beta:
	mov	$20000, %ecx
1:	dec	%ecx
	jnz	1b
	ret
	.size	hot_beta, . - hot_beta
	.fill	0x300000, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
		if ! gcc -o "$WORK/hot" "$WORK/hot.S" 2>"$WORK/hot.log" || ! rewrite "$WORK/hot" "$J/hot"; then
			skip "perf: cannot build the looping program: $(tail -1 "$WORK/hot.log")"
		else
			# perf_names WITHMAP: attach to the program for half a second;
			# the sampled symbol names, one per line.
			perf_names () {
				local pid
				if [ "$1" = 1 ]; then ELFPMD_PERF_MAP=1 "$J/hot" & else "$J/hot" & fi
				pid=$!
				CLEANUP+=("kill $pid; rm -f /tmp/perf-$pid.map")
				sleep 0.3
				perf record -q -e cpu-clock -p "$pid" -o "$WORK/perf.data" -- sleep 0.5 >/dev/null 2>&1
				perf report -q --stdio --sort sym -i "$WORK/perf.data" 2>/dev/null | awk '{ print $NF }'
				kill "$pid"
				wait "$pid" 2>/dev/null
				rm -f "/tmp/perf-$pid.map"
			}
			with=$(perf_names 1 | grep -c '^hot_\(alpha\|beta\)$')
			without=$(perf_names 0 | grep -c '^hot_\(alpha\|beta\)$')
			holds "perf report, attached to a copy with ELFPMD_PERF_MAP=1: hot_alpha and hot_beta named ($with of 2); without the map: $without" \
				'[ "$with" -eq 2 ] && [ "$without" -eq 0 ]'
		fi
	fi
fi

finish
