#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# status-json.py STATUS_JSON PMD FILE_THP LABEL:PID:OBJECT:ALIGNED,STUB,GAIN...:
# check elfpmd status --json (the file STATUS_JSON) against an independent
# reading of /proc/PID/smaps and /proc/PID/pagemap, sharing no code with
# elfpmd (tests/run-status-json.sh); one line per check, PASS or FAIL.
import json, os, re, sys

path, pmd, file_thp, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "true", sys.argv[4:]
lines = open(path).read().splitlines()
out = []
def check(ok, what):
    out.append(("PASS: " if ok else "FAIL: ") + what)

def smaps(pid):
    """Executable file mappings of PID: {(inode, basename): [start, end, offset, pmd_kb]}."""
    objs, cur = {}, None
    head = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$")
    for line in open("/proc/%d/smaps" % pid):
        m = head.match(line)
        if m:
            cur = None
            start, end, perms, off, dev, ino, name = m.groups()
            if "x" in perms[:3] and int(ino) != 0:
                base = os.path.basename(name.replace(" (deleted)", ""))
                cur = [int(start, 16), int(end, 16), int(off, 16), 0]
                objs.setdefault((int(ino), base), []).append(cur)
            continue
        if cur is not None and line.startswith("FilePmdMapped:"):
            cur[3] += int(line.split()[1])
    return objs

def touched(pid, maps):
    """Whole chunks of MAPS with a page present or swapped in /proc/PID/pagemap."""
    import struct
    n = 0
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        for start, end, off, _ in maps:
            if (start - off) % pmd:
                continue
            c = -(-start // pmd) * pmd
            while c + pmd <= end:
                f.seek(c // 4096 * 8)
                ents = struct.unpack("<%dQ" % (pmd // 4096), f.read(pmd // 4096 * 8))
                n += any(e >> 62 for e in ents)
                c += pmd
    return n

def whole(maps):
    n = 0
    for start, end, off, _ in maps:
        if (start - off) % pmd:
            continue
        first = -(-start // pmd) * pmd
        last = end // pmd * pmd
        n += max(0, (last - first) // pmd)
    return n

schema_obj = {"path": str, "text_kb": int, "whole_chunks": int, "pmd_mapped_chunks": int,
              "file_pmd_mapped_kb": int, "anon_huge_kb": int, "touched_chunks": int,
              "small_chunks": int, "unused_chunks": int}
schema_proc = {"pid": int, "comm": str, "anon_exec_huge_kb": int, "objects": list}
schema_sum = {"kernel": str, "thp": str, "pmd_size": int, "processes": int, "unreadable": int,
              "gone": int, "objects": int, "whole_chunks": int, "pmd_mapped_chunks": int,
              "file_pmd_mapped_kb": int, "anon_text_huge_kb": int, "anon_exec_huge_kb": int,
              "with_stub": int, "not_aligned": int, "gain_chunks": int, "small_chunks": int,
              "unused_chunks": int, "unreadable_processes": list}
try:
    docs = [json.loads(l) for l in lines]
    check(True, "every line of status --json is JSON (%d lines)" % len(docs))
except ValueError as e:
    check(False, "status --json: not JSON: %s" % e)
    print("\n".join(out)); sys.exit(0)

summary = docs[-1].get("summary") if docs else None
check(isinstance(summary, dict), "the last line is the summary object")
procs = {d.get("pid"): d for d in docs[:-1]}
bad = []
for d in docs[:-1]:
    for k, t in schema_proc.items():
        if not isinstance(d.get(k), t) or (t is int and isinstance(d.get(k), bool)):
            bad.append("process %s: %s" % (d.get("pid"), k))
    for o in d.get("objects", []):
        for k, t in schema_obj.items():
            if not isinstance(o.get(k), t) or (t is int and isinstance(o.get(k), bool)):
                bad.append("object %s: %s" % (o.get("path"), k))
        for k in ("aligned", "stub"):
            if k not in o or not (o[k] is None or isinstance(o[k], bool)):
                bad.append("object %s: %s" % (o.get("path"), k))
        if o.get("aligned") is None:
            if not isinstance(o.get("error"), str):
                bad.append("object %s: error" % o.get("path"))
        elif not all(isinstance(o.get(k), int) for k in ("chunks_once_aligned", "gain_chunks")):
            bad.append("object %s: chunks_once_aligned/gain_chunks" % o.get("path"))
if isinstance(summary, dict):
    for k, t in schema_sum.items():
        if not isinstance(summary.get(k), t) or (t is int and isinstance(summary.get(k), bool)):
            bad.append("summary: %s" % k)
check(not bad, "JSON schema: every key with its type" + (" (wrong: %s)" % ", ".join(bad[:5]) if bad else ""))

if isinstance(summary, dict) and not bad:
    objs = [o for d in docs[:-1] for o in d["objects"]]
    sums = {"objects": len(objs), "whole_chunks": sum(o["whole_chunks"] for o in objs),
            "pmd_mapped_chunks": sum(o["pmd_mapped_chunks"] for o in objs),
            "file_pmd_mapped_kb": sum(o["file_pmd_mapped_kb"] for o in objs),
            "with_stub": sum(1 for o in objs if o["stub"]),
            "small_chunks": sum(o["small_chunks"] for o in objs),
            "unused_chunks": sum(o["unused_chunks"] for o in objs),
            "anon_exec_huge_kb": sum(d["anon_exec_huge_kb"] for d in docs[:-1]),
            "not_aligned": sum(1 for o in objs if o["aligned"] is False),
            "gain_chunks": sum(o["gain_chunks"] for o in objs if o["aligned"] is False)}
    diff = {k: (summary[k], v) for k, v in sums.items() if summary[k] != v}
    check(not diff, "the summary's totals are the sums of the rows" + (" (summary, rows: %s)" % diff if diff else ""))
    check(summary["processes"] == len(specs) and summary["pmd_size"] == pmd,
          "the summary counts %d processes, PMD %d (got %s, %s)" % (len(specs), pmd, summary["processes"], summary["pmd_size"]))

for s in specs:
    label, pid, base, exp = s.split(":")
    pid = int(pid)
    aligned, stub, gain = exp.split(",")
    d = procs.get(pid)
    if d is None:
        check(False, "%s: process %d is in the report" % (label, pid)); continue
    mine = smaps(pid)
    keys = [k for k in mine if k[1] == base]
    rows = [o for o in d["objects"] if os.path.basename(o["path"].replace(" (deleted)", "")) == base]
    if len(keys) != 1 or len(rows) != 1:
        check(False, "%s: one %s in smaps (%d) and in the report (%d)" % (label, base, len(keys), len(rows))); continue
    maps, o = mine[keys[0]], rows[0]
    w = whole(maps)
    kb = sum(m[3] for m in maps)
    check(o["whole_chunks"] == w, "%s: whole_chunks %d = %d from smaps" % (label, o["whole_chunks"], w))
    check(o["file_pmd_mapped_kb"] == kb and o["pmd_mapped_chunks"] == kb * 1024 // pmd,
          "%s: FilePmdMapped %d kB = %d kB from smaps (%d chunks)" % (label, o["file_pmd_mapped_kb"], kb, kb * 1024 // pmd))
    check(o["text_kb"] == sum(m[1] - m[0] for m in maps) // 1024,
          "%s: text_kb %d = the executable mappings' size" % (label, o["text_kb"]))
    t = touched(pid, maps)
    check(o["touched_chunks"] == t and o["small_chunks"] == max(0, t - o["pmd_mapped_chunks"])
          and o["unused_chunks"] == w - t,
          "%s: touched %d = %d from pagemap, small %d, unused %d" % (label, o["touched_chunks"], t,
          o["small_chunks"], o["unused_chunks"]))
    got = (str(o["aligned"]).lower(), str(o["stub"]).lower(), str(o.get("gain_chunks")))
    check(got == (aligned, stub, gain),
          "%s: aligned %s, stub %s, gain_chunks %s (expected %s %s %s)%s" % ((label,) + got + (aligned, stub, gain)
          + ((" error: " + o.get("error", "")) if o["aligned"] is None else "",)))
    if label in ("mad", "lib") and file_thp:
        check(o["pmd_mapped_chunks"] >= 0.95 * w and w > 0,
              "%s: %d of %d whole chunks PMD-mapped (the stub works here)" % (label, o["pmd_mapped_chunks"], w))
print("\n".join(out))
