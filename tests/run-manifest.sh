#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest.sh: a conversion kept (--manifest, --keep-originals) and its
# round trip: convert, an upgrade replaces a file (a new build, renamed over
# it as dpkg does), elfpmd reapply converts it again with the same options,
# elfpmd revert puts every original back, byte for byte.  The manifest's
# lines are checked by Python's json and hashlib against copies this test
# made itself (not elfpmd's code): every path, SHA-256 before and after,
# size, option, kept original.  Also: a file replaced by a script is left
# alone; a kept original that was altered is refused; an original not kept
# is an error naming the package tools; a malformed manifest is refused
# with its line; the usage errors.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 assembly"
have cc || skip_all "needs cc"
have python3 || skip_all "needs python3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
W=$work

# prog VALUE: a PIE with 4 MiB of text beside main, exiting with VALUE.
cat >"$W/big.S" <<'EOF'
	.section .text.big, "ax", @progbits
	.p2align 12
	.globl big_text
big_text:
	.fill	4 << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
build_prog () {
	echo "int main (void) { return $1; }" >"$W/main$1.c"
	cc -O2 -fPIE -pie -o "$2" "$W/main$1.c" "$W/big.S"
}
mkdir -p "$W/tree/bin" "$W/tree/lib" "$W/orig"
build_prog 7 "$W/tree/bin/prog" || hard_error "cannot build the fixture"
ln "$W/tree/bin/prog" "$W/tree/bin/prog-link"
cc -shared -fPIC -o "$W/tree/lib/libbig.so" "$W/big.S" || hard_error "cannot build the library"
cp "$W/tree/bin/prog" "$W/orig/prog"
cp "$W/tree/lib/libbig.so" "$W/orig/libbig.so"
M=$W/state/manifest K=$W/state/originals
mkdir -p "$W/state"

"$ELFPMD" -q --madvise --manifest="$M" --keep-originals="$K" -r "$W/tree"
check "convert with --manifest and --keep-originals: exit 0" test $? -eq 0
"$W/tree/bin/prog"
check "the converted program runs as before (exit 7)" test $? -eq 7
check "--keep-originals made its directory 0700" test "$(stat -c %a "$K")" = 700

# The manifest against this test's own copies and hashes.
verify () { # VERIFY-ARGS...: python3 reading $M, one PASS/FAIL line each
	python3 - "$M" "$@" <<'PY'
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
}
report () {
	while IFS= read -r line; do
		case $line in PASS:*) pass "${line#PASS: }" ;; *) fail "${line#FAIL: }" ;; esac
	done
}
verify "$W/tree/bin/prog:$W/orig/prog:$K" "$W/tree/bin/prog-link:$W/orig/prog:$K" \
	"$W/tree/lib/libbig.so:$W/orig/libbig.so:$K" | report
check "one line per name rewritten (3)" test "$(wc -l <"$M")" -eq 3

# An upgrade: a new build of prog renamed over it, the library replaced by a
# script; reapply converts the program again, leaves the script alone.
build_prog 8 "$W/new-prog" && cp "$W/new-prog" "$W/orig/prog-v2"
mv "$W/new-prog" "$W/tree/bin/prog"
printf '#!/bin/sh\necho script\n' >"$W/script" && chmod 755 "$W/script" && mv "$W/script" "$W/tree/lib/libbig.so"
"$ELFPMD" reapply -n --manifest="$M" >"$W/reapply-n.out" 2>&1
holds "reapply -n: prog would be converted again, the script left alone, nothing written ($(tail -1 "$W/reapply-n.out"))" \
	'grep -q "bin/prog: would be converted again" "$W/reapply-n.out" && grep -q "libbig.so: left alone: no longer an ELF file" "$W/reapply-n.out" && [ "$(wc -l <"$M")" -eq 3 ]'
"$ELFPMD" reapply --manifest="$M" >"$W/reapply.out" 2>&1
check "reapply: exit 0 ($(tail -1 "$W/reapply.out"))" test $? -eq 0
"$W/tree/bin/prog"
check "the new program, converted again, runs (exit 8)" test $? -eq 8
"$ELFPMD" -n --json --madvise "$W/tree/bin/prog" >"$W/again.json" 2>&1
check "it carries the stub again" grep -q '"present":true' "$W/again.json"
verify "$W/tree/bin/prog:$W/orig/prog-v2:$K" | report
"$ELFPMD" reapply --manifest="$M" >"$W/reapply2.out" 2>&1
check "reapply again: nothing to do ($(tail -1 "$W/reapply2.out"))" grep -q ' 0 converted again' "$W/reapply2.out"

# Bounded work: a listed file whose size is not the one elfpmd wrote is
# not hashed (strace: no read of it but the 4 bytes of its magic), and one
# larger than --max-size (default 1 GiB: here a sparse 1 GiB + 4 KiB) is
# left alone before it is read; the sanity arm: with --max-size=0 reapply
# -n would convert it.
mkdir -p "$W/bt" && cp "$W/orig/prog" "$W/bt/prog" && "$ELFPMD" -q --madvise --manifest="$W/M5" "$W/bt/prog" \
	|| hard_error "cannot convert $W/bt/prog"
if have strace; then
	# (LeakSanitizer cannot run under ptrace: off for the traced runs of a
	# sanitizer build.)
	traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	cp "$W/orig/prog-v2" "$W/bt/prog"
	ASAN_OPTIONS=$traced_asan strace -qq -y -e trace=read,pread64 -o "$W/size.strace" "$ELFPMD" reapply -n --manifest="$W/M5" >"$W/size.out" 2>&1
	reads=$(grep -c "<$W/bt/prog>" "$W/size.strace")
	holds "reapply -n, a replaced file of another size: would be converted, read $reads time(s) (the magic only: 1)" \
		'grep -q "bt/prog: would be converted again" "$W/size.out" && [ "$reads" -eq 1 ] && grep -q "pread64([0-9]*<$W/bt/prog>, .*, 4, 0) = 4" "$W/size.strace"'
	truncate -s $(((1 << 30) + 4096)) "$W/bt/prog"
	ASAN_OPTIONS=$traced_asan strace -qq -y -e trace=read,pread64 -o "$W/big.strace" "$ELFPMD" reapply --manifest="$W/M5" >"$W/big.out" 2>&1
	st=$?
	reads=$(grep -c "<$W/bt/prog>" "$W/big.strace")
	holds "reapply, a listed file of 1 GiB + 4 KiB: exit 0 (got $st), left alone, larger than --max-size, read $reads time(s) ($(head -1 "$W/big.out"))" \
		'[ $st -eq 0 ] && grep -q "bt/prog: left alone: larger than --max-size (1073745920 bytes, 1073741824 at most)" "$W/big.out" && [ "$reads" -le 1 ] && [ "$(wc -l <"$W/M5")" -eq 1 ]'
	"$ELFPMD" reapply -n --max-size=0 --manifest="$W/M5" >"$W/big0.out" 2>&1
	check "sanity: with --max-size=0, reapply -n would convert it ($(head -1 "$W/big0.out"))" \
		grep -q "bt/prog: would be converted again" "$W/big0.out"
else
	skip "strace not found: reapply's reads are not counted"
fi
rm -rf "$W/bt" "$W/M5"

# A kept original that an upgrade superseded is removed once reapply has
# converted the new file (and kept its original); reapply -n removes nothing.
mkdir -p "$W/pt" && cp "$W/orig/prog" "$W/pt/prog" \
	&& "$ELFPMD" -q --madvise --manifest="$W/M6" --keep-originals="$W/K6" "$W/pt/prog" \
	|| hard_error "cannot convert $W/pt/prog"
old_hash=$(sha256sum <"$W/orig/prog" | cut -c1-64)
new_hash=$(sha256sum <"$W/orig/prog-v2" | cut -c1-64)
cp "$W/orig/prog-v2" "$W/pt/prog.new" && mv "$W/pt/prog.new" "$W/pt/prog"
"$ELFPMD" reapply -n --manifest="$W/M6" >/dev/null 2>&1
check "reapply -n: the kept original of the old version stays" test -e "$W/K6/$old_hash"
"$ELFPMD" reapply --manifest="$W/M6" >"$W/prune.out" 2>&1
holds "reapply after an upgrade: the new original kept, the superseded one removed ($(ls "$W/K6" | tr '\n' ' '))" \
	'[ -e "$W/K6/$new_hash" ] && [ ! -e "$W/K6/$old_hash" ] && grep -q "pt/prog: its superseded kept original removed" "$W/prune.out"'
rm -rf "$W/pt" "$W/M6" "$W/K6"

# Revert: every file as elfpmd wrote it gets its original back.
"$ELFPMD" revert --manifest="$M" >"$W/revert.out" 2>&1
check "revert: exit 0" test $? -eq 0
check "prog is the new build's original, byte for byte" cmp -s "$W/tree/bin/prog" "$W/orig/prog-v2"
check "prog-link (a name of the first build) gets the first original" cmp -s "$W/tree/bin/prog-link" "$W/orig/prog"
check "the script, changed since, is left alone and said so" \
	grep -q "libbig.so: left alone: changed since" "$W/revert.out"
check "mode kept (755)" test "$(stat -c %a "$W/tree/bin/prog")" = 755
check "revert lines appended (2)" test "$(grep -c '"action":"revert"' "$M")" -eq 2
"$ELFPMD" reapply --manifest="$M" >"$W/reapply3.out" 2>&1
holds "reapply after revert: the reverted files stay original" \
	'cmp -s "$W/tree/bin/prog" "$W/orig/prog-v2" && grep -q " 0 converted again" "$W/reapply3.out"'
"$ELFPMD" revert --manifest="$M" "$W/tree/bin/prog" >"$W/revert2.out" 2>&1
check "revert of a reverted file: nothing to do, exit 0" test $? -eq 0
holds "revert prints a summary ($(tail -1 "$W/revert2.out"))" \
	'tail -1 "$W/revert2.out" | grep -q "^elfpmd revert: 1 of the 3 files in $M: 0 put back, 1 original already, 0 left alone, 0 failed$"'
# reapply where nothing was ever converted with the default manifest: it
# says so and exits 0 (a dry run: this machine's manifest is never touched).
if [ ! -e /var/lib/elfpmd/manifest ] && [ ! -L /var/lib/elfpmd/manifest ]; then
	"$ELFPMD" reapply -n >"$W/fresh.out" 2>&1
	rc=$?
	holds "reapply -n without a manifest: exit 0 (got $rc), nothing recorded ($(cat "$W/fresh.out"))" \
		'[ $rc -eq 0 ] && grep -qx "elfpmd reapply: nothing recorded (no /var/lib/elfpmd/manifest)" "$W/fresh.out"'
else
	skip "this machine has /var/lib/elfpmd/manifest: the fresh-system case is not run"
fi

# Refusals.
cp "$W/orig/prog" "$W/tree/bin/prog2"
"$ELFPMD" -q --madvise --manifest="$W/M2" "$W/tree/bin/prog2"
"$ELFPMD" revert --manifest="$W/M2" >/dev/null 2>"$W/nokeep.err"
holds "revert without a kept original: exit 1, the reason names dpkg -S and rpm -qf" \
	'[ $? -eq 1 ] && grep -q "prog2: the original was not kept.*dpkg -S, rpm -qf" "$W/nokeep.err"'
cp "$W/orig/prog" "$W/tree/bin/prog3"
"$ELFPMD" -q --madvise --manifest="$W/M3" --keep-originals="$W/K3" "$W/tree/bin/prog3"
chmod u+w "$W/K3"/* && printf x >>"$W/K3"/*
"$ELFPMD" revert --manifest="$W/M3" >/dev/null 2>"$W/altered.err"
holds "an altered kept original: exit 1, refused, the file left converted" \
	'[ $? -eq 1 ] && grep -q "is not what elfpmd kept" "$W/altered.err" && ! cmp -s "$W/tree/bin/prog3" "$W/orig/prog"'
printf '{"action":"convert","file":"x"}\n' >>"$W/M3"
"$ELFPMD" reapply --manifest="$W/M3" >/dev/null 2>"$W/bad.err"
holds "a malformed manifest: exit 1, its line named" '[ $? -eq 1 ] && grep -q "M3: line 2: not an entry elfpmd wrote" "$W/bad.err"'
"$ELFPMD" reapply --manifest="$W/nonexistent" >/dev/null 2>&1
check "reapply of a missing manifest: exit 1" test $? -eq 1
"$ELFPMD" -q --manifest="$W/nodir/M" "$W/tree/bin/prog2" 2>"$W/nom.err"
holds "a manifest that cannot be opened: exit 1 before any file" \
	'[ $? -eq 1 ] && grep -q "cannot append to the manifest" "$W/nom.err"'
# As root, in a directory another user owns: a symbolic link of that user's
# at the manifest's, the JSON report's or the originals' name is not
# followed (the file it points to is left as it was).
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p "$W/theirs" && chown nobody "$W/theirs" && chmod 755 "$W"
	echo precious >"$W/target" && mkdir -p "$W/target-dir"
	for what in "--manifest=$W/theirs/m" "--json=$W/theirs/m" \
		"--manifest=$W/M5 --keep-originals=$W/theirs/m"; do
		rm -f "$W/theirs/m"
		case $what in *keep*) setpriv --reuid=nobody -- ln -s "$W/target-dir" "$W/theirs/m" ;;
		*) setpriv --reuid=nobody -- ln -s "$W/target" "$W/theirs/m" ;; esac
		cp "$W/orig/prog" "$W/tree/bin/prog5"
		# shellcheck disable=SC2086  # the arguments are words
		"$ELFPMD" -q --madvise $what "$W/tree/bin/prog5" >/dev/null 2>"$W/link.err"
		st=$?
		holds "another user's symbolic link at $what: exit 1, not followed ($(head -1 "$W/link.err"))" \
			'[ $st -eq 1 ] && [ "$(cat "$W/target")" = precious ] && [ -z "$(ls -A "$W/target-dir")" ]'
	done
else
	skip "not root (or no user nobody): the symbolic-link checks"
fi

# The rule of src/core/trust.c, as root: what another user prepared is not
# used.  (issue 35: the first of its reproductions.)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	T=$W/trust
	mkdir -p "$T" && chmod 755 "$T"
	mkfifo "$T/fifo"
	cp "$W/orig/prog" "$T/p"
	for what in "--json=$T/fifo" "--manifest=$T/fifo"; do
		timeout 10 "$ELFPMD" -q $what "$T/p" >/dev/null 2>"$T/err"
		st=$?
		holds "$what: exit 1 at once, nothing rewritten ($(head -1 "$T/err"))" \
			'[ $st -eq 1 ] && cmp -s "$T/p" "$W/orig/prog" && grep -q "not a regular file" "$T/err"'
	done
	timeout 10 "$ELFPMD" reapply --manifest="$T/fifo" >/dev/null 2>"$T/err"
	st=$?
	check "reapply --manifest=FIFO: exit 1 at once ($(head -1 "$T/err"))" test $st = 1
	# another user's originals directory, writable by all
	mkdir "$T/o" && chown nobody "$T/o" && chmod 777 "$T/o"
	"$ELFPMD" -q --manifest="$T/m" --keep-originals="$T/o" "$T/p" 2>"$T/err"
	st=$?
	holds "--keep-originals= another user's directory: exit 1, nothing rewritten ($(head -1 "$T/err"))" \
		'[ $st -eq 1 ] && cmp -s "$T/p" "$W/orig/prog" && grep -q "belongs to another user" "$T/err"'
	# root's own: the copy keeps the original's times; revert puts back
	# the set-user-ID bit, a file capability, a user.* attribute and the
	# times, and removes the copy it used
	chmod 4755 "$T/p"; touch -d '2020-01-02 03:04:05' "$T/p"
	have setcap && setcap cap_net_raw+ep "$T/p"
	have setfattr && setfattr -n user.elfpmd -v kept "$T/p" 2>/dev/null
	caps_before=$(getcap "$T/p" 2>/dev/null | awk '{print $2}')
	attr_before=$(getfattr --only-values -n user.elfpmd "$T/p" 2>/dev/null)
	"$ELFPMD" -q --manifest="$T/m" --keep-originals="$T/k" "$T/p"
	check "root's own originals directory: converted" sh -c "! cmp -s '$T/p' '$W/orig/prog'"
	"$ELFPMD" revert -q --manifest="$T/m" 2>"$T/err"
	holds "revert: the contents, mode 4755, capability ${caps_before:-none}, user.elfpmd=${attr_before:-none} and the time back, the kept copy removed ($(head -1 "$T/err"))" \
		'cmp -s "$T/p" "$W/orig/prog" && [ "$(stat -c %a "$T/p")" = 4755 ] \
		 && [ "$(getcap "$T/p" 2>/dev/null | awk "{print \$2}")" = "$caps_before" ] \
		 && [ "$(getfattr --only-values -n user.elfpmd "$T/p" 2>/dev/null)" = "$attr_before" ] \
		 && [ "$(stat -c %Y "$T/p")" = "$(date -d "2020-01-02 03:04:05" +%s)" ] && [ -z "$(ls -A "$T/k")" ]'
	# a manifest another user owns, or can write, or with an option
	# elfpmd never records, is refused with the reason
	cp "$T/m" "$T/m-nobody"; chown nobody "$T/m-nobody"
	cp "$T/m" "$T/m-g"; chgrp nogroup "$T/m-g" 2>/dev/null || chgrp nobody "$T/m-g"; chmod 664 "$T/m-g"
	# (valid JSON whether the list was empty or not: the reader refuses
	# a trailing comma before it looks at the options)
	sed -e 's|"options":\[\]|"options":["--json=/etc/elfpmd-test"]|' -e t \
		-e 's|"options":\["|"options":["--json=/etc/elfpmd-test","|' "$T/m" >"$T/m-opt"
	for m in m-nobody m-g m-opt; do
		"$ELFPMD" reapply -q --manifest="$T/$m" >/dev/null 2>"$T/err"
		st=$?
		holds "reapply of $m: exit 1, the reason said ($(head -1 "$T/err"))" \
			'[ $st -eq 1 ] && grep -Eq "belongs to another user|writable by its group|line 1: the option" "$T/err" && [ ! -e /etc/elfpmd-test ]'
	done
	# an existing report with another hard link is not written through
	echo precious >"$T/target" && ln "$T/target" "$T/report"
	"$ELFPMD" -q --json="$T/report" "$T/p" 2>"$T/err"
	holds "--json= a file with another hard link: exit 1, untouched ($(head -1 "$T/err"))" \
		'[ "$(cat "$T/target")" = precious ] && grep -q "hard links" "$T/err"'
else
	skip "not root (or no user nobody): the rule of trust.c"
fi

for args in "--keep-originals=$W/K $W/tree/bin/prog" "-n --manifest=$W/M4 $W/tree/bin/prog" \
	"--manifest=$W/M4 -o $W/out $W/tree/bin/prog" "reapply $W/tree/bin/prog"; do
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" $args >/dev/null 2>&1
	check "usage error: $args" test $? -eq 64
done
finish
