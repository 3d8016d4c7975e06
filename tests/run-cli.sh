#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# The command-line contract: options, usage errors (64), per-file failures
# (1, file untouched, one line naming it), several files in one run, --help,
# symbolic links, dry runs.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

work=$TESTS_BUILDDIR/cli-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
trap 'rm -rf "$work"' EXIT

have cc || { skip "no C compiler to build a sample"; finish; }

# A PIE with 4 MiB of text that the relaxed rule aligns, and a small one it does not.
printf '.text\n.globl big\nbig: .fill 0x400000,1,0xc3\n' > "$work/big.S"
printf '#include <stdio.h>\nextern char big[];\nint main(void){((void(*)(void))(big+0x300000))();puts("ok");return 0;}\n' > "$work/m.c"
printf 'int main(void){return 0;}\n' > "$work/small.c"
cc -O1 -fPIE -pie -Wa,--noexecstack -o "$work/sample" "$work/m.c" "$work/big.S" \
	&& cc -O1 -o "$work/small" "$work/small.c" \
	|| { skip "cannot build sample programs"; finish; }

# expect_status WANT DESCRIPTION COMMAND...
expect_status () {
	local want=$1 what=$2
	shift 2
	"$@" > "$work/out" 2> "$work/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then pass "$what (exit $got)"; else fail "$what: exit $got, expected $want"; sed 's/^/      /' "$work/err"; fi
}

# Usage errors: exit 64, nothing touched.
cp "$work/sample" "$work/u"
sig=$(file_signature "$work/u")
expect_status 64 "no FILE" "$ELFPMD"
expect_status 64 "unknown option" "$ELFPMD" --frobnicate "$work/u"
expect_status 64 "-o with two inputs" "$ELFPMD" -o "$work/x" "$work/u" "$work/small"
expect_status 64 "-o given twice" "$ELFPMD" -o "$work/x" -o "$work/y" "$work/u"
expect_status 64 "-o with --dry-run" "$ELFPMD" -n -o "$work/x" "$work/u"
expect_status 64 "bad --rule" "$ELFPMD" --rule=strict "$work/u"
expect_status 64 "--rule twice" "$ELFPMD" --rule=kernel --rule=relaxed "$work/u"
expect_status 64 "size not a power of two" "$ELFPMD" --pmd-size=3M "$work/u"
expect_status 64 "size with junk" "$ELFPMD" --pmd-size=2Mx "$work/u"
expect_status 64 "negative size" "$ELFPMD" --page-size=-4K "$work/u"
expect_status 64 "PMD below page" "$ELFPMD" --pmd-size=4K --page-size=64K "$work/u"
# Both sizes are checked whether the other is given or not, in either order:
# a page size from 4K to 256K, a PMD size of at least 4K and the page size.
for args in "--page-size=1K" "--page-size=2K --pmd-size=2M" "--pmd-size=2M --page-size=2K" \
	    "--page-size=512K" "--pmd-size=2M --page-size=512K" "--page-size=512K --pmd-size=2M" \
	    "--pmd-size=2K" "--pmd-size=1K --page-size=4K" "--page-size=4K --pmd-size=2K" \
	    "--pmd-size=2M --page-size=3K" "--page-size=48K --pmd-size=2M" "--pmd-size=3M --page-size=4K" \
	    "--page-size=64K --pmd-size=32K" "--pmd-size=2M --page-size=0"; do
	# shellcheck disable=SC2086
	expect_status 64 "bad sizes: $args" "$ELFPMD" -n $args "$work/u"
	grep -q '^elfpmd: --p[a-z]*-size' "$work/err" && pass "the reason names the option ($args)" \
		|| fail "stderr for $args: $(cat "$work/err")"
done
expect_status 64 "--populate-max without --madvise" "$ELFPMD" --populate-max=8 "$work/u"
expect_status 64 "--populate-max twice" "$ELFPMD" --madvise --populate-max=8 --populate-max=9 "$work/u"
expect_status 64 "--populate-max not a number" "$ELFPMD" --madvise --populate-max=8x "$work/u"
expect_status 64 "--populate-max negative" "$ELFPMD" --madvise --populate-max=-1 "$work/u"
expect_status 64 "--populate-max too large" "$ELFPMD" --madvise --populate-max=4097 "$work/u"
expect_status 64 "-q with -v" "$ELFPMD" -q -v "$work/u"
expect_status 64 "-q with --json" "$ELFPMD" -q --json "$work/u"
check "usage errors leave the file alone" test "$sig" = "$(file_signature "$work/u")"
[ ! -e "$work/x" ] && [ ! -e "$work/y" ] && pass "usage errors create no output" || fail "usage error created an output"

# --help and friends.
expect_status 0 "--help" "$ELFPMD" --help
for word in --output --dry-run --check --json --rule --pmd-size --page-size --no-sync --no-pad --madvise --populate-max --verbose --quiet \
		--recursive --files-from --null --exclude --jobs --preserve-dates "Exit status" " 64 "; do
	grep -q -- "$word" "$work/out" && pass "--help mentions '$word'" || fail "--help lacks '$word'"
done
# --help's exit statuses are the man page's, and its status 0 lists every
# outcome the man page's does (the README's too): "changed, already aligned,
# nothing eligible, or skipped".
man=$TESTS_SRCDIR/../man/elfpmd.1
readme=$TESTS_SRCDIR/../README.md
sed -n '/^Exit status:$/,$p' "$work/out" > "$work/help-exit"
man_exit=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/p' "$man")
man_codes=$(printf '%s\n' "$man_exit" | awk 'prev == ".TP" && /^\.B [0-9]+$/ { print $2 } { prev = $0 }' | tr '\n' ' ')
help_codes=$(awk '/^  [0-9]+ / { print $1 }' "$work/help-exit" | tr '\n' ' ')
[ -n "$man_codes" ] && [ "$man_codes" = "$help_codes" ] && pass "--help lists the man page's exit statuses ($man_codes)" \
	|| fail "exit statuses: man page '$man_codes', --help '$help_codes'"
# The man page's sentence for 0, "Every file was processed: A, B, C, or D.",
# split into its outcomes.
outcomes=$(printf '%s\n' "$man_exit" | awk '/^\.B 0$/ { f = 1; next } /^\./ { f = 0 } f' | tr '\n' ' ' \
	| sed 's/^[^:]*: *//; s/\. *$//; s/,* or /, /' | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep .)
help0=$(awk '/^  0 / { f = 1 } /^  [1-9][0-9]* / { f = 0 } f' "$work/help-exit" | tr -s ' \n' '  ')
readme0=$(sed -n '/^## Exit status/,/^## /p' "$readme" | awk '/^- 0:/ { f = 1 } /^- [1-9]/ { f = 0 } f' | tr -s ' \n' '  ')
[ "$(printf '%s\n' "$outcomes" | grep -c .)" -ge 4 ] && pass "man page exit status 0 names its outcomes" \
	|| fail "cannot read the outcomes of exit status 0 from the man page: $outcomes"
while IFS= read -r outcome; do
	case $help0 in *"$outcome"*) pass "--help's exit status 0 says '$outcome'" ;; *) fail "--help's exit status 0 lacks '$outcome': $help0" ;; esac
	case $readme0 in *"$outcome"*) pass "README's exit status 0 says '$outcome'" ;; *) fail "README's exit status 0 lacks '$outcome': $readme0" ;; esac
done <<< "$outcomes"
expect_status 0 "--usage" "$ELFPMD" --usage
expect_status 0 "--version" "$ELFPMD" --version
grep -q '^elfpmd [0-9]' "$work/out" && pass "--version names the program" || fail "--version output: $(cat "$work/out")"

# Every long option --help lists is documented in the man page's OPTIONS, and
# every JSON key elfpmd prints in its REPORT, each as that exact token in
# bold (.B, the bold arguments of .BR/.BI/.RB/.IB, or \fB...\fR), not merely
# as a word somewhere in the text.
# man_bold SECTION: the bold tokens of man page section SECTION, one a line,
# with \- read as -, and an option's "=ARG" dropped.
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
	}' "$man"
}
man=$TESTS_SRCDIR/../man/elfpmd.1
man_bold OPTIONS | sort -u > "$work/man-options"
man_bold REPORT | sort -u > "$work/man-report"
grep -qx -- --pmd-size "$work/man-options" && grep -qx segments "$work/man-report" \
	&& pass "bold tokens read from the man page ($(wc -l < "$work/man-options") in OPTIONS, $(wc -l < "$work/man-report") in REPORT)" \
	|| fail "cannot read bold tokens from the man page"
# The option column of --help: lines that start with blanks and a dash, up to
# the two blanks before the description.
"$ELFPMD" --help | sed -n '/^  *-/{ s/^ *//; s/  .*//; p; }' | grep -oE -- '--[a-z][a-z-]*' | sort -u > "$work/help-options"
[ "$(wc -l < "$work/help-options")" -ge 15 ] && pass "$(wc -l < "$work/help-options") long options in --help" \
	|| fail "long options in --help: $(tr '\n' ' ' < "$work/help-options")"
while IFS= read -r opt; do
	grep -qxF -- "$opt" "$work/man-options" && pass "man page documents $opt" || fail "man page OPTIONS lacks $opt in bold"
done < "$work/help-options"
# JSON from files that reach every branch of the report: would change (with
# the stub), nothing eligible (stub refused), already aligned (stub present),
# a relocatable object (skipped), not ELF (error), and a real write (-o: disk
# space).
cp "$work/sample" "$work/k-stub" && "$ELFPMD" -q --madvise "$work/k-stub" || fail "cannot prepare a file with the stub"
printf 'int f(void){return 1;}\n' > "$work/k.c" && cc -c -o "$work/k.o" "$work/k.c" || fail "cannot compile an object"
printf 'not elf\n' > "$work/k-notelf"
mkdir -p "$work/k-tree" && cp "$work/sample" "$work/k-tree/a" && ln "$work/k-tree/a" "$work/k-tree/b" \
	&& cp "$work/k.o" "$work/k-notelf" "$work/k-tree/" && ln -s a "$work/k-tree/c" \
	|| fail "cannot prepare a tree"
{
	"$ELFPMD" -n --json "$work/sample" "$work/small" "$work/k.o" "$work/k-notelf"
	"$ELFPMD" -n --json --madvise "$work/sample" "$work/small" "$work/k-stub"
	"$ELFPMD" --json -o "$work/k-out" "$work/sample"
	"$ELFPMD" -r -n --json "$work/k-tree"
} > "$work/keys.json" 2> /dev/null
grep -oE '"[A-Za-z0-9_]+":' "$work/keys.json" | tr -d '":' | sort -u > "$work/json-keys"
[ "$(wc -l < "$work/json-keys")" -ge 60 ] && pass "$(wc -l < "$work/json-keys") distinct JSON keys printed" \
	|| fail "too few JSON keys: $(tr '\n' ' ' < "$work/json-keys")"
for want in skip_reason error stub present allocated_after sampled_chunks summary same_file_as \
		skipped_by_reason not_elf symlink; do
	grep -qx "$want" "$work/json-keys" || fail "the JSON inputs no longer reach '$want'"
done
while IFS= read -r key; do
	grep -qxF -- "$key" "$work/man-report" && pass "man page documents JSON key $key" || fail "man page REPORT lacks JSON key $key in bold"
done < "$work/json-keys"

# Dry run: report, no write.
cp "$work/sample" "$work/d"
sig=$(file_signature "$work/d")
expect_status 0 "dry run" "$ELFPMD" -n "$work/d"
grep -q 'result: would change' "$work/out" && pass "dry run says it would change" || fail "dry run report: $(cat "$work/out")"
check "dry run leaves the file alone" test "$sig" = "$(file_signature "$work/d")"
expect_status 0 "--check alias" "$ELFPMD" --check "$work/d"
check "--check leaves the file alone" test "$sig" = "$(file_signature "$work/d")"

# Several files, one of them failing: the others are still processed.
cp "$work/sample" "$work/a"; cp "$work/sample" "$work/b"; printf 'not elf\n' > "$work/c"
sigc=$(file_signature "$work/c")
expect_status 1 "one bad file among three" "$ELFPMD" "$work/a" "$work/c" "$work/b"
[ "$(wc -l < "$work/err")" -eq 1 ] && grep -q "^elfpmd: $work/c: not an ELF file$" "$work/err" \
	&& pass "exactly one error line naming the file" || fail "stderr: $(cat "$work/err")"
check "bad file untouched" test "$sigc" = "$(file_signature "$work/c")"
! cmp -s "$work/a" "$work/sample" && ! cmp -s "$work/b" "$work/sample" && pass "good files rewritten" || fail "good files not rewritten"
grep -c ': changed' "$work/out" | grep -qx 2 && pass "summary line per rewritten file" || fail "summary: $(cat "$work/out")"
expect_status 1 "missing file" "$ELFPMD" "$work/nonexistent"
grep -q "^elfpmd: $work/nonexistent: cannot open: No such file or directory$" "$work/err" && pass "missing file named" || fail "stderr: $(cat "$work/err")"
expect_status 1 "directory" "$ELFPMD" "$work"
# The sample with e_machine set to EM_MIPS (8), for which elfpmd knows no PMD size.
cp "$work/sample" "$work/mips"
printf '\010\000' | dd of="$work/mips" bs=1 seek=18 conv=notrunc status=none
sig=$(file_signature "$work/mips")
expect_status 2 "unknown machine without --pmd-size" "$ELFPMD" "$work/mips"
grep -q "^elfpmd: $work/mips: mips: .*--pmd-size" "$work/err" && pass "reason names the machine and the option" || fail "stderr: $(cat "$work/err")"
check "unknown-machine file untouched" test "$sig" = "$(file_signature "$work/mips")"
expect_status 0 "unknown machine with --pmd-size" "$ELFPMD" -q --pmd-size=2M "$work/mips"
# The bounds themselves are accepted (a machine elfpmd does not know takes
# any page size from them).
for page in 4K 256K; do
	expect_status 0 "unknown machine with --pmd-size=2M --page-size=$page" "$ELFPMD" -n --json --pmd-size=2M --page-size=$page "$work/mips"
	grep -q "\"page_size\":$(( ${page%K} * 1024 ))," "$work/out" && pass "page size $page in the report" || fail "$(cat "$work/out")"
done
expect_status 0 "--pmd-size=4K --page-size=4K" "$ELFPMD" -n --pmd-size=4K --page-size=4K "$work/sample"

# JSON: one line per file, errors included.
cp "$work/sample" "$work/j"
expect_status 1 "--json over good and bad" "$ELFPMD" -n --json "$work/j" "$work/c" "$work/small"
[ "$(wc -l < "$work/out")" -eq 3 ] && pass "three JSON lines" || fail "JSON lines: $(wc -l < "$work/out")"
if have python3; then
	python3 - "$work/out" <<'PY' && pass "JSON parses, statuses right" || fail "JSON content"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["status"] == "would change" and rows[0]["changed"] is True, rows[0]
assert rows[1]["status"] == "error" and rows[1]["error"] == "not an ELF file", rows[1]
assert rows[2]["status"] == "nothing eligible" and rows[2]["changed"] is False, rows[2]
seg = [s for s in rows[0]["segments"] if s["new_align"] != s["align"]]
assert len(seg) == 1 and seg[0]["new_align"] == 2097152 and seg[0]["flags"] == "R-X", seg
PY
else
	skip "python3 missing: JSON not parsed"
fi

# A symbolic link: the target is rewritten, the link stays a link.
cp "$work/sample" "$work/target"
ln -s target "$work/link"
expect_status 0 "rewrite through a symlink" "$ELFPMD" -q "$work/link"
[ -L "$work/link" ] && ! cmp -s "$work/target" "$work/sample" && pass "link kept, target rewritten" || fail "symlink handling"

# Nothing to do: the file is not rewritten at all (same inode, same mtime).
cp "$work/small" "$work/s"
sig=$(file_signature "$work/s")
expect_status 0 "nothing eligible" "$ELFPMD" "$work/s"
check "unchanged file not rewritten" test "$sig" = "$(file_signature "$work/s")"

# -o with nothing to change still writes the output, identical to the input.
expect_status 0 "-o with nothing to change" "$ELFPMD" -q -o "$work/s.out" "$work/s"
check "-o copy is identical" cmp -s "$work/s" "$work/s.out"

# A read-only directory: the rewrite fails cleanly, no temporary file left.
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$work/ro"; cp "$work/sample" "$work/ro/p"; chmod 555 "$work/ro"
	expect_status 1 "read-only directory" "$ELFPMD" "$work/ro/p"
	chmod 755 "$work/ro"
else
	# root writes anywhere; an immutable directory needs chattr, which may be missing.
	mkdir "$work/ro"; cp "$work/sample" "$work/ro/p"
	if have chattr && chattr +i "$work/ro" 2>/dev/null; then
		expect_status 1 "immutable directory" "$ELFPMD" "$work/ro/p"
		chattr -i "$work/ro"
		cmp -s "$work/ro/p" "$work/sample" && pass "file in immutable directory untouched" || fail "file changed"
	else
		skip "cannot make a directory immutable here"
	fi
fi
[ -z "$(find "$work" -name '.elfpmd.*')" ] && pass "no temporary files left" || fail "temporary files left: $(find "$work" -name '.elfpmd.*')"

# --no-sync gives the same bytes.
cp "$work/sample" "$work/ns1"; cp "$work/sample" "$work/ns2"
"$ELFPMD" -q "$work/ns1" && "$ELFPMD" -q --no-sync "$work/ns2"
check "--no-sync output identical" cmp -s "$work/ns1" "$work/ns2"
# Without sync the new file takes the name by exchange (renameat2
# RENAME_EXCHANGE) and the old one is removed: a hard link keeps the old
# contents, nothing is left under a temporary name, the mode is kept.
mkdir "$work/nsd"
cp "$work/sample" "$work/nsd/p"; chmod 750 "$work/nsd/p"; ln "$work/nsd/p" "$work/nsd/q"
"$ELFPMD" -q --no-sync "$work/nsd/p" 2>"$work/err"
check "--no-sync: the named file rewritten" cmp -s "$work/nsd/p" "$work/ns1"
check "--no-sync: its other hard link keeps the old contents" cmp -s "$work/nsd/q" "$work/sample"
check "--no-sync: the mode kept" test "$(stat -c %a "$work/nsd/p")" = 750
check "--no-sync: nothing else in the directory ($(ls -A "$work/nsd" | tr '\n' ' '))" \
	test "$(ls -A "$work/nsd" | tr '\n' ' ')" = "p q "
if have strace; then
	# LeakSanitizer cannot run under ptrace (the sanitizer build runs
	# this file too): no leak check in the traced runs.
	traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	cp "$work/sample" "$work/nsd/p"
	ASAN_OPTIONS=$traced_asan strace -f -e trace=rename,renameat,renameat2,unlink,unlinkat -o "$work/nsd-trace" \
		"$ELFPMD" -q --no-sync "$work/nsd/p" || fail "--no-sync under strace"
	# Can this file system exchange names?  Asked without elfpmd's code.
	: >"$work/nsd/x1"; : >"$work/nsd/x2"
	can=$(python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
print("yes" if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) == 0 else "no")' \
		"$work/nsd/x1" "$work/nsd/x2" 2>/dev/null)
	rm -f "$work/nsd/x1" "$work/nsd/x2"
	if [ "$can" = yes ]; then
		check "--no-sync: the names exchanged, then the old file removed under the temporary name" \
			sh -c "grep -q 'RENAME_EXCHANGE) = 0' '$work/nsd-trace' && grep -q 'unlinkat(.*\"\.elfpmd\.[^\"]*\", 0) = 0' '$work/nsd-trace'"
	else
		skip "--no-sync: this file system cannot exchange names (${can:-no python3})"
	fi
	cp "$work/sample" "$work/nsd/p"
	ASAN_OPTIONS=$traced_asan strace -f -e trace=renameat,renameat2 -o "$work/nsd-trace" "$ELFPMD" -q "$work/nsd/p" || fail "elfpmd under strace"
	check "with sync: renamed over, not exchanged" sh -c "! grep -q RENAME_EXCHANGE '$work/nsd-trace'"
else
	skip "no strace: how --no-sync replaces the name"
fi

# A large file rewritten in place is copied into the memory its old contents
# free: the copy drops the input's clean pages behind it (fadvise
# DONTNEED), unless something still needs them: a dirty input (dropping
# would write out a file about to be removed), another name of the inode
# that stays, --manifest (which hashes the input after the copy), an output
# beside the input.  Asked of the kernel with cachestat itself (Linux 6.5).
cachestat_dirty () { # FILE: dirty+writeback pages of FILE, or "none" without cachestat
	python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class R(ctypes.Structure): _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]
class S(ctypes.Structure): _fields_ = [(n, ctypes.c_uint64) for n in ("c", "d", "w", "e", "r")]
fd = os.open(sys.argv[1], os.O_RDONLY); r = R(0, 0); s = S()
print(s.d + s.w if libc.syscall(451, fd, ctypes.byref(r), ctypes.byref(s), 0) == 0 else "none")' "$1" 2>/dev/null || echo none
}
if have strace && have python3 && [ "$(uname -m)" = x86_64 ]; then
	mkdir -p "$work/drop"
	printf '.text\n.globl big\nbig: .fill 0x4800000,1,0xc3\n' > "$work/drop/big.S"
	if cc -O1 -fPIE -pie -Wa,--noexecstack -o "$work/drop/in" "$work/m.c" "$work/drop/big.S"; then
		"$ELFPMD" -q -o "$work/drop/want" "$work/drop/in" || fail "large file: elfpmd -o"
		dropped () { # ARGS...: whether elfpmd ARGS dropped pages of a file (strace)
			ASAN_OPTIONS=$traced_asan strace -f -e trace=fadvise64 -o "$work/drop/trace" \
				"$ELFPMD" -q "$@" || fail "large file: elfpmd $* under strace"
			grep -q 'POSIX_FADV_DONTNEED) = 0' "$work/drop/trace"
		}
		cp "$work/drop/in" "$work/drop/f"
		sync "$work/drop/f"
		case $(cachestat_dirty "$work/drop/f") in
		none) skip "large file: no cachestat here, so elfpmd drops nothing" ;;
		0)
			check "large file, clean, in place: the input's pages dropped behind the copy" \
				dropped --no-sync "$work/drop/f"
			check "large file, dropped behind: the same file as elfpmd -o writes" \
				cmp -s "$work/drop/f" "$work/drop/want"
			check "large file, dropped behind: it runs" sh -c "'$work/drop/f' | grep -qx ok"
			;;
		*) skip "large file: still dirty after sync" ;;
		esac
		# A new file (cp over one, ext4 writes it out at close: auto_da_alloc).
		rm -f "$work/drop/f"
		cp "$work/drop/in" "$work/drop/f"
		d=$(cachestat_dirty "$work/drop/f")
		if [ "$d" != none ] && [ "$d" -gt 0 ]; then
			holds "large file, dirty: nothing dropped (it would be written out first)" \
				'! dropped --no-sync "$work/drop/f"'
			check "large file, dirty: the same file as elfpmd -o writes" \
				cmp -s "$work/drop/f" "$work/drop/want"
		else
			skip "large file: not dirty right after cp ($d)"
		fi
		for how in link manifest output; do
			cp "$work/drop/in" "$work/drop/f"
			sync "$work/drop/f"
			rm -f "$work/drop/l" "$work/drop/m" "$work/drop/o"
			case $how in
			link) ln "$work/drop/f" "$work/drop/l"; args=("$work/drop/f") ;;
			manifest) args=(--manifest="$work/drop/m" "$work/drop/f") ;;
			output) args=(-o "$work/drop/o" "$work/drop/f") ;;
			esac
			holds "large file ($how): nothing dropped" '! dropped "${args[@]}"'
			[ "$how" != link ] || check "large file (link): the other name keeps the old contents" \
				cmp -s "$work/drop/l" "$work/drop/in"
		done
	else
		skip "large file: cannot build a 72 MiB program"
	fi
	rm -rf "$work/drop"
else
	skip "large file drop-behind: needs strace, python3 and x86-64"
fi

# --pmd-size and --page-size reach the report.
expect_status 0 "--pmd-size 1M" "$ELFPMD" -n --json --pmd-size=1M "$work/sample"
grep -q '"pmd_size":1048576,"pmd_source":"--pmd-size"' "$work/out" && pass "pmd size from option" || fail "$(cat "$work/out")"
expect_status 1 "--page-size 64K on x86-64" "$ELFPMD" -n --page-size=64K "$work/sample"
expect_status 1 "--page-size 64K on x86-64 with --pmd-size" "$ELFPMD" -n --pmd-size=2M --page-size=64K "$work/sample"
grep -q '4K pages only' "$work/err" && pass "page size refused with reason" || fail "$(cat "$work/err")"

# Files elfpmd skips: exit 0, status "skipped" with the reason, the file left
# alone in place, an -o copy identical to it.
# expect_skip FILE REASON: FILE is skipped, its skip_reason starts with REASON.
expect_skip () {
	local f=$1 want=$2 what sig
	what=$(basename "$f")
	sig=$(file_signature "$f")
	expect_status 0 "$what: dry run" "$ELFPMD" -n --json "$f"
	grep -q '"status":"skipped"' "$work/out" && grep -qF "\"skip_reason\":\"$want" "$work/out" \
		&& pass "$what: skipped ($want)" || fail "$what: not skipped for '$want': $(cat "$work/out")"
	expect_status 0 "$what: in place" "$ELFPMD" -q "$f"
	check "$what: left alone" test "$sig" = "$(file_signature "$f")"
	rm -f "$work/skip.out"
	expect_status 0 "$what: -o" "$ELFPMD" -q -o "$work/skip.out" "$f"
	check "$what: -o copy identical" cmp -s "$f" "$work/skip.out"
}
MUTATE=${MUTATE:-$TESTS_BUILDDIR/mutate}
if [ -x "$MUTATE" ]; then
	# No program headers at all (e_phnum 0): nothing is loaded from the file.
	"$MUTATE" set 0 "$work/sample" "$work/nophdrs" e_phnum=0 > /dev/null \
		&& expect_skip "$work/nophdrs" "no program headers" || fail "mutate set e_phnum=0"
else
	skip "no tests/mutate ($MUTATE): files built by patching headers not tested"
fi

# Separate debug files (objcopy --only-keep-debug, what /usr/lib/debug holds)
# are skipped, whatever p_filesz their PT_LOADs kept; the files they were
# split from never are.
printf 'int lib(void){return 7;}\n' > "$work/lib.c"
if have objcopy && cc -O1 -shared -fPIC -o "$work/lib.so" "$work/lib.c"; then
	for f in sample small lib.so; do
		"$ELFPMD" -n --json "$work/$f" > "$work/out"
		grep -q '"status":"skipped"' "$work/out" && fail "$f skipped: $(cat "$work/out")" || pass "$f not skipped"
		if objcopy --only-keep-debug "$work/$f" "$work/$f.debug"; then
			expect_skip "$work/$f.debug" "separate debug file"
		else
			fail "objcopy --only-keep-debug $f"
		fi
	done
else
	skip "no objcopy or no shared library: separate debug files not tested"
fi

# A separate debug file's program headers are not checked against the end of
# the file, so hostile ones must lead to a skip or a clean error, never to a
# read or a check of what they point to: old objcopy's text PT_LOAD with its
# p_filesz past the end, offsets near 2^64, a PT_DYNAMIC, PT_INTERP, PT_NOTE
# or PT_GNU_EH_FRAME far outside the file; and PT_LOADs that break the rules
# every file must keep (unsorted, p_filesz above p_memsz) fail cleanly.
if have objcopy && [ -x "$MUTATE" ] && [ -f "$work/sample.debug" ]; then
	n=0
	for spec in 'phdr[PT_LOAD:1].p_offset=0x1000,phdr[PT_LOAD:1].p_filesz=0x400000' \
		    'phdr[PT_LOAD:1].p_offset=0xfffffffffffff000,phdr[PT_LOAD:1].p_filesz=0x100' \
		    'phdr[PT_LOAD].p_offset=0x7ffffffffffff000' \
		    'phdr[PT_LOAD:3].p_offset=0xffffffffffffffff' \
		    'phdr[PT_DYNAMIC].p_offset=0xffffffffffffff00,phdr[PT_DYNAMIC].p_filesz=0x1000' \
		    'phdr[PT_INTERP].p_offset=0xfffffffffffffff0,phdr[PT_INTERP].p_filesz=0xffffffff' \
		    'phdr[PT_NOTE].p_offset=0x100000,phdr[PT_NOTE].p_filesz=0x100000' \
		    'phdr[PT_GNU_EH_FRAME].p_offset=0xfffffffffffffff0,phdr[PT_GNU_EH_FRAME].p_filesz=0x20' \
		    'phdr[PT_LOAD:1].p_vaddr=0' \
		    'phdr[PT_LOAD].p_filesz=0xffffffffffffffff' \
		    'e_phoff=0xfffffffffffffff0'; do
		n=$((n + 1))
		f=$work/hostile-debug-$n
		"$MUTATE" set 0 "$work/sample.debug" "$f" "$spec" > /dev/null || { fail "mutate set $spec"; continue; }
		sig=$(file_signature "$f")
		"$ELFPMD" -n --json "$f" > "$work/out" 2> "$work/err"
		rc=$?
		if [ "$rc" -eq 0 ] && grep -q '"status":"skipped"' "$work/out"; then
			pass "debug file with $spec: skipped"
		elif [ "$rc" -eq 1 ] && [ "$(wc -l < "$work/err")" -eq 1 ] && grep -q "^elfpmd: $f: " "$work/err" \
			&& ! grep -q 'internal error' "$work/err"; then
			pass "debug file with $spec: refused ($(sed "s|^elfpmd: $f: ||" "$work/err"))"
		else
			fail "debug file with $spec: exit $rc, stdout $(cat "$work/out"), stderr $(cat "$work/err")"
		fi
		"$ELFPMD" -q "$f" 2> /dev/null
		rm -f "$work/skip.out"
		"$ELFPMD" -q -o "$work/skip.out" "$f" 2> /dev/null
		got=$?
		{ [ "$got" -eq 0 ] && cmp -s "$f" "$work/skip.out"; } || { [ "$got" -eq 1 ] && [ ! -e "$work/skip.out" ]; } \
			|| fail "debug file with $spec: -o exit $got"
		check "debug file with $spec: left alone" test "$sig" = "$(file_signature "$f")"
	done
fi

# A section header table laid over the ELF header or the program header table
# (malformed-input case bigpie-noshdr flip 2: e_shoff 8 with the count taken
# from the first entry, whose sh_size is e_shoff itself) is refused: the
# rewritten program headers would change "section headers" behind the
# writer's back, and the file untouched.
if [ -x "$MUTATE" ]; then
	for spec in e_shoff=8,e_shnum=0 e_shoff=64 e_shoff=0x48,e_shnum=1; do
		f=$work/tables-$spec
		"$MUTATE" set 0 "$work/sample" "$f" "$spec" > /dev/null || { fail "mutate set $spec"; continue; }
		sig=$(file_signature "$f")
		"$ELFPMD" -q "$f" 2> "$work/err"
		rc=$?
		if [ "$rc" -eq 1 ] && [ "$(wc -l < "$work/err")" -eq 1 ] \
			&& grep -q "^elfpmd: $f: section header table \[.*) overlaps the \(ELF header\|program header table\)" "$work/err"; then
			pass "$spec: refused ($(sed "s|^elfpmd: $f: ||" "$work/err"))"
		else
			fail "$spec: exit $rc, stderr $(cat "$work/err")"
		fi
		check "$spec: left alone" test "$sig" = "$(file_signature "$f")"
	done
fi

# A 32-bit segment may end exactly at 2^32 (qemu's openbios-ppc does): not a
# wrap; one byte more is.
printf 'void _start(void);\nvoid _start(void) { for (;;) { } }\n' > "$work/free.c"
if [ -x "$MUTATE" ] && cc -m32 -O1 -nostdlib -static -ffreestanding -fno-pic -o "$work/m32" "$work/free.c" 2>/dev/null; then
	last=$(( $("${PHDR_DUMP:-$TESTS_BUILDDIR/phdr-dump}" "$work/m32" | grep -c ' LOAD ') - 1 ))
	for memsz in 0x1000 0x1001; do
		"$MUTATE" set 0 "$work/m32" "$work/m32-$memsz" \
			"phdr[PT_LOAD:$last].p_vaddr=0xfffff000,phdr[PT_LOAD:$last].p_paddr=0xfffff000,phdr[PT_LOAD:$last].p_memsz=$memsz" \
			> /dev/null || { fail "mutate set p_memsz=$memsz"; continue; }
		"$ELFPMD" -n "$work/m32-$memsz" > "$work/out" 2> "$work/err"
		rc=$?
		if [ $memsz = 0x1000 ]; then
			[ "$rc" -eq 0 ] && pass "ELF32 PT_LOAD ending at 2^32: accepted" \
				|| fail "ELF32 PT_LOAD ending at 2^32: exit $rc, $(cat "$work/err")"
		else
			[ "$rc" -eq 1 ] && grep -q "wraps around the address space" "$work/err" \
				&& pass "ELF32 PT_LOAD ending one byte past 2^32: refused ($(sed 's/^[^:]*: [^:]*: //' "$work/err"))" \
				|| fail "ELF32 PT_LOAD ending one byte past 2^32: exit $rc, $(cat "$work/err")"
		fi
	done
else
	skip "no tests/mutate or no cc -m32: the ELF32 end of the address space is not tested"
fi

finish
