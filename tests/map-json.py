#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# map-json.py: the map scripts' (tests/run-map-*.sh) own view of elfpmd map
# --json, from nm -S and readelf -lW alone, never from elfpmd's code.  The
# fixture is the program of lib.sh's map_fixture: three compilation units
# (map-a.c, map-b.c, map-c.c) of naked blocks of known size.
#
#   map-json.py expect NAME FILE SOURCE NAMEFILE[:FOUND_BY] [HOT]
#       the expected JSON of elfpmd map --json [--hot=HOT] FILE into
#       NAME.expect: the chunks, every function's bytes in each range, the
#       compilation units by construction, the --hot shares.  A stripped
#       FILE takes its symbols from exec-g in the current directory (every
#       variant but the PIE has its functions at the same addresses).
#   map-json.py compare NAME
#       NAME.json (elfpmd's) against NAME.expect, the keys and types of
#       every object checked on the way; the differences into NAME.diff;
#       exit 1 when there are any.
#   map-json.py layout FILE
#       exit 1 unless FILE (exec-g) is laid out as designed: with about 6.4
#       MiB of text at 0x401000, two whole 2 MiB chunks: lead in the head,
#       cross01 across the start of chunk 0, inb in chunk 0, cross12
#       across chunks 0 and 1, inc in chunk 1, tail_c across the end of
#       chunk 1, tiny_c in the tail.
import json, math, re, subprocess, sys


def expect(name, path, source, found_by, hot=None):
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

def compare(name):
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
    return 1 if errs else 0

def layout(path):
    f = {l.split()[3]: (int(l.split()[0], 16), int(l.split()[0], 16) + int(l.split()[1], 16))
         for l in subprocess.run(["nm", "-S", path], capture_output=True, text=True).stdout.splitlines()
         if len(l.split()) == 4}
    M = 2 << 20
    assert f["lead"][1] <= 3 * M
    assert f["cross01"][0] < 3 * M < f["cross01"][1]
    assert 3 * M <= f["inb"][0] and f["inb"][1] <= 4 * M
    assert f["cross12"][0] < 4 * M < f["cross12"][1]
    assert f["tail_c"][0] < 5 * M < f["tail_c"][1]
    assert f["tiny_c"][0] >= 5 * M

if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "expect":
        expect(*args)
    elif cmd == "compare":
        sys.exit(compare(*args))
    elif cmd == "layout":
        layout(*args)
    else:
        sys.exit("map-json.py: unknown command %s" % cmd)
