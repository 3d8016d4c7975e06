#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-prime.sh: elfpmd prime, which puts a file's aligned text into the page
# cache as PMD-sized folios without running it.  The fixture is
# the 17 MiB-text PIE mad-pie (tests/fixtures madbig.S, madmain.c) in two
# rewrites: align (elfpmd, no stub) and mad (elfpmd --madvise).  For each,
# in three page cache states:
#   cold    caches dropped;
#   order0  caches dropped, then the whole file cached in 4 KiB folios
#           (fixtures/pagecache order0);
#   fresh   a copy just written with dd bs=4k (dirty small folios), as a
#           package manager leaves it;
# elfpmd prime --json FILE must report every whole chunk (counted by
# tests/phdr-dump, which shares no code with elfpmd) in PMD-sized folios and
# exit 0; then one start of the program must print what the original
# prints, exit 42 and have its text PMD-mapped, all of it (FilePmdMapped
# from its own smaps copy: an independent measure of what prime did; align
# has no stub, so only the page cache can give it PMD pages in THP mode
# madvise), and mad's stub must have nothing to repair (strace: no
# fadvise64).  Also:
#   - a second prime finds every chunk there already (0 primed);
#   - the original (not aligned): "nothing to prime", exit 0;
#   - a running program holding the chunks in small folios: prime reports
#     them held, exit 0; once it has ended, prime gets them all;
#   - prime under PR_SET_THP_DISABLE (fixtures/thp-off): says so, exit 0;
#   - on tmpfs: says why not, exit 0;
#   - ext4 mounted data=journal on a loop device (no large folios): says
#     the file system gives no PMD-sized folios, exit 0, and reads at most
#     one chunk again (SKIP where loop mounts fail);
#   - a file that is not ELF, a missing file: exit 1, one line naming each,
#     the other files still primed; no FILE: usage error 64;
#   - -T LIST (--files-from): comments and empty lines ignored; a missing
#     name skipped with a line of its own, a directory, a symbolic link and
#     a text file skipped quietly, all counted in the summary; exit 0; the
#     ELF file primed; -q prints nothing; -0 (no comments then); a truncated
#     ELF file in the list: exit 1, named, the rest primed; a list that
#     cannot be opened: exit 1; -0 without -T: 64;
#   - the systemd unit (dist/systemd/elfpmd-prime.service.in, its paths
#     those of the test): systemd-analyze verify --man=no says nothing
#     (SKIP without it); its ExecStart command, run by hand on a list of
#     the test's, exits 0 silently and primes a file cached in small folios.
#
# Needs root (drop_caches), THP not never, file THP working on the file
# system of $TESTS_BUILDDIR (probed with fixtures/pagecache.c) and python3;
# skipped (77) otherwise.  Fixtures are built into
# $TESTS_BUILDDIR/prime-build.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARGS=(alpha "beta gamma")
pids=()
CLEANUP=()

require_elfpmd
require_root_thp "drop_caches for the cold and order-0 states"
page_cache_lock
have python3 || skip_all "python3 not found (reads the JSON report)"
work_dir

# The systemd unit, dist/systemd/elfpmd-prime.service.in as make makes it,
# with elfpmd the one under test and a sysconfdir of the test's.
unit=$WORK/unit/elfpmd-prime.service
mkdir -p "$WORK/unit" "$WORK/etc/elfpmd"
sed -e "s|@bindir@|${ELFPMD%/*}|g" -e "s|@sysconfdir@|$WORK/etc|g" \
	"$TESTS_SRCDIR/../dist/systemd/elfpmd-prime.service.in" >"$unit" || hard_error "cannot make $unit"
if [ "${ELFPMD##*/}" != elfpmd ]; then
	skip "ELFPMD ($ELFPMD) is not named elfpmd: the unit's command cannot name it"
	unit=
elif have systemd-analyze; then
	systemd-analyze verify --man=no "$unit" >"$WORK/verify.out" 2>&1
	rc=$?
	ok=false; [ $rc = 0 ] && [ ! -s "$WORK/verify.out" ] && ok=true
	check "systemd-analyze verify --man=no elfpmd-prime.service: exit 0 (got $rc), no complaint ($(cat "$WORK/verify.out"))" $ok
else
	skip "systemd-analyze not found (Debian: package systemd): the unit is not verified"
fi

cleanup () {
	local p c
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for c in "${CLEANUP[@]}"; do "$c"; done
}
trap cleanup EXIT

build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c, thp-off.c): $(tail -1 "$O/mad-tools.log")"
PAGECACHE=$O/pagecache
THP_OFF=$O/thp-off
build_or_skip mad-pie mad-pie || skip_all "mad-pie cannot be built here"
require_file_thp "$WORK"

have_strace=false
if have strace; then have_strace=true; else skip "strace not found: the no-repair checks are skipped"; fi

mkdir -p "$WORK/orig" "$WORK/align" "$WORK/mad"
cp "$O/mad-pie" "$WORK/orig/mad-pie"
"$ELFPMD" -q -o "$WORK/align/mad-pie" "$O/mad-pie" || hard_error "elfpmd fails on mad-pie"
"$ELFPMD" -q --madvise -o "$WORK/mad/mad-pie" "$O/mad-pie" || hard_error "elfpmd --madvise fails on mad-pie"
"$WORK/orig/mad-pie" "${ARGS[@]}" >"$WORK/orig.out" 2>&1
echo "exit status $?" >>"$WORK/orig.out"
[ "$(tail -1 "$WORK/orig.out")" = "exit status 42" ] || skip_all "mad-pie does not run here: $(tail -1 "$WORK/orig.out")"

# json FILE KEY: KEY of the JSON object in FILE (one line).
json () { python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print("null" if v is None else v)' "$1" "$2" 2>/dev/null; }

# prime_then_run LABEL STATE EXE: prime EXE, check the report, start it
# once, check its output, coverage and (mad) that the stub repaired nothing.
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

for label in align mad; do
	exe=$WORK/$label/mad-pie
	drop_caches
	prime_then_run "$label" cold "$exe"
	drop_caches
	"$PAGECACHE" order0 "$exe" >/dev/null || hard_error "pagecache order0 failed"
	prime_then_run "$label" order0 "$exe"
	mkdir -p "$WORK/fresh-$label"
	dd if="$exe" of="$WORK/fresh-$label/mad-pie" bs=4k 2>/dev/null
	chmod 755 "$WORK/fresh-$label/mad-pie"
	prime_then_run "$label" fresh "$WORK/fresh-$label/mad-pie"
done

# A second prime: everything there already.
"$ELFPMD" prime -q "$WORK/align/mad-pie"
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/again.json"
holds "a second prime finds every chunk there already ($(cat "$WORK/again.json"))" \
	'[ "$(json "$WORK/again.json" primed)" = 0 ] && [ "$(json "$WORK/again.json" already)" = "$(ideal_chunks "$WORK/align/mad-pie")" ]'

# The original is not aligned.
out=$("$ELFPMD" prime "$WORK/orig/mad-pie" 2>&1)
rc=$?
holds "the original: exit 0 (got $rc), nothing to prime: not aligned ($out)" \
	'[ $rc = 0 ] && [[ $out == *"nothing to prime"*"not aligned"* ]]'

# A running program holds the chunks in small folios.
drop_caches
"$PAGECACHE" order0 "$WORK/align/mad-pie" >/dev/null
rm -f "$WORK/held.smaps"
FIXTURE_PAUSE=1 FIXTURE_SMAPS=$WORK/held.smaps "$WORK/align/mad-pie" >/dev/null 2>&1 &
held=$!
pids+=("$held")
n=0
while [ ! -s "$WORK/held.smaps" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/held.json" 2>&1
rc=$?
ideal=$(ideal_chunks "$WORK/align/mad-pie")
holds "a running program holds the chunks in small folios: exit 0 (got $rc), $ideal held, 0 primed ($(cat "$WORK/held.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/held.json" busy)" = "$ideal" ] && [ "$(json "$WORK/held.json" pmd_folios)" = 0 ]'
kill "$held"
wait "$held" 2>/dev/null
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/freed.json" 2>&1
check "once it has ended, prime gets every chunk ($(cat "$WORK/freed.json"))" \
	[ "$(json "$WORK/freed.json" pmd_folios)" = "$ideal" ]

# THP disabled for the process.
drop_caches
out=$("$THP_OFF" "$ELFPMD" prime "$WORK/align/mad-pie" 2>&1)
rc=$?
holds "under PR_SET_THP_DISABLE: exit 0 (got $rc) and says so ($out)" \
	'[ $rc = 0 ] && [[ $out == *"PR_SET_THP_DISABLE"* ]]'

# tmpfs.
if [ -d /dev/shm ] && [ "$(df -PT /dev/shm | awk 'NR == 2 { print $2 }')" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/elfpmd-prime.XXXXXX)
	cp "$WORK/align/mad-pie" "$shm/mad-pie"
	out=$("$ELFPMD" prime "$shm/mad-pie" 2>&1)
	rc=$?
	rm -rf "$shm"
	holds "on tmpfs: exit 0 (got $rc) and says why not ($out)" '[ $rc = 0 ] && [[ $out == *tmpfs* ]]'
else
	skip "no tmpfs at /dev/shm"
fi

# ext4 data=journal: no large folios at all.
if journal_mount "$WORK" 100M >"$WORK/loop.why" 2>&1; then
	cp "$WORK/align/mad-pie" "$MNTED/mad-pie"
	sync
	"$ELFPMD" prime "$MNTED/mad-pie" >/dev/null 2>&1
	b0=$(loop_read)
	out=$("$ELFPMD" prime "$MNTED/mad-pie" 2>&1)
	rc=$?
	b1=$(loop_read)
	holds "ext4 data=journal: exit 0 (got $rc), says the file gets no PMD-sized folios ($out)" \
		'[ $rc = 0 ] && [[ $out == *"no PMD-sized folios"* ]]'
	check "ext4 data=journal: a second prime reads at most one chunk again ($(((b1 - b0) / 1024)) KiB)" \
		[ $((b1 - b0)) -le $((2 << 20)) ]
	journal_umount
else
	skip "ext4 data=journal: loop mounts fail here: $(tail -1 "$WORK/loop.why")"
fi

# --files-from: a list with comments, an aligned file, a missing one, a text
# file, a directory and a symbolic link.
mkdir -p "$WORK/list"
cp "$WORK/align/mad-pie" "$WORK/list/mad-pie"
ln -s mad-pie "$WORK/list/link"
printf 'not an ELF file\n' >"$WORK/list/text"
printf '%s\n' '# a comment' '' "$WORK/list/mad-pie" "$WORK/list/missing" "$WORK/list/text" "$WORK/list" \
	"$WORK/list/link" >"$WORK/prime.list"
"$ELFPMD" prime --json -T "$WORK/prime.list" >"$WORK/list.json" 2>"$WORK/list.err"
rc=$?
ideal=$(ideal_chunks "$WORK/list/mad-pie")
ok=false; [ $rc = 0 ] && [ ! -s "$WORK/list.err" ] && ok=true
check "-T LIST: exit 0 (got $rc), nothing on stderr ($(cat "$WORK/list.err"))" $ok
check "-T LIST: 3 lines: the ELF file, the missing one, the summary ($(tr '\n' ' ' <"$WORK/list.json"))" \
	[ "$(wc -l <"$WORK/list.json")" = 3 ]
head -1 "$WORK/list.json" >"$WORK/list1.json"
ok=false; [ "$(json "$WORK/list1.json" file)" = "$WORK/list/mad-pie" ] && [ "$(json "$WORK/list1.json" pmd_folios)" = "$ideal" ] && ok=true
check "-T LIST: the ELF file: $ideal of $ideal chunks in PMD-sized folios ($(cat "$WORK/list1.json"))" $ok
check "-T LIST: the missing file: skipped, no such file" \
	grep -qxF "{\"file\":\"$WORK/list/missing\",\"skipped\":\"no such file\"}" "$WORK/list.json"
check "-T LIST: summary: 5 names, 1 read, 1 missing, 2 not regular (directory, symbolic link), 1 not ELF" \
	grep -qx '{"summary":{"names":5,"read":1,"failed":0,"skipped":4,"missing":1,"not_regular":2,"not_elf":1}}' "$WORK/list.json"
out=$("$ELFPMD" prime -T "$WORK/prime.list" 2>&1)
ok=false
[[ $out == *"$WORK/list/missing: skipped: no such file"* && $out == *"elfpmd prime: 5 names in the list: 1 ELF files read, 0 failed, 4 skipped (1 missing, 2 not regular files, 1 not ELF)" ]] && ok=true
check "-T LIST as text: the missing file and the summary line ($out)" $ok
out=$("$ELFPMD" prime -q -T - <"$WORK/prime.list" 2>&1)
rc=$?
ok=false; [ $rc = 0 ] && [ -z "$out" ] && ok=true
check "-q -T - (standard input): exit 0 (got $rc), nothing printed ($out)" $ok
printf '%s\0' "$WORK/list/mad-pie" "$WORK/list/missing" "# not a comment with -0" >"$WORK/prime.list0"
"$ELFPMD" prime --json -0 -T "$WORK/prime.list0" >"$WORK/list0.json" 2>&1
rc=$?
ok=false; [ $rc = 0 ] && grep -q '"names":3,"read":1,"failed":0,"skipped":2,"missing":2' "$WORK/list0.json" && ok=true
check "-0 -T LIST: exit 0 (got $rc), 3 names, 2 missing (no comments with -0) ($(tail -1 "$WORK/list0.json"))" $ok
head -c 4096 "$WORK/list/mad-pie" >"$WORK/list/truncated"
printf '%s\n' "$WORK/list/truncated" "$WORK/list/mad-pie" >"$WORK/bad.list"
"$ELFPMD" prime -T "$WORK/bad.list" >"$WORK/bad.out" 2>"$WORK/bad.err"
rc=$?
ok=false; [ $rc = 1 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] && grep -q "^elfpmd prime: $WORK/list/truncated: " "$WORK/bad.err" && ok=true
check "-T LIST with a truncated ELF file: exit 1 (got $rc), one line on stderr naming it ($(cat "$WORK/bad.err"))" $ok
ok=false; grep -q "^$WORK/list/mad-pie: $ideal of $ideal chunks" "$WORK/bad.out" && grep -q ' 1 ELF files read, 1 failed,' "$WORK/bad.out" && ok=true
check "... the other file still primed, the summary counts 1 failed" $ok
"$ELFPMD" prime -q -T "$WORK/no-such.list" >/dev/null 2>"$WORK/nolist.err"
rc=$?
ok=false; [ $rc = 1 ] && grep -q "^elfpmd prime: $WORK/no-such.list: cannot open the list" "$WORK/nolist.err" && ok=true
check "-T with a list that cannot be opened: exit 1 (got $rc), named ($(cat "$WORK/nolist.err"))" $ok
"$ELFPMD" prime -0 "$WORK/list/mad-pie" >/dev/null 2>&1
rc=$?
check "-0 without -T: usage error 64 (got $rc)" [ $rc = 64 ]

# The systemd unit's command, run by hand on a list of its form (its own
# path replaced by a test list): it primes a file whose chunks were
# dropped, prints nothing, exits 0.
if [ -n "$unit" ]; then
	exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
	printf '%s\n' '# files to prime at boot' "$WORK/list/mad-pie" "$WORK/list/gone" >"$WORK/etc/elfpmd/prime.list"
	"$PAGECACHE" evict "$WORK/list/mad-pie" >/dev/null && "$PAGECACHE" order0 "$WORK/list/mad-pie" >/dev/null \
		|| hard_error "pagecache evict, order0 failed"
	# shellcheck disable=SC2086
	out=$($exec_start 2>&1)
	rc=$?
	ok=false; [ $rc = 0 ] && [ -z "$out" ] && ok=true
	check "the unit's ExecStart ($exec_start): exit 0 (got $rc), nothing printed ($out)" $ok
	"$ELFPMD" prime --json "$WORK/list/mad-pie" >"$WORK/unit.json"
	ok=false; [ "$(json "$WORK/unit.json" already)" = "$ideal" ] && [ "$(json "$WORK/unit.json" primed)" = 0 ] && ok=true
	check "... the listed file's $ideal chunks were primed ($(cat "$WORK/unit.json"))" $ok
fi

# --max-size: a file larger (an aligned program with a sparse tail making
# it 1 GiB and 4 KiB) is not primed by default, the report says why; the
# sanity arm: with --max-size=2G the same file is primed.  And the unit
# bounds the boot's wait for it.
big=$WORK/big/mad-pie
mkdir -p "$WORK/big" && cp "$WORK/align/mad-pie" "$big" && truncate -s $(((1 << 30) + 4096)) "$big" \
	|| hard_error "cannot make $big"
"$PAGECACHE" evict "$big" >/dev/null 2>&1
"$ELFPMD" prime --json "$big" >"$WORK/big.json" 2>"$WORK/big.err"
rc=$?
holds "a file of 1 GiB + 4 KiB: exit 0 (got $rc), not primed, larger than --max-size ($(cat "$WORK/big.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/big.json" primed)" = 0 ] && json "$WORK/big.json" reason | grep -q "larger than --max-size (1073745920 bytes, 1073741824 at most)"'
"$ELFPMD" prime --json --max-size=2G "$big" >"$WORK/big2.json" 2>&1
rc=$?
holds "sanity: with --max-size=2G it is primed: $ideal chunks ($(cat "$WORK/big2.json"))" \
	'[ $rc = 0 ] && [ "$(json "$WORK/big2.json" pmd_folios)" = "$ideal" ] && [ "$(json "$WORK/big2.json" reason)" = null ]'
"$ELFPMD" prime --max-size=1x "$big" >/dev/null 2>&1
rc=$?
check "--max-size=1x: usage error 64 (got $rc)" [ $rc = 64 ]
rm -rf "$WORK/big"
check "the unit has a start timeout (TimeoutStartSec)" grep -q '^TimeoutStartSec=' "$TESTS_SRCDIR/../dist/systemd/elfpmd-prime.service.in"

# Errors.
printf 'not an ELF file\n' >"$WORK/text"
"$ELFPMD" prime "$WORK/text" "$WORK/missing" "$WORK/align/mad-pie" >"$WORK/err.out" 2>"$WORK/err.err"
rc=$?
holds "a text file and a missing file: exit 1 (got $rc), one line on stderr for each" \
	'[ $rc = 1 ] && [ "$(wc -l <"$WORK/err.err")" = 2 ] && grep -q "^elfpmd prime: $WORK/text: " "$WORK/err.err" && grep -q "^elfpmd prime: $WORK/missing: " "$WORK/err.err"'
check "... and the good file after them is still primed ($(cat "$WORK/err.out"))" \
	grep -q "^$WORK/align/mad-pie: $ideal of $ideal chunks" "$WORK/err.out"
"$ELFPMD" prime >/dev/null 2>&1
rc=$?
check "prime without FILE: usage error 64 (got $rc)" [ $rc = 64 ]

finish
