#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-readme-examples.sh: README.md's examples are executed.  Every elfpmd
# command of its first block and of its Examples block (continued lines
# joined, comments cut) runs, with bash, in a directory of fixtures named as the README names
# them (bigprogram, libbig.so, prog, out/, debian/tmp, hot.txt); system
# paths are replaced by copies (/usr/lib/x86_64-linux-gnu, /usr,
# /usr/bin/clang-14, /etc/elfpmd/prime.list), the PID 1234 by a process of
# this test, and the whole run happens in a mount namespace whose /var/lib
# is an empty tmpfs (so that the manifest, reapply and revert touch nothing
# of this machine's).  Each command must exit 0, and where its comment says
# what it does, that is checked: files untouched by -o and -n, the JSON
# complete, a whole system's terminal output short, revert putting the
# original back, and so on.  (run-readme-sample.sh checks the README's
# sample dry run.)
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

readme=$TESTS_SRCDIR/../README.md
work=$TESTS_BUILDDIR/readme-examples-work
[ "$(id -u)" -eq 0 ] && have unshare || skip_all "needs root and unshare (a mount namespace with /var/lib of its own)"
have cc || skip_all "no C compiler"
have python3 || skip_all "python3 not found (reads the JSON)"
find_python
rm -rf "$work"
mkdir -p "$work/ex" "$work/bin" "$work/root/usr/bin" "$work/root/usr/lib/x86_64-linux-gnu" "$work/etc/elfpmd" \
	|| hard_error "cannot create $work"
ln -s "$ELFPMD" "$work/bin/elfpmd"

# --- the commands ------------------------------------------------------------
# The README's commands: the indented lines of the first code block and of
# the block after "## Examples" that start with "elfpmd", "find" (a pipe
# into elfpmd) or continue the line before; the comment after two spaces
# and a '#' cut.
"$PYTHON" - "$readme" > "$work/commands" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
blocks, cur, in_examples, first_done = [], [], False, False
def flush():
    global cur
    if cur:
        blocks.append(cur)
    cur = []
section = ""
for l in lines:
    if l.startswith("## "):
        flush(); section = l
        continue
    if l.startswith("    "):
        cur.append(l[4:])
    else:
        if cur:
            if (section == "" and not first_done) or section == "## Examples":
                blocks.append(cur)
                if section == "":
                    first_done = True
            cur = []
cmds, pending = [], ""
for b in blocks:
    for l in b:
        code = re.sub(r"\s{2,}#.*$", "", l).rstrip()
        if not code.strip():
            continue
        if pending:
            pending += " " + code.strip()
        elif re.match(r"(elfpmd|find) ", code):
            pending = code
        else:
            continue
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        cmds.append(pending)
        pending = ""
for c in cmds:
    print(c)
EOF
ncmds=$(wc -l < "$work/commands")
[ "$ncmds" -ge 15 ] || hard_error "read only $ncmds commands from $readme"
note "$ncmds commands in README.md's examples"

# --- the fixtures ------------------------------------------------------------
ex=$work/ex
printf '\t.text\n\t.globl big\nbig:\n\t.fill 0x480000,1,0xc3\n\t.section .note.GNU-stack,"",@progbits\n' > "$work/big.S"
printf 'extern char big[];\nint main (void) { ((void (*) (void)) big) (); return 0; }\n' > "$work/main.c"
printf 'extern char big[];\nint lib_big (void) { ((void (*) (void)) big) (); return 1; }\n' > "$work/lib.c"
cc -O2 -fPIE -pie -o "$ex/bigprogram" "$work/main.c" "$work/big.S" \
	&& cc -O2 -fPIC -shared -o "$ex/libbig.so" "$work/lib.c" "$work/big.S" \
	&& cc -O2 -fPIE -pie -o "$ex/prog" "$work/main.c" "$work/big.S" \
	|| hard_error "cannot build the fixtures"
mkdir -p "$ex/out" "$ex/debian/tmp/usr/bin" "$ex/debian/tmp/usr/share/doc"
cp "$ex/prog" "$ex/debian/tmp/usr/bin/prog" && echo text > "$ex/debian/tmp/usr/share/doc/README"
touch -d '2001-02-03 04:05:06' "$ex/debian/tmp/usr/bin/prog"
printf 'main 60\nmain+0x2 40\n' > "$ex/hot.txt"
# A copy of part of /usr/lib/x86_64-linux-gnu as a Debian system has it: the
# C library, its linker script libc.so, libstdc++ under two names (a
# symbolic link), a relocatable archive.
lib=$work/root/usr/lib/x86_64-linux-gnu
for f in libc.so.6 libm.so.6 libc.so libc_nonshared.a; do
	[ -e "/usr/lib/x86_64-linux-gnu/$f" ] && cp -a "/usr/lib/x86_64-linux-gnu/$f" "$lib/"
done
for f in /usr/lib/x86_64-linux-gnu/libstdc++.so.6*; do cp -a "$f" "$lib/"; done
cp "$ex/libbig.so" "$lib/libbig.so.1" && ln -s libbig.so.1 "$lib/libbig.so"
cp "$ex/bigprogram" "$work/root/usr/bin/clang-14" && cp "$ex/bigprogram" "$work/root/usr/bin/bigtool"
printf '#!/bin/sh\necho hi\n' > "$work/root/usr/bin/script" && chmod 755 "$work/root/usr/bin/script"
cp "$work/root/usr/bin/clang-14" "$work/clang-14.orig"
printf '%s\n' "$ex/prog" "$ex/libbig.so" > "$work/etc/elfpmd/prime.list"
sleep 300 &
pid=$!
trap 'kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
cp "$ex/prog" "$work/prog.orig"
cp "$ex/bigprogram" "$work/bigprogram.orig"

# --- run them ----------------------------------------------------------------
# In a mount namespace with /var/lib an empty tmpfs: each command (paths
# replaced) runs with bash in $ex, its output in $work/out.N, its status in
# $work/status.N.
sed -e "s|/usr/lib/x86_64-linux-gnu|$lib|g" -e "s|/usr/bin/clang-14|$work/root/usr/bin/clang-14|g" \
	-e "s|/etc/elfpmd/prime.list|$work/etc/elfpmd/prime.list|g" -e "s| /usr\$| $work/root/usr|" \
	-e "s|\\b1234\\b|$pid|" "$work/commands" > "$work/commands.run"
unshare -m --propagation private bash -c '
	mount -t tmpfs -o mode=0755 tmpfs /var/lib || exit 99
	mkdir -p /var/lib/elfpmd
	cd "$1" || exit 99
	n=0
	while IFS= read -r c; do
		n=$((n + 1))
		PATH="$2:$PATH" bash -c "$c" > "$3/out.$n" 2>&1 < /dev/null
		echo $? > "$3/status.$n"
		cp /var/lib/elfpmd/manifest "$3/manifest.$n" 2>/dev/null
		sha256sum bigprogram prog out/prog > "$3/state.$n" 2>/dev/null
	done < "$4"
' sh "$ex" "$work/bin" "$work" "$work/commands.run"
[ $? -ne 99 ] || hard_error "cannot mount a tmpfs on /var/lib in a mount namespace"
(cd "$work" && sha256sum bigprogram.orig prog.orig) | sed 's/\.orig$//' > "$work/state.0"
# sum_of FILE N: FILE's SHA-256 after command N (0: before the first).
sum_of () { awk -v f="$1" '$2 == f { print $1 }' "$work/state.$2"; }

n=0
while IFS= read -r c; do
	n=$((n + 1))
	st=$(cat "$work/status.$n" 2>/dev/null)
	out=$work/out.$n
	first=$(head -1 "$out" | cut -c1-70)
	if [ "$st" != 0 ]; then
		fail "README: '$c': exit $st: $(head -3 "$out")"
		continue
	fi
	pass "README: '$c': exit 0${first:+ ($first)}"
	case $c in
	"elfpmd -n ./bigprogram")
		holds "  -n: 'result: would change', the file untouched" \
			'grep -q "^  result: would change" "$out" && [ "$(sum_of bigprogram $n)" = "$(sum_of bigprogram $((n - 1)))" ]' ;;
	"elfpmd --madvise ./bigprogram")
		holds "  --madvise: changed, with the stub" \
			'grep -q "changed: .*startup stub hooked through" "$out" && [ "$(sum_of bigprogram $n)" != "$(sum_of bigprogram $((n - 1)))" ]' ;;
	"elfpmd -o out/prog prog")
		holds "  -o: out/prog written, prog untouched" \
			'[ -n "$(sum_of out/prog $n)" ] && [ "$(sum_of prog $n)" = "$(sum_of prog $((n - 1)))" ]' ;;
	"elfpmd -r -n --json /usr/lib/x86_64-linux-gnu > libs.json")
		"$PYTHON" - "$ex/libs.json" "$lib" > "$work/libs.check" 2>&1 <<'EOF'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
files = [r for r in rows if "file" in r and "same_file_as" not in r]
summary = rows[-1]["summary"]
elf = sorted(r["file"] for r in files)
want = sorted(os.path.join(sys.argv[2], n) for n in os.listdir(sys.argv[2])
              if not os.path.islink(os.path.join(sys.argv[2], n))
              and open(os.path.join(sys.argv[2], n), "rb").read(4) == b"\x7fELF"
              and not n.endswith(".a"))
assert elf == want, (elf, want)
assert summary["failed"] == 0 and summary["skipped"] >= 3, summary
print("%d libraries, %d skipped (the linker script, the archive, the symbolic link)" % (len(elf), summary["skipped"]))
EOF
		check "  --json: one object per library, each once, the linker script skipped ($(tail -1 "$work/libs.check"))" \
			grep -q "libraries" "$work/libs.check" ;;
	"elfpmd -r -j4 -p debian/tmp")
		check "  -p: the rewritten program keeps its modification time" \
			test "$(stat -c %Y "$ex/debian/tmp/usr/bin/prog")" = "$(date -d '2001-02-03 04:05:06' +%s)" ;;
	*"--json=usr.json /usr")
		holds "  a whole system: what would change and the summary on the terminal ($(wc -l < "$out") lines), the JSON complete" \
			'[ "$(wc -l < "$out")" -lt 20 ] && tail -1 "$out" | grep -q "^elfpmd: [0-9]* files: .* in [0-9.]* s$" &&
			 [ "$(grep -c "^{\"file\":" "$ex/usr.json")" -ge 6 ] && tail -1 "$ex/usr.json" | grep -q "^{\"summary\":"' ;;
	*"--manifest=/var/lib/elfpmd/manifest"*)
		check "  --manifest: clang-14 recorded" grep -q "clang-14" "$work/manifest.$n" ;;
	"elfpmd revert")
		check "  revert: clang-14 is the original again" cmp -s "$work/root/usr/bin/clang-14" "$work/clang-14.orig" ;;
	"elfpmd status --json 1234")
		check "  status --json: the summary of the one process" \
			sh -c "tail -1 '$out' | grep -q '^{\"summary\":{.*\"processes\":1,'" ;;
	"elfpmd map -C --hot=hot.txt prog")
		check "  map --hot: the weight is placed, every line resolved" \
			grep -q "^hot: 2 lines, total weight 100, .* unresolved 0 lines" "$out" ;;
	esac
done < "$work/commands"

[ "$n_fail" -eq 0 ] && rm -rf "$work"
finish
