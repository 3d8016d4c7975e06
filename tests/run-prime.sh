#!/bin/bash
# run-prime.sh: elfpmd prime, which puts a file's aligned text into the page
# cache as PMD-sized folios without running it (issue 12).  The fixture is
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
#     the other files still primed; no FILE: usage error 64.
#
# Needs root (drop_caches), THP not never, file THP working on the file
# system of $TESTS_BUILDDIR (probed with fixtures/pagecache.c) and python3;
# skipped (77) otherwise.  Fixtures are built into
# $TESTS_BUILDDIR/prime-build.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

O=$TESTS_BUILDDIR/prime-build
WORK=$O/work
ARGS=(alpha "beta gamma")
pids=()
CLEANUP=()

require_elfpmd
require_root_thp "drop_caches for the cold and order-0 states"
have python3 || skip_all "python3 not found (reads the JSON report)"
rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"

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

drop_caches () { sync; echo 3 >/proc/sys/vm/drop_caches; }

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
		fail "$label $state: prime exit $rc, expected $ideal chunks: $(cat "$w.json" "$w.err")"
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
	if [ "$kb" -eq $((ideal * 2048)) ]; then
		pass "$label $state: the first start after prime has its text PMD-mapped: $kb kB, all $ideal chunks"
	else
		fail "$label $state: the first start after prime has $kb kB PMD-mapped of $((ideal * 2048))"
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
check "a second prime finds every chunk there already ($(cat "$WORK/again.json"))" \
	[ "$(json "$WORK/again.json" primed)" = 0 ] && [ "$(json "$WORK/again.json" already)" = "$(ideal_chunks "$WORK/align/mad-pie")" ]

# The original is not aligned.
out=$("$ELFPMD" prime "$WORK/orig/mad-pie" 2>&1)
rc=$?
check "the original: exit 0 (got $rc), nothing to prime: not aligned ($out)" \
	[ $rc = 0 ] && [[ $out == *"nothing to prime"*"not aligned"* ]]

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
check "a running program holds the chunks in small folios: exit 0 (got $rc), $ideal held, 0 primed ($(cat "$WORK/held.json"))" \
	[ $rc = 0 ] && [ "$(json "$WORK/held.json" busy)" = "$ideal" ] && [ "$(json "$WORK/held.json" pmd_folios)" = 0 ]
kill "$held"
wait "$held" 2>/dev/null
"$ELFPMD" prime --json "$WORK/align/mad-pie" >"$WORK/freed.json" 2>&1
check "once it has ended, prime gets every chunk ($(cat "$WORK/freed.json"))" \
	[ "$(json "$WORK/freed.json" pmd_folios)" = "$ideal" ]

# THP disabled for the process.
drop_caches
out=$("$THP_OFF" "$ELFPMD" prime "$WORK/align/mad-pie" 2>&1)
rc=$?
check "under PR_SET_THP_DISABLE: exit 0 (got $rc) and says so ($out)" \
	[ $rc = 0 ] && [[ $out == *"PR_SET_THP_DISABLE"* ]]

# tmpfs.
if [ -d /dev/shm ] && [ "$(df -PT /dev/shm | awk 'NR == 2 { print $2 }')" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/elfpmd-prime.XXXXXX)
	cp "$WORK/align/mad-pie" "$shm/mad-pie"
	out=$("$ELFPMD" prime "$shm/mad-pie" 2>&1)
	rc=$?
	rm -rf "$shm"
	check "on tmpfs: exit 0 (got $rc) and says why not ($out)" [ $rc = 0 ] && [[ $out == *tmpfs* ]]
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
	check "ext4 data=journal: exit 0 (got $rc), says the file gets no PMD-sized folios ($out)" \
		[ $rc = 0 ] && [[ $out == *"no PMD-sized folios"* ]]
	check "ext4 data=journal: a second prime reads at most one chunk again ($(((b1 - b0) / 1024)) KiB)" \
		[ $((b1 - b0)) -le $((2 << 20)) ]
	journal_umount
else
	skip "ext4 data=journal: loop mounts fail here: $(tail -1 "$WORK/loop.why")"
fi

# Errors.
printf 'not an ELF file\n' >"$WORK/text"
"$ELFPMD" prime "$WORK/text" "$WORK/missing" "$WORK/align/mad-pie" >"$WORK/err.out" 2>"$WORK/err.err"
rc=$?
check "a text file and a missing file: exit 1 (got $rc), one line on stderr for each" \
	[ $rc = 1 ] && [ "$(wc -l <"$WORK/err.err")" = 2 ] && grep -q "^elfpmd: $WORK/text: " "$WORK/err.err" \
	&& grep -q "^elfpmd: $WORK/missing: " "$WORK/err.err"
check "... and the good file after them is still primed ($(cat "$WORK/err.out"))" \
	grep -q "^$WORK/align/mad-pie: $ideal of $ideal chunks" "$WORK/err.out"
"$ELFPMD" prime >/dev/null 2>&1
rc=$?
check "prime without FILE: usage error 64 (got $rc)" [ $rc = 64 ]

finish
