#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-batch.sh: runs over many files (-r, --files-from, -j, --exclude, -p)
# and hard links.  A staging tree is built from two programs and a library
# with 4.5 MiB of text each, hard links (inside and outside the run), a
# symbolic link, a script, an object file, a separate debug file inside and
# outside usr/lib/debug, a FIFO and a name with a newline in it; then:
#   - the summary's counts equal counts made by find and by file contents;
#   - every ELF file that should change is aligned (phdr-dump, independent of
#     elfpmd), passes eu-elflint and runs; the others are byte-identical;
#   - the names of one inode in the run name one new file; a name outside
#     the run keeps the old one and a warning says so;
#   - -j1 and -j2 print the same bytes and write the same bytes; a second run
#     changes nothing; -p keeps the dates;
#   - --files-from with -0 and with newlines, --exclude, and usage errors.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

work=$TESTS_BUILDDIR/batch-work
[ -n "$KEEP" ] || rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
require_phdr_dump "$work"
cc=${CC:-cc}
have "$cc" || { skip "no C compiler ($cc)"; finish; }

# --- fixtures ---------------------------------------------------------------
src=$work/src
mkdir -p "$src"
printf '\t.text\n\t.globl big\nbig:\n\t.fill 0x480000,1,0xc3\n\t.section .note.GNU-stack,"",@progbits\n' > "$src/big.S"
cat > "$src/main.c" <<'EOF'
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
EOF
printf 'extern char big[];\nint lib_answer (void) { ((void (*) (void)) big) (); return 42; }\n' > "$src/lib.c"
"$cc" -O2 -g -fPIC -shared -Wl,-soname,libbatch.so.1 -o "$src/libbatch.so.1" "$src/lib.c" "$src/big.S" \
	&& "$cc" -O2 -g -fPIE -pie -o "$src/prog" "$src/main.c" "$src/big.S" -L"$src" -l:libbatch.so.1 \
	&& "$cc" -O2 -c -o "$src/obj.o" "$src/lib.c" \
	&& objcopy --only-keep-debug "$src/prog" "$src/prog.debug" \
	|| hard_error "cannot build the fixtures"

# make_tree DIR: the staging tree.
make_tree () {
	local t=$1
	mkdir -p "$t/usr/bin" "$t/usr/lib" "$t/usr/libexec/batch" "$t/usr/lib/debug/.build-id/aa" \
		"$t/usr/share/doc" "$t/opt/skipme"
	cp "$src/prog" "$t/usr/bin/prog"
	ln "$t/usr/bin/prog" "$t/usr/bin/prog-link"
	ln "$t/usr/bin/prog" "$t/usr/libexec/batch/prog-other-dir"
	ln -s prog "$t/usr/bin/prog-alias"
	cp "$src/prog" "$t/usr/libexec/batch/helper"
	cp "$src/libbatch.so.1" "$t/usr/lib/libbatch.so.1"
	ln -s libbatch.so.1 "$t/usr/lib/libbatch.so"
	printf '#!/bin/sh\necho script\n' > "$t/usr/bin/script"
	chmod 755 "$t/usr/bin/script"
	cp "$src/obj.o" "$t/usr/lib/obj.o"
	cp "$src/prog.debug" "$t/usr/lib/debug/.build-id/aa/bbcc.debug"
	cp "$src/prog.debug" "$t/usr/lib/debug/prog.debug"
	cp "$src/prog.debug" "$t/usr/share/doc/prog.debug"
	printf 'text\n' > "$t/usr/share/doc/README"
	cp "$src/prog" "$t/opt/skipme/prog"
	cp "$src/prog" "$t/usr/bin/excluded-prog"
	cp "$src/prog" "$t/usr/bin/name with
newline"
	mkfifo "$t/usr/bin/fifo"
	# A MIPS copy (e_machine 8): a machine without a PMD size, skipped.
	cp "$src/prog" "$t/usr/lib/firmware-mips"
	printf '\010\000' | dd of="$t/usr/lib/firmware-mips" bs=1 seek=18 conv=notrunc 2> /dev/null
	chmod 4755 "$t/usr/libexec/batch/helper"
}

# --- one walk over the tree -------------------------------------------------
tree=$work/tree
make_tree "$tree"
ln "$tree/usr/bin/prog" "$work/outside-link"
cp -a "$tree" "$work/orig"
touch -d '2001-02-03 04:05:06' "$tree/usr/lib/libbatch.so.1"
"$ELFPMD" -r -j2 -p --exclude='skipme' --exclude='*/usr/bin/excluded-*' "$tree" > "$work/out" 2> "$work/err"
status=$?
check "-r exits 0" test "$status" -eq 0
note "$(tail -1 "$work/out")"

# The independent count: find's view of the tree, less the pruned
# directories and the excluded names, and each regular file's first bytes.
indep_files=0 indep_links=0 indep_other=0 indep_notelf=0 indep_elf=0
while IFS= read -r -d '' f; do
	case $f in
	*/usr/lib/debug|*/usr/lib/debug/*|*/.build-id|*/.build-id/*|*/skipme|*/skipme/*) continue ;;
	*/usr/bin/excluded-*) indep_files=$((indep_files + 1)); continue ;;
	esac
	indep_files=$((indep_files + 1))
	if [ -L "$f" ]; then indep_links=$((indep_links + 1))
	elif [ ! -f "$f" ]; then indep_other=$((indep_other + 1))
	elif [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then indep_elf=$((indep_elf + 1))
	else indep_notelf=$((indep_notelf + 1))
	fi
done < <(find "$work/orig" ! -type d -print0)
# Of the ELF files: obj.o is relocatable, usr/share/doc/prog.debug a debug
# file, prog's three names one file; the rest (prog, helper, the library,
# the name with a newline) change.
changed=0
while IFS= read -r -d '' f; do
	rel=${f#"$work/orig"}
	[ -f "$tree$rel" ] && [ ! -L "$f" ] || continue
	cmp -s "$f" "$tree$rel" || changed=$((changed + 1))
done < <(find "$work/orig" -type f -print0)
python3 - "$work/out" "$indep_files" "$indep_links" "$indep_other" "$indep_notelf" "$changed" <<'EOF' \
	&& pass "summary line matches find's count ($indep_files files, $indep_links symlinks, $indep_notelf not ELF)" \
	|| fail "summary line: $(tail -1 "$work/out")"
import re, sys
line = open(sys.argv[1]).read().splitlines()[-1]
files, links, other, notelf, changed = map(int, sys.argv[2:])
m = re.match(r"elfpmd: (\d+) files: (.*)$", line)
assert m, line
assert int(m.group(1)) == files, (m.group(1), files)
counts = dict((k.strip(), int(n)) for n, k in re.findall(r"(\d+) ([a-zA-Z ]+?)(?=[,()]|$)", m.group(2)))
# "changed" counts inodes under their first name; the two further names of
# prog's inode in the run changed with it.
assert counts["changed"] + counts["further hard links"] == changed, (counts, changed)
assert counts["symbolic link"] == links, counts
assert counts["not a regular file"] == other, counts
assert counts["not ELF"] == notelf, counts
assert counts["relocatable"] == 1 and counts["debug file"] == 1, counts
assert counts["machine without PMD size"] == 1, counts
assert counts["excluded"] == 1, counts
assert counts["further hard links"] == 2, counts
assert counts["failed"] == 0, counts
total = sum(v for k, v in counts.items() if k in ("changed", "already aligned", "nothing eligible",
        "further hard links", "skipped", "failed"))
assert total == files, (total, files)
EOF

# Every changed ELF file is aligned by an independent reader, passes
# eu-elflint and runs; the names of prog's inode in the run are one new file.
for f in usr/bin/prog usr/libexec/batch/helper usr/lib/libbatch.so.1 "usr/bin/name with
newline"; do
	what=${f//$'\n'/\\n}
	"$PHDR_DUMP" --expect-relaxed 0x200000 "$tree/$f" > /dev/null 2>&1 \
		&& "$PHDR_DUMP" "$tree/$f" | awk '$2 == "LOAD" && $3 ~ /X/ && $8 != "0x200000" { exit 1 }' \
		&& pass "$what: text aligned to 2 MiB (phdr-dump)" || fail "$what: not aligned"
	if have eu-elflint; then
		eu-elflint --gnu-ld "$tree/$f" > "$work/lint" 2>&1 && pass "$what: eu-elflint" || fail "$what: eu-elflint: $(head -3 "$work/lint")"
	fi
done
run_out=$(LD_LIBRARY_PATH=$tree/usr/lib "$tree/usr/bin/prog" 2>&1)
check "the rewritten program runs with the rewritten library" test "$run_out" = "batch ok 42"
ino=$(stat -c %i "$tree/usr/bin/prog")
check "hard links in the run name the rewritten file" \
	test "$(stat -c %i "$tree/usr/bin/prog-link")" = "$ino" -a "$(stat -c %i "$tree/usr/libexec/batch/prog-other-dir")" = "$ino"
check "the rewritten file has the three names of the run" test "$(stat -c %h "$tree/usr/bin/prog")" -eq 3
check "the name outside the run keeps the old contents" cmp -s "$work/outside-link" "$src/prog"
grep -q "outside-link\|1 other hard link of this file is not in this run" "$work/err" \
	&& pass "a warning names the hard link outside the run" || fail "no warning about the outside link: $(cat "$work/err")"
check "the symbolic link is left alone" test "$(readlink "$tree/usr/bin/prog-alias")" = prog
for f in usr/bin/script usr/lib/obj.o usr/share/doc/prog.debug usr/lib/debug/prog.debug \
	usr/lib/debug/.build-id/aa/bbcc.debug opt/skipme/prog usr/bin/excluded-prog usr/lib/firmware-mips; do
	cmp -s "$work/orig/$f" "$tree/$f" && pass "$f: untouched" || fail "$f: changed"
done
check "-p keeps the modification time" test "$(stat -c %Y "$tree/usr/lib/libbatch.so.1")" = "$(date -d '2001-02-03 04:05:06' +%s)"
check "the set-user-ID bit survives" test "$(stat -c %a "$tree/usr/libexec/batch/helper")" = 4755
# The further names of prog's inode are counted in the summary; the report
# lists them with -v (run-batch-output.sh) and in JSON.
check "the report does not list the further names without -v" sh -c "! grep -q 'same file as' '$work/out'"

# A second run changes nothing.
"$ELFPMD" -r -j2 --exclude='skipme' --exclude='*/usr/bin/excluded-*' "$tree" > "$work/out2" 2>&1
tail -1 "$work/out2" | grep -q ': 0 changed, 4 already aligned, ' \
	&& pass "second run: nothing changed, 4 already aligned" || fail "second run: $(tail -1 "$work/out2")"

# -j1 and -j2: the same report bytes and the same output bytes.
for j in 1 2; do
	rm -rf "$work/tree-j$j" && cp -a "$work/orig" "$work/tree-j$j"
	"$ELFPMD" -r -j$j --json "$work/tree-j$j" 2>&1 | sed "s|tree-j$j|tree-J|g" > "$work/out-j$j"
done
check "-j1 and -j2 print the same" cmp -s "$work/out-j1" "$work/out-j2"
diff -r -x fifo "$work/tree-j1" "$work/tree-j2" > /dev/null 2>&1 && pass "-j1 and -j2 write the same bytes" \
	|| fail "-j1 and -j2 outputs differ"
python3 - "$work/out-j1" <<'EOF' && pass "JSON lines parse; the summary object adds up" || fail "JSON summary"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]["summary"]
parts = ("changed", "would_change", "already_aligned", "padding_refused", "needs_padding",
         "nothing_eligible", "skipped", "failed", "hard_links")
assert sum(s[k] for k in parts) == s["files"], s
assert sum(s["skipped_by_reason"].values()) == s["skipped"], s
assert len(rows) - 1 == s["changed"] + s["hard_links"], (len(rows), s)
EOF

# --json=FILE: the text report on standard output and the JSON in FILE from
# one run, each the bytes of a run with only that report (-j2 and -j1; the
# further hard-link names and the summary in both).
"$ELFPMD" -r -n -j2 --madvise "$work/orig" >"$work/one-text" 2>/dev/null
"$ELFPMD" -r -n -j2 --madvise --json "$work/orig" >"$work/one-json" 2>/dev/null
for j in 1 2; do
	"$ELFPMD" -r -n -j$j --madvise --json="$work/both-json-j$j" "$work/orig" >"$work/both-text-j$j" 2>/dev/null
	holds "--json=FILE -j$j: the text report as without --json, the JSON as with --json" \
		'cmp -s "$work/one-text" "$work/both-text-j$j" && cmp -s "$work/one-json" "$work/both-json-j$j"'
done
check "--json=FILE: the hard-link names are in the JSON" grep -q '"same_file_as"' "$work/both-json-j2"
"$ELFPMD" -r -n -q --json="$work/q-json" "$work/orig" >"$work/q-text" 2>/dev/null
holds "-q --json=FILE: only the summary line on standard output, the JSON in FILE" \
	'[ "$(wc -l < "$work/q-text")" -eq 1 ] && grep -q "^elfpmd: [0-9]* files: " "$work/q-text" && tail -1 "$work/q-json" | grep -q "^{\"summary\""'
"$ELFPMD" -r -n --json="$work/no/such/dir/x" "$work/orig" >/dev/null 2>"$work/j-err"
st=$?
holds "--json=FILE that cannot be written: exit 1 before any file, one line naming it" \
	'[ $st -eq 1 ] && [ "$(wc -l < "$work/j-err")" -eq 1 ] && grep -q "x: cannot write the JSON report" "$work/j-err"'

# --times: the run time ends the summary line and is "seconds" in the JSON
# summary; the rest is the bytes of a run without it.
"$ELFPMD" -r -n --times --json="$work/times.json" "$work/orig" >"$work/times.txt" 2>/dev/null
"$ELFPMD" -r -n "$work/orig" >"$work/notimes.txt" 2>/dev/null
holds "--times: the summary line ends 'in N s', the JSON summary has seconds ($(tail -1 "$work/times.txt" | grep -o ' in [0-9.]* s$'))" \
	'tail -1 "$work/times.txt" | grep -Eq ", 0 failed in [0-9]+\.[0-9] s$" && tail -1 "$work/times.json" | grep -Eq "\"seconds\":[0-9]+\.[0-9]{3}\}\}$"'
check "--times: otherwise the same report" \
	cmp -s <(sed '$s/ in [0-9.]* s$//' "$work/times.txt") "$work/notimes.txt"
check "without --times, no time" sh -c "! tail -1 '$work/notimes.txt' | grep -q ' s\$'"

# --madvise: the stub's summary, text and JSON, adds up to the per-file
# reports (a dry run over the original tree).
"$ELFPMD" -r -n -j2 --madvise --json "$work/orig" >"$work/out-stub.json" 2>/dev/null
"$ELFPMD" -r -n -j2 --madvise "$work/orig" >"$work/out-stub" 2>/dev/null
python3 - "$work/out-stub.json" <<'EOF' && pass "--madvise: the summary's stubs add up to the files' reports" || fail "--madvise: stub summary"
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]["summary"]["stubs"]
stubs = [r["stub"] for r in rows[:-1] if "stub" in r and r.get("status") not in ("skipped", "failed")]
assert s["injected"] == sum(1 for x in stubs if x["injected"]) > 0, (s, stubs)
why = collections.Counter(x["reason"] for x in stubs if not x["injected"])
assert s["not_injected"] == sum(why.values()) and s["not_injected_by_reason"] == dict(why), (s, why)
EOF
injected=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["summary"]["stubs"]["injected"])' "$work/out-stub.json" 2>/dev/null)
stub_line=$(tail -2 "$work/out-stub" | head -1)
case $stub_line in
"elfpmd: startup stub: ${injected:-x} would be injected, "[0-9]*" would not be"*) pass "--madvise: the stub's line before the summary: $stub_line" ;;
*) fail "--madvise: no stub line: $(tail -2 "$work/out-stub")" ;;
esac
if tail -2 "$work/out" | grep -q 'startup stub'; then fail "without --madvise: a stub line"; else pass "without --madvise: no stub line"; fi

# --files-from: NUL-separated names (one with a newline), then newline-separated.
rm -rf "$work/list" && cp -a "$work/orig" "$work/list"
(cd "$work/list" && find . ! -type d -print0) > "$work/names0"
(cd "$work/list" && "$ELFPMD" --files-from="$work/names0" -0 -j2) > "$work/out-list" 2>&1
# Six: listed names are never pruned or excluded (opt/skipme/prog,
# excluded-prog), and debug files are skipped as such.
tail -1 "$work/out-list" | grep -q ': 6 changed, .*2 further hard links, 10 skipped (2 not ELF, 1 relocatable, 3 debug file, 1 machine without PMD size, 2 symbolic link, 1 not a regular file)' \
	&& pass "--files-from -0: 6 changed, the debug files skipped as such" \
	|| fail "--files-from -0: $(tail -1 "$work/out-list")"
"$PHDR_DUMP" --expect-relaxed 0x200000 "$work/list/usr/bin/name with
newline" > /dev/null 2>&1
check "--files-from -0: the name with a newline changed" test $? -eq 0
rm -rf "$work/list" && cp -a "$work/orig" "$work/list"
printf '%s\n' "$work/list/usr/bin/prog" "" "$work/list/usr/bin/prog-link" "$work/list/usr/bin/script" \
	| "$ELFPMD" -T - > "$work/out-list" 2>&1
tail -1 "$work/out-list" | grep -q '^elfpmd: 3 files: 1 changed, .*1 further hard link, 1 skipped (1 not ELF), 0 failed$' \
	&& pass "--files-from - with newlines: empty lines ignored, script skipped" \
	|| fail "--files-from -: $(tail -1 "$work/out-list")"

# Without a batch option: two names of one inode give one new file; a
# script is an error, as it always was.
cp "$src/prog" "$work/a" && ln -f "$work/a" "$work/b"
"$ELFPMD" -q "$work/a" "$work/b"
check "elfpmd a b on hard links: one inode" test "$(stat -c %i "$work/a")" = "$(stat -c %i "$work/b")" -a "$(stat -c %h "$work/a")" -eq 2
"$PHDR_DUMP" --expect-relaxed 0x200000 "$work/b" > /dev/null 2>&1
check "elfpmd a b: rewritten" test $? -eq 0
# A symbolic link named beside its target (in either order) and a hard
# link: the link is the same file, never a hard link to put back: no
# warning, the link stays a link to the rewritten file, the hard link names
# it, one rewrite; a batch run's summary counts the link as no hard link.
for order in "t l h" "l t h"; do
	rm -rf "$work/sl" && mkdir "$work/sl" && cp "$src/prog" "$work/sl/t" && ln -s t "$work/sl/l" && ln "$work/sl/t" "$work/sl/h"
	# shellcheck disable=SC2086  # the names are words
	(cd "$work/sl" && "$ELFPMD" $order) > "$work/sl.out" 2> "$work/sl.err"
	rc=$?
	holds "elfpmd $order (t a file, l a symbolic link to it, h a hard link): exit 0 (got $rc), no warning ($(head -1 "$work/sl.err")), l still a link, h the new file, l said the same file" \
		'[ $rc -eq 0 ] && [ ! -s "$work/sl.err" ] && [ -L "$work/sl/l" ] && [ "$(readlink "$work/sl/l")" = t ] \
		 && [ "$(stat -c %i "$work/sl/t")" = "$(stat -c %i "$work/sl/h")" ] && "$PHDR_DUMP" --expect-relaxed 0x200000 "$work/sl/t" >/dev/null 2>&1 \
		 && grep -q "^l: same file as t: changed" "$work/sl.out"'
done
(cd "$work/sl" && cp "$src/prog" t.new && mv t.new t && rm h && "$ELFPMD" -r -j2 l t) > "$work/sl.out" 2> "$work/sl.err"
holds "-r -j2 l t: no warning, the summary counts no hard link ($(tail -1 "$work/sl.out"))" \
	'[ ! -s "$work/sl.err" ] && tail -1 "$work/sl.out" | grep -q ": 1 changed, " && ! tail -1 "$work/sl.out" | grep -q "further hard link"'
"$ELFPMD" -q "$tree/usr/bin/script" 2> "$work/err"
check "a script named outside a batch run is an error" test $? -eq 1
grep -q 'not an ELF file' "$work/err" && pass "... saying it is not ELF" || fail "error: $(cat "$work/err")"

# A directory that cannot be walked is a failure; so is a missing list.
"$ELFPMD" -r "$work/does-not-exist" > /dev/null 2> "$work/err"
check "-r on a missing directory exits 1" test $? -eq 1
"$ELFPMD" --files-from="$work/no-list" > /dev/null 2> "$work/err"
check "a missing list exits 1" test $? -eq 1
grep -q 'no-list: cannot open the list' "$work/err" && pass "... naming the list" || fail "list error: $(cat "$work/err")"

# SIGTERM to the whole run (parent and workers) at some moment: whatever
# the moment, no temporary file or worker is left, and every file is either
# the original or a whole aligned file.
sig=$work/sig
mkdir -p "$sig"
for i in $(seq 1 40); do cp "$src/prog" "$sig/p$i"; done
setsid "$ELFPMD" -r -j2 "$sig" > /dev/null 2>&1 &
pid=$!
sleep 0.1
kill -TERM -- "-$pid" 2> /dev/null
wait "$pid"
st=$?
note "SIGTERM: exit status $st"
# A worker in the middle of an fsync dies when it returns: wait for that.
for _ in $(seq 1 50); do
	[ -z "$(pgrep -s "$pid" 2> /dev/null)" ] && break
	sleep 0.1
done
left=$(pgrep -s "$pid" 2> /dev/null)
check "SIGTERM: no worker left${left:+: $(ps -o pid,stat,wchan:20,cmd -p "$(echo $left | tr ' ' ,)" | tail -n +2)}" test -z "$left"
check "SIGTERM: no temporary file left" test -z "$(find "$sig" -name '.elfpmd*')"
whole=0 orig=0
for i in $(seq 1 40); do
	if cmp -s "$sig/p$i" "$src/prog"; then
		orig=$((orig + 1))
	elif "$PHDR_DUMP" --expect-relaxed 0x200000 "$sig/p$i" > /dev/null 2>&1 \
		&& LD_LIBRARY_PATH=$src "$sig/p$i" > /dev/null 2>&1; then
		whole=$((whole + 1))
	fi
done
check "SIGTERM: each file original ($orig) or aligned and running ($whole)" test $((orig + whole)) -eq 40

# --machine: only the host's files; the MIPS copy is "other machine" (not
# looked at further), every other ELF file is the host's; the counts are
# those of the plain dry run but for that one file.
rm -rf "$work/mach" && cp -a "$work/orig" "$work/mach"
"$ELFPMD" -n -r "$work/mach" > "$work/mach-all" 2>&1
"$ELFPMD" -n -r --machine=host "$work/mach" > "$work/mach-host" 2>&1
st=$?
all=$(tail -1 "$work/mach-all") host=$(tail -1 "$work/mach-host")
holds "--machine=host: exit 0, the MIPS file skipped as other machine, the rest as without it ($host)" \
	'[ $st -eq 0 ] && [ "${host/, 1 other machine/}" = "${all/, 1 machine without PMD size/}" ] && [ "$host" != "$all" ] && [ "${host/machine without/}" = "$host" ]'
"$ELFPMD" -n -r --machine=mips "$work/mach" > "$work/mach-mips" 2>&1
check "--machine=mips: every host file skipped, the MIPS one left to the PMD rule" \
	grep -q ' 0 would change, .*(.*1 machine without PMD size.*other machine' "$work/mach-mips"
"$ELFPMD" -n -r --machine=host --machine=i386 --json "$work/mach" | tail -1 > "$work/mach-json"
check "--machine twice, --json: other_machine in skipped_by_reason" grep -q '"other_machine":1' "$work/mach-json"

# Exit status 2: a FILE named alone for a machine without a PMD size, when
# nothing failed; 1 when something did.
"$ELFPMD" -n "$work/mach/usr/lib/firmware-mips" "$work/mach/usr/bin/prog" > /dev/null 2> "$work/mach-err"
st=$?
holds "a named file of a machine without PMD size: exit 2, one line on stderr" \
	'[ $st -eq 2 ] && [ "$(wc -l < "$work/mach-err")" -eq 1 ] && grep -q "firmware-mips: mips: no PMD size known" "$work/mach-err"'
"$ELFPMD" -n "$work/mach/usr/lib/firmware-mips" "$work/mach/no-such-file" > /dev/null 2>&1
check "with a failure besides it: exit 1" test $? -eq 1
"$ELFPMD" -n "$work/mach/no-such-file" "$work/mach/usr/lib/firmware-mips" > /dev/null 2>&1
check "with a failure before it: exit 1" test $? -eq 1
"$ELFPMD" -n --pmd-size=2M "$work/mach/usr/lib/firmware-mips" > /dev/null 2>&1
check "with --pmd-size: exit 0" test $? -eq 0

# Usage errors.
for args in "--null $tree" "--exclude=x $tree/usr/bin/prog" "-j0 -r $tree" "-j x -r $tree" \
	"-r -o $work/x $tree" "--no-default-excludes $tree/usr/bin/prog" "-r" "-j1 -j2 -r $tree" \
	"--machine=host $tree/usr/bin/prog" "--machine=vax -r $tree" "--json --json=x -r $tree" \
	"--json= -r $tree" "--times $tree/usr/bin/prog"; do
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" $args > /dev/null 2>&1
	check "usage error: $args" test $? -eq 64
done

[ -n "$KEEP" ] || rm -rf "$work"
finish
