#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map.sh: elfpmd map FILE (issue 12: will my hot code be on huge pages?).
#
# The fixture is a program of three compilation units (map-a.c, map-b.c,
# map-c.c, written here) whose functions are naked blocks of known size,
# so that with about 6.4 MiB of text at 0x401000 (gcc -no-pie) it has two
# whole 2 MiB chunks: lead in the head, cross01 across the start of chunk
# 0, inb in chunk 0, cross12 across chunks 0 and 1, inc in chunk 1, tail_c
# across the end of chunk 1, tiny_c in the tail.  The expected map is
# computed here, in python3, from `nm -S` and `readelf -lW` alone (the
# chunks, every function's bytes in each range, the compilation units by
# construction, the --hot shares), and compared with elfpmd map --json.
# Variants:
#   exec-g     DWARF in the file
#   exec-dl    DWARF in a separate file named by .gnu_debuglink: beside the
#              file, in .debug/, under the debug root + the file's
#              directory; with a wrong CRC: passed over with a warning
#   exec-bid   stripped, DWARF found by build ID under the debug root; a
#              FIFO under that name: passed over, never opened
#   exec-sym   no DWARF (strip -g): .symtab, no compilation units
#   exec-dyn   strip --strip-all of a -rdynamic build: .dynsym
#   exec-none  a static program stripped of everything: no names
#   pie-g      a PIE (p_align 4 KiB): the chunks as elfpmd would align it,
#              none as it is; its elfpmd rewrite: as it is
#   ELFPMD_MAP_NO_DWARF=1 (as a build without libdwarf): one line on
#              stderr, names from .symtab
#   exec-baddwarf  .debug_abbrev overwritten: one line on stderr, .symtab
# ELFPMD_DEBUG_ROOT replaces /usr/lib/debug.  Errors: a missing file, a
# file that is not ELF, bad --hot lines (exit 1, the line number named),
# usage errors (64).
#
# Needs gcc for x86-64, objcopy, strip, nm, readelf and python3; skipped
# (77) otherwise.  Fixtures are built into $TESTS_BUILDDIR/map-build.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

O=$TESTS_BUILDDIR/map-build
require_elfpmd
for t in gcc objcopy strip nm readelf python3; do
	have "$t" || skip_all "$t not found"
done
[ "$(uname -m)" = x86_64 ] || skip_all "the fixture's addresses are laid out for x86-64"
rm -rf "$O"
mkdir -p "$O" || hard_error "cannot create $O"
cd "$O" || hard_error "cannot enter $O"

dwarf=false
grep -q '^#define HAVE_LIBDWARF 1' "$TESTS_BUILDDIR/../config.h" 2>/dev/null && dwarf=true
note "this build reads DWARF: $dwarf"

block='#define BLOCK(name, size) __attribute__ ((naked, noinline)) void name (void) { __asm__ (".fill " #size ", 1, 0xcc\n\tret"); }'
printf '%s\nBLOCK (lead, 0x100000)\nBLOCK (cross01, 0x180000)\nint main (void) { return 0; }\n' "$block" >map-a.c
printf '%s\nBLOCK (inb, 0x100000)\nBLOCK (cross12, 0x180000)\n' "$block" >map-b.c
printf '%s\nBLOCK (inc, 0xe0000)\nBLOCK (tail_c, 0x80000)\nBLOCK (tiny_c, 0x40)\n' "$block" >map-c.c
CFLAGS="-g -O0 -fno-toplevel-reorder -Wl,--build-id"
SRCS="map-a.c map-b.c map-c.c"
# shellcheck disable=SC2086
gcc $CFLAGS -no-pie -o exec-g $SRCS 2>build.log || skip_all "gcc cannot build the fixture: $(tail -1 build.log)"
# shellcheck disable=SC2086
gcc $CFLAGS -fPIE -pie -o pie-g $SRCS 2>>build.log || hard_error "gcc -pie fails: $(tail -1 build.log)"
# shellcheck disable=SC2086
gcc $CFLAGS -no-pie -rdynamic -o exec-dyn $SRCS 2>>build.log || hard_error "gcc -rdynamic fails"
strip --strip-all exec-dyn
have_static=true
# shellcheck disable=SC2086
gcc $CFLAGS -static -o exec-none $SRCS 2>>build.log && strip --strip-all exec-none || have_static=false
cp exec-g exec-sym && strip -g exec-sym
objcopy --only-keep-debug exec-g exec-g.debug
objcopy --strip-debug --add-gnu-debuglink=exec-g.debug exec-g exec-dl
rm exec-g.debug.tmp 2>/dev/null
mv exec-g.debug exec-dl.dbg
# The debuglink names exec-g.debug; keep the debug file aside and put it
# where each check wants it.
cp exec-g exec-bid && strip --strip-all exec-bid
id=$(readelf -n exec-g | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || hard_error "no build ID in exec-g"
mkdir -p root/.build-id/"${id:0:2}"
cp exec-dl.dbg root/.build-id/"${id:0:2}/${id:2}.debug"
# The debuglink checks look under a root without the build-ID tree (exec-dl
# has exec-g's build ID, which is looked up first).
export ELFPMD_DEBUG_ROOT=$O/root-dl

# expect NAME FILE SOURCE NAMEFILE[:FOUND_BY] [HOT]: the expected JSON of
# elfpmd map --json FILE, from nm -S and readelf -lW alone, into NAME.expect.
expect () {
	python3 - "$@" <<'PY' || hard_error "cannot compute the expected map of $2"
import json, re, subprocess, sys
name, path, source, found_by = sys.argv[1:5]
hot = sys.argv[5] if len(sys.argv) > 5 else None
PMD = 2 << 20
cu_of = {"lead": "map-a.c", "cross01": "map-a.c", "main": "map-a.c", "inb": "map-b.c",
         "cross12": "map-b.c", "inc": "map-c.c", "tail_c": "map-c.c", "tiny_c": "map-c.c"}
funcs = []
if source != "none":
    seen = set()
    # The symbols of the file itself (its .dynsym for dynsym), else, for
    # a stripped file, those of exec-g: every variant but the PIE has its
    # functions at the same addresses.
    nm = ["nm", "-D"] if source == "dynsym" else ["nm"]
    lines = subprocess.run(nm + ["-S", "--defined-only", path], capture_output=True,
                           text=True).stdout.splitlines()
    if not lines:
        lines = subprocess.run(["nm", "-S", "--defined-only", "exec-g"], capture_output=True,
                               text=True, check=True).stdout.splitlines()
    for line in lines:
        f = line.split()
        if len(f) == 4 and f[2] in "Tt" and int(f[1], 16) > 0:
            lo, size = int(f[0], 16), int(f[1], 16)
            if (lo, size) in seen:
                continue
            seen.add((lo, size))
            funcs.append((lo, lo + size, f[3]))
funcs.sort()
etype = "EXEC"
segs = []
for line in subprocess.run(["readelf", "-hlW", path], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    if re.match(r"\s*Type:\s+DYN", line):
        etype = "DYN"
    f = line.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1] and "W" not in f[6:-1]:
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16), int(f[5], 16), int(f[-1], 16)))
maxalign = 0
for line in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split()
    if f and f[0] == "LOAD":
        maxalign = max(maxalign, int(f[-1], 16))
ranges = []
phidx = {}
for i, line in enumerate([l for l in subprocess.run(["readelf", "-lW", path], capture_output=True,
                          text=True, check=True).stdout.splitlines()
                          if re.match(r"\s+[A-Z_]+\s+0x", l) or re.match(r"\s+GNU_", l)]):
    f = line.split()
    if f[0] == "LOAD":
        phidx[int(f[2], 16)] = i
chunks_now = 0
for off, vaddr, filesz, memsz, align in segs:
    end = vaddr + min(filesz, memsz)
    seg = phidx[vaddr]
    congruent = (vaddr - off) % PMD == 0
    first = (vaddr + PMD - 1) // PMD * PMD
    n = (end - first) // PMD if congruent and end > first else 0
    now = etype == "EXEC" or maxalign >= PMD
    if now:
        chunks_now += n
    if n == 0:
        ranges.append(dict(start=vaddr, end=end, segment=seg, part="whole"))
        continue
    if first > vaddr:
        ranges.append(dict(start=vaddr, end=first, segment=seg, part="head"))
    for c in range(n):
        ranges.append(dict(start=first + c * PMD, end=first + (c + 1) * PMD, segment=seg, now=now))
    if first + n * PMD < end:
        ranges.append(dict(start=first + n * PMD, end=end, segment=seg, part="tail"))
ranges.sort(key=lambda r: r["start"])
k = 0
for r in ranges:
    if "now" in r:
        r["index"] = k
        k += 1
    inside = []
    cus = {}
    for lo, hi, fn in funcs:
        b = min(hi, r["end"]) - max(lo, r["start"])
        if b > 0:
            inside.append((-b, lo, fn))
            if source == "dwarf" and fn in cu_of:
                cus[cu_of[fn]] = cus.get(cu_of[fn], 0) + b
    inside.sort()
    r["functions"] = len(inside)
    r["largest"] = [dict(name=fn, bytes=-b) for b, lo, fn in inside[:5]]
    r["cus"] = len(cus) if source == "dwarf" else None
    r["largest_cus"] = [dict(name=c, bytes=b) for c, b in
                        sorted(cus.items(), key=lambda x: (-x[1], x[0]))[:3]]
    r["hot"] = 0.0
out = dict(file=path, machine="x86-64", pmd_size=PMD,
           names=dict(source=source, file=None if source == "none" else found_by.split(":")[0],
                      found_by=found_by.split(":")[1] if ":" in found_by else None,
                      functions=len(funcs)),
           layout="as_aligned" if any("now" in r and not r["now"] for r in ranges) else "as_is",
           chunks_now=chunks_now)
if hot is not None:
    by_name = {fn: (lo, hi) for lo, hi, fn in funcs}
    lines = unresolved = 0
    unresolved_w = 0.0
    def place(lo, hi, w):
        placed = 0.0
        for r in ranges:
            b = min(hi, r["end"]) - max(lo, r["start"])
            if b > 0:
                r["hot"] += w * b / (hi - lo)
                placed += w * b / (hi - lo)
        return placed
    for line in open(hot):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        lines += 1
        w = float(f[1].rstrip("%"))
        what = f[0]
        if what.startswith("0x"):
            a = int(what, 16)
            placed = place(a, a + 1, w)
        elif "+0x" in what:
            fn, off = what.rsplit("+", 1)
            lo = by_name.get(fn, (None,))[0]
            placed = place(lo + int(off, 16), lo + int(off, 16) + 1, w) if lo is not None else 0
        elif what in by_name:
            placed = place(*by_name[what], w)
        else:
            placed = 0
        if placed == 0:
            unresolved += 1
            unresolved_w += w
    inc = sum(r["hot"] for r in ranges if "now" in r)
    outs = sum(r["hot"] for r in ranges if "now" not in r)
    out["hot"] = dict(file=hot, lines=lines, total=inc + outs, in_chunks=inc, outside=outs,
                      share=inc / (inc + outs) if inc + outs else None,
                      unresolved_lines=unresolved, unresolved_weight=unresolved_w)
else:
    out["hot"] = None
    for r in ranges:
        del r["hot"]
out["chunks"] = [r for r in ranges if "now" in r]
out["outside"] = [r for r in ranges if "now" not in r]
json.dump(out, open(name + ".expect", "w"), sort_keys=True, indent=1)
PY
}

# compare NAME: NAME.json (elfpmd's) against NAME.expect, the keys and
# types of every object checked on the way; differences into NAME.diff.
compare () {
	python3 - "$1" <<'PY'
import json, math, sys
name = sys.argv[1]
got = json.load(open(name + ".json"))
want = json.load(open(name + ".expect"))
types = {"file": str, "machine": str, "pmd_size": int, "names": dict, "layout": str,
         "chunks_now": int, "chunks": list, "outside": list, "hot": (dict, type(None))}
errs = []
if set(got) != set(types):
    errs.append("top-level keys %s" % sorted(got))
for k, t in types.items():
    if k in got and not isinstance(got[k], t):
        errs.append("%s is %s" % (k, type(got[k]).__name__))
rkeys = {"start", "end", "segment", "cus", "functions", "largest", "largest_cus"}
for part, extra in (("chunks", {"index", "now"}), ("outside", {"part"})):
    for r in got.get(part, []):
        want_keys = rkeys | extra | ({"hot"} if got.get("hot") else set())
        if set(r) != want_keys:
            errs.append("%s keys %s" % (part, sorted(r)))
        for f in r.get("largest", []) + r.get("largest_cus", []):
            if set(f) != {"name", "bytes"} or not isinstance(f["bytes"], int):
                errs.append("%s entry %s" % (part, f))
def same(a, b, path):
    if isinstance(b, float) or isinstance(a, float):
        if a is None or b is None or not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6):
            errs.append("%s: got %r, want %r" % (path, a, b))
    elif isinstance(b, dict) and isinstance(a, dict):
        for k in set(a) | set(b):
            same(a.get(k, "<missing>"), b.get(k, "<missing>"), path + "." + k)
    elif isinstance(b, list) and isinstance(a, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (path, i))
    elif a != b:
        errs.append("%s: got %r, want %r" % (path, a, b))
same(got, want, name)
open(name + ".diff", "w").write("\n".join(errs) + "\n")
sys.exit(1 if errs else 0)
PY
}

# map_check NAME FILE SOURCE FOUND_BY [HOT]: run elfpmd map --json on FILE
# and check it against the expectation; the stderr goes to NAME.err.
map_check () {
	local name=$1 file=$2 hot=$5
	expect "$@"
	if "$ELFPMD" map --json ${hot:+--hot="$hot"} "$file" >"$name.json" 2>"$name.err" && compare "$name"; then
		pass "$name: elfpmd map --json $file equals the map computed from nm and readelf"
	else
		fail "$name: elfpmd map --json $file (see $O/$name.diff, $name.err)"
		head -5 "$name.diff" "$name.err" 2>/dev/null | sed 's/^/      /'
	fi
}

# The fixture is laid out as designed: the checks below mean something.
python3 - <<'PY' || hard_error "the fixture is not laid out as designed (see nm -S $O/exec-g)"
import subprocess
f = {l.split()[3]: (int(l.split()[0], 16), int(l.split()[0], 16) + int(l.split()[1], 16))
     for l in subprocess.run(["nm", "-S", "exec-g"], capture_output=True, text=True).stdout.splitlines()
     if len(l.split()) == 4}
M = 2 << 20
assert f["lead"][1] <= 3 * M
assert f["cross01"][0] < 3 * M < f["cross01"][1]
assert 3 * M <= f["inb"][0] and f["inb"][1] <= 4 * M
assert f["cross12"][0] < 4 * M < f["cross12"][1]
assert f["tail_c"][0] < 5 * M < f["tail_c"][1]
assert f["tiny_c"][0] >= 5 * M
PY

if $dwarf; then
	map_check exec-g exec-g dwarf exec-g:file
	check "exec-g: nothing on stderr" test ! -s exec-g.err
else
	map_check exec-g exec-g symtab exec-g
	check "exec-g without libdwarf: one line on stderr says so" \
		test "$(grep -c 'built without libdwarf' exec-g.err)" = 1 -a "$(wc -l <exec-g.err)" = 1
fi

# The text report: the header, and one line per range with the largest
# functions, sizes in bytes (from nm).
"$ELFPMD" map exec-g >exec-g.txt 2>/dev/null
inb=$((16#$(nm -S exec-g | awk '$4 == "inb" { print $2 }')))
check "text: chunk 0 0x600000-0x800000 lists inb ($inb bytes) first" \
	grep -q "^chunk 0 0x600000-0x800000: .*largest: inb ($inb)" exec-g.txt
check "text: two chunk lines, a head and a tail" \
	test "$(grep -c '^chunk ' exec-g.txt) $(grep -c '^outside .*head' exec-g.txt) $(grep -c '^outside .*tail' exec-g.txt)" = "2 1 1"
if $dwarf; then
	check "text: names from DWARF in the file itself" grep -q '^names: DWARF in exec-g (the file itself)' exec-g.txt
	check "text: chunk 0's CUs, map-b.c first" grep -q '^chunk 0 .*; CUs: map-b.c ([0-9]*), map-a.c' exec-g.txt
fi

# As a build without libdwarf reads it.
ELFPMD_MAP_NO_DWARF=1 "$ELFPMD" map --json exec-g >nodwarf.json 2>nodwarf.err
expect nodwarf exec-g symtab exec-g
if compare nodwarf; then pass "ELFPMD_MAP_NO_DWARF: names from .symtab"; else fail "ELFPMD_MAP_NO_DWARF: $(head -3 nodwarf.diff)"; fi
if $dwarf; then
	check "ELFPMD_MAP_NO_DWARF: one line on stderr names the DWARF not read" \
		test "$(wc -l <nodwarf.err)" = 1 -a "$(grep -c 'exec-g: exec-g: DWARF reading is off' nodwarf.err)" = 1
fi

# Hostile DWARF: .debug_abbrev overwritten with 0xff bytes.  One line on
# stderr, names from .symtab, never a crash.
python3 - <<'PY' || hard_error "cannot damage the DWARF of exec-g"
import subprocess
for l in subprocess.run(["readelf", "-SW", "exec-g"], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".debug_abbrev":
        off, size = int(f[4], 16), int(f[5], 16)
b = bytearray(open("exec-g", "rb").read())
b[off:off + size] = b"\xff" * size
open("exec-baddwarf", "wb").write(b)
PY
chmod +x exec-baddwarf
"$ELFPMD" map --json exec-baddwarf >baddwarf.json 2>baddwarf.err
st=$?
expect baddwarf exec-baddwarf symtab exec-baddwarf
if [ $st = 0 ] && compare baddwarf; then pass "bad DWARF: exit 0, names from .symtab"; else fail "bad DWARF: exit $st, $(head -3 baddwarf.diff) $(head -2 baddwarf.err)"; fi
check "bad DWARF: one line on stderr says the names come from the symbol table" \
	test "$(wc -l <baddwarf.err)" = 1 -a "$(grep -c '^elfpmd map: exec-baddwarf: exec-baddwarf: .*: names from the symbol table$' baddwarf.err)" = 1

# .gnu_debuglink: beside the file, in .debug/, under the debug root + the
# file's directory.
if $dwarf; then src=dwarf; else src=symtab; fi
cp exec-dl.dbg exec-g.debug
if $dwarf; then fb=$O/exec-g.debug:.gnu_debuglink; else fb=exec-dl; fi
map_check exec-dl-beside exec-dl $src "$fb"
rm exec-g.debug
mkdir -p .debug && cp exec-dl.dbg .debug/exec-g.debug
if $dwarf; then fb=$O/.debug/exec-g.debug:.gnu_debuglink; fi
map_check exec-dl-dotdebug exec-dl $src "$fb"
rm -r .debug
mkdir -p "root-dl$O" && cp exec-dl.dbg "root-dl$O/exec-g.debug"
if $dwarf; then fb=$O/root-dl$O/exec-g.debug:.gnu_debuglink; fi
map_check exec-dl-root exec-dl $src "$fb"
# A debug file whose CRC is not the debuglink's is passed over.
printf 'x' >>"root-dl$O/exec-g.debug"
map_check exec-dl-badcrc exec-dl symtab exec-dl
if $dwarf; then
	check "exec-dl, wrong CRC: a warning names the file and the CRCs" \
		grep -q "^elfpmd map: exec-dl: warning: $O/root-dl$O/exec-g.debug: CRC 0x[0-9a-f]* is not the 0x[0-9a-f]* of .gnu_debuglink; passed over" exec-dl-badcrc.err
fi
rm -r "root-dl$O"

# The build ID under the debug root, for a file stripped of everything.
export ELFPMD_DEBUG_ROOT=$O/root
if $dwarf; then
	map_check exec-bid exec-bid dwarf "$O/root/.build-id/${id:0:2}/${id:2}.debug:build-id"
else
	map_check exec-bid exec-bid symtab "$O/root/.build-id/${id:0:2}/${id:2}.debug"
fi
# A FIFO under the debug file's name is passed over: opening it would block.
mkdir -p "root-fifo/.build-id/${id:0:2}" && mkfifo "root-fifo/.build-id/${id:0:2}/${id:2}.debug" \
	|| hard_error "cannot make a FIFO in $O/root-fifo"
ELFPMD_DEBUG_ROOT=$O/root-fifo timeout 60 "$ELFPMD" map exec-bid >fifo.txt 2>&1
st=$?
holds "exec-bid, a FIFO under the build ID's name: passed over, not opened (exit $st)" \
	'[ $st = 0 ] && grep -q "^names: " fifo.txt && ! grep -q "^names: DWARF" fifo.txt'

# No DWARF: .symtab; neither: .dynsym; nothing at all (no debug root:
# exec-g's build ID would find the DWARF).
export ELFPMD_DEBUG_ROOT=$O/no-root
map_check exec-sym exec-sym symtab exec-sym
map_check exec-dyn exec-dyn dynsym exec-dyn
if $have_static; then
	map_check exec-none exec-none none x
	"$ELFPMD" map exec-none >exec-none.txt 2>&1
	check "exec-none: names: none" grep -q '^names: none' exec-none.txt
else
	skip "no static C library: the file without any names is not built"
fi

# A PIE: chunks as elfpmd would align it; its rewrite: as it is.
map_check pie-g pie-g $src "$( $dwarf && echo pie-g:file || echo pie-g)"
"$ELFPMD" map pie-g >pie-g.txt 2>/dev/null
check "pie-g: the header says the chunks are those once aligned" \
	grep -q '^chunks: 2 whole chunks of text once elfpmd aligns the file (as it is: 0)' pie-g.txt
"$ELFPMD" -q -o pie-aligned pie-g || hard_error "elfpmd cannot align pie-g"
map_check pie-aligned pie-aligned $src "$( $dwarf && echo pie-aligned:file || echo pie-aligned)"

# --hot: names, addresses, name+offset, unresolved lines, comments.
tiny=$(nm exec-g | awk '$3 == "tiny_c" { print $1 }')
cat >hot.txt <<EOF
# perf report --stdio --no-children -q --no-demangle --sort sym -F overhead,sym | awk ...
inb 30.5%
cross01 20
cross12 10
0x$tiny 7
tail_c+0x10 5
lead 2.5

no_such_function 4
0x10 1
EOF
map_check hot exec-g $src "$( $dwarf && echo exec-g:file || echo exec-g)" hot.txt
"$ELFPMD" map --hot=hot.txt exec-g >hot.txt.out 2>/dev/null
check "hot, text: total, weight in whole chunks, share and unresolved lines" \
	grep -q '^hot: 8 lines, total weight 75, in whole chunks [0-9.]* ([0-9.]*%), outside [0-9.]*; unresolved 2 lines (weight 5)$' hot.txt.out

# Errors: exit 1 and one line naming the file (and the line); usage: 64.
# err_check DESCRIPTION STATUS PATTERN ARGS...: elfpmd ARGS exits STATUS
# with one line on stderr matching PATTERN (usage errors: with argp's
# lines).
err_check () {
	local what=$1 want=$2 pat=$3 got
	shift 3
	# A build without libdwarf says so first on a file with DWARF.
	"$ELFPMD" "$@" >err.out 2>err.all
	got=$?
	grep -v ': built without libdwarf: ' err.all >err.err
	if [ "$got" = "$want" ] && grep -q -- "$pat" err.err && { [ "$want" = 64 ] || [ "$(wc -l <err.err)" = 1 ]; }; then
		pass "$what"
	else
		fail "$what: exit $got, stderr: $(head -2 err.err)"
	fi
}
err_check "missing file: exit 1" 1 '^elfpmd map: nosuch: ' map nosuch
echo 'not elf' >notelf
err_check "not ELF: exit 1" 1 '^elfpmd map: notelf: ' map notelf
# The sizes as the main command chooses them (one choose_sizes): a page size
# the machine does not have is refused with --pmd-size too.
err_check "--pmd-size=2M --page-size=16K on x86-64: refused as elfpmd -n refuses it" 1 \
	'^elfpmd map: exec-g: x86-64: this machine has 4K pages only' map --pmd-size=2M --page-size=16K exec-g
printf 'inb 1\ninb\n' >bad1
err_check "--hot: a line of one word names line 2" 1 'bad1:2: 1 words' map --hot=bad1 exec-g
printf '# c\ninb -3\n' >bad2
err_check "--hot: a negative weight names line 2" 1 "bad2:2: '-3' is not a weight" map --hot=bad2 exec-g
printf 'inb nan\n' >bad3
err_check "--hot: nan is not a weight" 1 "bad3:1: 'nan' is not a weight" map --hot=bad3 exec-g
printf '0xzz 1\n' >bad4
err_check "--hot: a bad address" 1 "bad4:1: '0xzz' is not a hexadecimal address" map --hot=bad4 exec-g
err_check "--hot: a missing file" 1 '^elfpmd map: exec-g: --hot: nohot: ' map --hot=nohot exec-g
err_check "no FILE: usage error 64" 64 'no FILE' map
err_check "two FILEs: usage error 64" 64 'one FILE only' map exec-g exec-g
err_check "unknown option: usage error 64" 64 'unrecognized option' map --bogus exec-g
"$ELFPMD" map --help >help.out 2>&1
check "map --help documents the exit status and the perf command" \
	grep -q 'perf report --stdio --no-children -q --no-demangle' help.out

finish
