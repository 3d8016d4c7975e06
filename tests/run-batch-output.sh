#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch-output.sh: what a batch run prints, for people who run it over
# thousands of files.  A tree of a PIE with 4.5 MiB of text (and a hard link
# to it), a fixed-address program with as much, a small program (nothing
# eligible), an already aligned copy and a text file:
#   - by default the report lists only what changed (2 lines) and the summary;
#     -v every file and the further name; -vv every file's full report; -q
#     only the summary; the JSON every file whatever the text says;
#   - a dry run speaks in the conditional and writes nothing;
#   - a fixed-address program is told that p_align alone has no run-time
#     effect (line, full report, JSON), unless it gets the stub;
#   - a hard link outside the run gets a warning, unless --known-links
#     names the directory it is kept in;
#   - the progress line is drawn on a terminal (script(1) gives one) and
#     wiped before the summary, and never written to a pipe or a file, nor
#     with --no-progress.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
cpu_lock shared

work=$TESTS_BUILDDIR/batch-output-work
[ -n "$KEEP" ] || rm -rf "$work"
mkdir -p "$work/src" || hard_error "cannot create $work"
cc=${CC:-cc}
have "$cc" || skip_all "no C compiler ($cc)"

src=$work/src
printf '\t.text\n\t.globl big\nbig:\n\t.fill 0x480000,1,0xc3\n\t.section .note.GNU-stack,"",@progbits\n' > "$src/big.S"
printf 'extern char big[];\nint main (void) { ((void (*) (void)) big) (); return 0; }\n' > "$src/main.c"
printf 'int main (void) { return 0; }\n' > "$src/small.c"
"$cc" -O2 -fPIE -pie -o "$src/pie" "$src/main.c" "$src/big.S" \
	&& "$cc" -O2 -fno-pie -no-pie -o "$src/exec" "$src/main.c" "$src/big.S" \
	&& "$cc" -O2 -o "$src/small" "$src/small.c" \
	&& "$ELFPMD" -q -o "$src/aligned" "$src/pie" \
	|| hard_error "cannot build the fixtures"

# make_tree DIR: the tree, afresh.
make_tree () {
	rm -rf "$1" && mkdir -p "$1/bin" "$1/lib" || return 1
	cp "$src/pie" "$src/exec" "$src/small" "$src/aligned" "$1/bin/" \
		&& ln "$1/bin/pie" "$1/lib/pie-link" && echo text > "$1/lib/README"
}
tree=$work/tree

# nlines FILE: its number of lines.
nlines () { wc -l < "$1" | tr -d ' '; }

make_tree "$tree" || hard_error "cannot make $tree"
"$ELFPMD" -r "$tree" > "$work/default" 2> "$work/default.err"
st=$?
holds "default: exit 0, the two files changed and the summary, nothing on stderr" \
	'[ $st -eq 0 ] && [ "$(nlines "$work/default")" -eq 3 ] && [ ! -s "$work/default.err" ] &&
	 grep -q "^$tree/bin/pie: changed: " "$work/default" && grep -q "^$tree/bin/exec: changed: " "$work/default" &&
	 tail -1 "$work/default" | grep -q "^elfpmd: 6 files: 2 changed, 1 already aligned, 1 nothing eligible, 1 further hard link, 1 skipped (1 not ELF), 0 failed$"'
check "default: no line for what is already aligned, has nothing eligible or is another name" \
	sh -c "! grep -Eq 'already aligned:|nothing eligible:|same file as' '$work/default'"

make_tree "$tree"
"$ELFPMD" -r -v "$tree" > "$work/v" 2>&1
holds "-v: a line for each of the 4 ELF files and the further name, then the summary ($(nlines "$work/v") lines)" \
	'[ "$(nlines "$work/v")" -eq 6 ] && grep -q "^$tree/bin/small: nothing eligible: " "$work/v" &&
	 grep -q "^$tree/bin/aligned: already aligned: " "$work/v" &&
	 grep -q "^$tree/lib/pie-link: same file as $tree/bin/pie: changed$" "$work/v"'

make_tree "$tree"
"$ELFPMD" -r -vv "$tree" > "$work/vv" 2>&1
holds "-vv: the full report of each of the 4 ELF files" \
	'[ "$(grep -c "^  result: " "$work/vv")" -eq 4 ] && [ "$(grep -c "^  idx flg" "$work/vv")" -eq 4 ]'

make_tree "$tree"
"$ELFPMD" -r -q "$tree" > "$work/q" 2> "$work/q.err"
holds "-q: only the summary line" \
	'[ "$(nlines "$work/q")" -eq 1 ] && grep -q "^elfpmd: 6 files: 2 changed" "$work/q" && [ ! -s "$work/q.err" ]'

make_tree "$tree"
"$ELFPMD" -r --json "$tree" > "$work/json" 2>&1
holds "--json: an object for each of the 4 ELF files and the further name, and the summary" \
	'[ "$(grep -c "^{\"file\":" "$work/json")" -eq 5 ] && tail -1 "$work/json" | grep -q "^{\"summary\":"'
holds "--json: fixed_address is true for the ET_EXEC program only" \
	'[ "$(grep -c "\"fixed_address\":true" "$work/json")" -eq 1 ] && grep "\"fixed_address\":true" "$work/json" | grep -q "\"file\":\"$tree/bin/exec\""'

# A dry run: the conditional, nothing written.
make_tree "$tree"
before=$(cd "$tree" && sha256sum bin/* | sha256sum)
"$ELFPMD" -r -n --madvise "$tree" > "$work/n" 2>&1
holds "-n: 'would change: ... would be aligned', and the stub 'would be injected' (3, not in the small one)" \
	'grep -q "^$tree/bin/pie: would change: 1 of [0-9] PT_LOADs would be aligned to 2 MiB" "$work/n" &&
	 grep -q "startup stub would be hooked through" "$work/n" &&
	 grep -q "^elfpmd: startup stub: 3 would be injected, 1 would not be (1: " "$work/n" &&
	 ! grep -q ": changed" "$work/n"'
check "-n: nothing written" test "$(cd "$tree" && sha256sum bin/* | sha256sum)" = "$before"

# Fixed address: the line and the full report say that p_align alone does
# nothing at run time; with the stub they need not.
grep "^$tree/bin/exec:" "$work/default" | grep -q "fixed-address program (ET_EXEC): p_align has no run-time effect, --madvise or 'elfpmd prime'" \
	&& pass "ET_EXEC: the line says p_align has no run-time effect and names --madvise and prime" \
	|| fail "ET_EXEC line: $(grep "^$tree/bin/exec:" "$work/default")"
check "ET_EXEC: the PIE's line does not" sh -c "! grep '^$tree/bin/pie:' '$work/default' | grep -q fixed-address"
"$ELFPMD" -n "$src/exec" > "$work/exec-n" 2>&1
check "ET_EXEC: the full report says the new alignment has no run-time effect" \
	grep -q "^  fixed-address program: the kernel maps it at its link addresses and never reads p_align, so the new alignment has no run-time effect" "$work/exec-n"
"$ELFPMD" -n --madvise "$src/exec" > "$work/exec-stub" 2>&1
check "ET_EXEC with the stub: no such note" sh -c "! grep -q fixed-address '$work/exec-stub'"

# --known-links: a hard link kept on purpose in a stash (as
# dh_elfpmd_buildtree keeps one of each file) gets no warning; without the
# option it does, and the stash keeps the old contents either way.
for known in "" "--known-links=$work/stash"; do
	make_tree "$tree" && rm -rf "$work/stash" && mkdir "$work/stash" && ln "$tree/bin/exec" "$work/stash/0" \
		|| hard_error "cannot make the stash"
	"$ELFPMD" -r ${known:+"$known"} "$tree" > /dev/null 2> "$work/stash.err"
	st=$?
	if [ -z "$known" ]; then
		holds "a stash's hard link without --known-links: exit 0, one warning naming the file" \
			'[ $st -eq 0 ] && [ "$(nlines "$work/stash.err")" -eq 1 ] && grep -q "^elfpmd: $tree/bin/exec: warning: 1 other hard link of this file is not in this run and keeps the old contents$" "$work/stash.err"'
	else
		holds "--known-links=DIR: exit 0, no warning" '[ $st -eq 0 ] && [ ! -s "$work/stash.err" ]'
	fi
	check "${known:-no --known-links}: the stash keeps the old contents" cmp -s "$work/stash/0" "$src/exec"
done
"$ELFPMD" -r --known-links="$work/no-such-dir" "$tree" > /dev/null 2> "$work/known.err"
st=$?
holds "--known-links=DIR that cannot be read: exit 1 before any file, one line naming it" \
	'[ $st -eq 1 ] && [ "$(nlines "$work/known.err")" -eq 1 ] && grep -q "no-such-dir: cannot read the known links: " "$work/known.err"'

# Progress: batches of 60000 empty files make the run last long enough for
# drawings.  The first comes after 0.25 s of processing; how many files a
# second that is varies from 48,000 (cold) to over 200,000 (warm, -j2), so
# a run that draws nothing is given another batch, up to 8: a line that is
# still missing from a run over 480,000 files (over a second here) is a
# failure, not a fast machine.
if ! have script; then
	skip "progress: script(1) not found (Debian: package bsdutils), no terminal to test on"
else
	many=$work/many
	batches=0
	nfiles=0
	grow () {
		batches=$((batches + 1))
		mkdir -p "$many/$batches" && (cd "$many/$batches" && seq 1 60000 | xargs touch) \
			|| hard_error "cannot make $many/$batches"
		nfiles=$((nfiles + 60000))
	}
	grow
	# on_tty OUT OPTIONS: elfpmd -r OPTIONS over $many and a fresh tree on a
	# terminal, with more files until a progress line is drawn.
	on_tty () {
		local out=$1
		shift
		while :; do
			make_tree "$tree"
			script -qec "'$ELFPMD' -r $* '$many' '$tree'" /dev/null > "$out" 2>&1
			grep -aq " of $((nfiles + 5)) files, " "$out" || [ $batches -ge 8 ] && break
			grow
		done
	}
	on_tty "$work/tty" -j1
	holds "on a terminal: the progress line is drawn ($(grep -ao "elfpmd: [0-9]* of $((nfiles + 5)) files, [0-9]* changed, [0-9]*/s" "$work/tty" | head -1))" \
		'grep -aq "elfpmd: [0-9]* of $((nfiles + 5)) files, [0-9]* changed, [0-9]*/s: " "$work/tty"'
	# What the terminal shows in the end: each carriage return starts the
	# line again, so the last piece of every line is what stays.
	sed 's/\r$//' "$work/tty" | awk -F '\r' '{ print $NF }' | sed 's/ *$//' | grep -v '^$' > "$work/tty-final"
	holds "on a terminal: wiped before the report, which reads as in a pipe" \
		'[ "$(nlines "$work/tty-final")" -eq 3 ] && tail -1 "$work/tty-final" | grep -q "^elfpmd: $((nfiles + 6)) files: 2 changed"'
	make_tree "$tree"
	"$ELFPMD" -r -j1 "$many" "$tree" > "$work/pipe" 2> "$work/pipe.err"
	holds "in a pipe and a file: no progress, no carriage return" \
		'! grep -aq "$(printf "\r")" "$work/pipe" "$work/pipe.err" && [ ! -s "$work/pipe.err" ]'
	make_tree "$tree"
	script -qec "'$ELFPMD' -r -j1 --no-progress '$many' '$tree'" /dev/null > "$work/tty-no" 2>&1
	check "--no-progress on a terminal ($nfiles empty files): no progress line" sh -c "! grep -aq ' of $((nfiles + 5)) files' '$work/tty-no'"
	on_tty "$work/tty-j2" -j2
	check "-j2 on a terminal ($nfiles empty files): the progress line is drawn too" grep -aq " of $((nfiles + 5)) files, " "$work/tty-j2"
	rm -rf "$many"
fi

[ -n "$KEEP" ] || rm -rf "$work"
finish
