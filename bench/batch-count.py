#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
"""batch-count.py TREE ORIG RUN_JSON CHANGED_LIST

An independent count of what `elfpmd -r --json TREE` should have reported,
made without elfpmd's code: walk TREE as the man page says a walk goes
(sorted, symbolic links not followed, directories named .build-id and those
ending in usr/lib/debug left out), group regular files by inode (the first
name is the file, the others further hard links), read each file's ELF
header and program headers here, and compare each name's bytes with the
same path under ORIG (the tree is a copy of ORIG's files).  Compare the
counts with the summary object, the last line of RUN_JSON, and write the
names whose bytes changed, relative to TREE and NUL-separated, to
CHANGED_LIST.  Exit 1 on any difference.
"""
import os
import stat
import struct
import sys

tree, orig, run_json, changed_list = sys.argv[1:5]


def pruned(path, name):
    return name == ".build-id" or path.endswith("/usr/lib/debug")


def elf_kind(path):
    """'not_elf', 'relocatable', 'core', 'other_type', 'no_program_headers',
    'no_load_segments', 'debug_file', 'no_pmd_size' or 'object' (an executable or shared
    object to process)."""
    with open(path, "rb") as f:
        ident = f.read(16)
        if len(ident) < 4 or ident[:4] != b"\x7fELF":
            return "not_elf"
        is64 = ident[4] == 2
        end = "<" if ident[5] == 1 else ">"
        f.seek(0)
        ehdr = f.read(64 if is64 else 52)
        if is64:
            (e_type, e_machine, _v, _entry, phoff, shoff, _fl, _eh, phentsize, phnum,
             shentsize, shnum, _shstrndx) = struct.unpack(end + "HHIQQQIHHHHHH", ehdr[16:64])
        else:
            (e_type, e_machine, _v, _entry, phoff, shoff, _fl, _eh, phentsize, phnum,
             shentsize, shnum, _shstrndx) = struct.unpack(end + "HHIIIIIHHHHHH", ehdr[16:52])
        if e_type == 1:
            return "relocatable"
        if e_type == 4:
            return "core"
        if e_type not in (2, 3):
            return "other_type"
        if phnum == 0:
            return "no_program_headers"
        loads = 0
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type = struct.unpack(end + "I", f.read(4))[0]
            loads += p_type == 1
        if loads == 0:
            return "no_load_segments"
        # A separate debug file: every allocated section but notes has no
        # contents (objcopy --only-keep-debug, eu-strip -f).
        if shoff != 0 and shnum != 0:
            alloc = nobits = 0
            for i in range(shnum):
                f.seek(shoff + i * shentsize)
                sh = f.read(shentsize)
                if is64:
                    sh_type, sh_flags = struct.unpack(end + "IQ", sh[4:16])
                else:
                    sh_type, sh_flags = struct.unpack(end + "II", sh[4:12])
                if sh_flags & 2 and sh_type != 7:  # SHF_ALLOC, not SHT_NOTE
                    alloc += 1
                    nobits += sh_type == 8
            if alloc > 0 and alloc == nobits:
                return "debug_file"
        # The machines with a PMD size (x86-64 and x32, i386, arm, aarch64,
        # ppc64; riscv64, s390x and loongarch64 in 64 bits only).
        if e_machine not in (62, 3, 40, 183, 21) and not (is64 and e_machine in (243, 22, 258)):
            return "no_pmd_size"
        return "object"


def same_bytes(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


count = {"files": 0, "hard_links": 0, "objects": 0, "changed": 0}
skipped = {}
changed_names = []
seen_inodes = {}


def walk(d):
    for name in sorted(os.listdir(d), key=os.fsencode):
        path = os.path.join(d, name)
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode):
            if not pruned(path, name):
                walk(path)
            continue
        count["files"] += 1
        rel = os.path.relpath(path, tree)
        if stat.S_ISLNK(st.st_mode):
            skipped["symlink"] = skipped.get("symlink", 0) + 1
            continue
        if not stat.S_ISREG(st.st_mode):
            skipped["not_regular"] = skipped.get("not_regular", 0) + 1
            continue
        differs = not same_bytes(path, os.path.join(orig, rel))
        if differs:
            changed_names.append(rel)
        key = (st.st_dev, st.st_ino)
        if key in seen_inodes:
            count["hard_links"] += 1
            continue
        seen_inodes[key] = rel
        kind = elf_kind(path)
        if kind != "object":
            skipped[kind] = skipped.get(kind, 0) + 1
            if differs:
                print(f"batch-count: {rel}: skipped ({kind}) but changed", file=sys.stderr)
                count["changed"] += 1000000
            continue
        count["objects"] += 1
        count["changed"] += differs


walk(tree)
summary = None
with open(run_json) as f:
    import json
    for line in f:
        row = json.loads(line)
        if "summary" in row:
            summary = row["summary"]
if summary is None:
    sys.exit("batch-count: no summary object in " + run_json)

ok = True


def expect(what, mine, theirs):
    global ok
    flag = "ok" if mine == theirs else "DIFFERS"
    print(f"  {what:24} independent {mine:6}  elfpmd {theirs:6}  {flag}")
    ok &= mine == theirs


print("independent count vs elfpmd's summary:")
expect("files", count["files"], summary["files"])
expect("changed (inodes)", count["changed"], summary["changed"])
unchanged = sum(summary[k] for k in ("already_aligned", "nothing_eligible", "padding_refused",
                                     "needs_padding"))
expect("processed, not changed", count["objects"] - count["changed"], unchanged)
expect("further hard links", count["hard_links"], summary["hard_links"])
expect("failed", 0, summary["failed"])
reasons = set(skipped) | set(summary["skipped_by_reason"])
for k in sorted(reasons):
    expect("skipped: " + k, skipped.get(k, 0), summary["skipped_by_reason"].get(k, 0))
print(f"  names whose bytes changed: {len(changed_names)}")
with open(changed_list, "wb") as f:
    for n in changed_names:
        f.write(os.fsencode(n) + b"\0")
sys.exit(0 if ok else 1)
