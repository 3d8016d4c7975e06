#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-madvise-structure.sh: each 17 MiB fixture given the stub is its
# original with the stub injected and nothing else changed.  phdr-dump
# --bytemap (an independent reader) checks every byte of the original
# where the map puts it, the stub's PT_LOAD, the moved objects, patched
# entries and symbols, the hook and the stub's target, the added sections;
# check_structure checks it another way: the same segments, their bytes
# unchanged (but DT_INIT's value for a library), one new R-X PT_LOAD after
# them.  eu-elflint --gnu-ld complains no more than about the original.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

madvise_setup
have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi

# check_structure IN OUT HOOK: OUT is IN plus the stub: the same ELF type,
# the same program headers in the same order (offsets and p_align may
# change, PT_PHDR moves), their bytes unchanged but for DT_INIT's value when
# HOOK is DT_INIT, plus one R-X PT_LOAD after every other segment; e_entry
# is in it when HOOK is e_entry, else unchanged.  The ELF header inside the
# first PT_LOAD is left out of the byte comparison.  Where the table grew in
# place (one more entry, same e_phoff), the PT_INTERP and PT_NOTE segments
# and hash tables that followed it may have moved into the stub's segment,
# byte for byte, with DT_HASH and DT_GNU_HASH following; their old place
# after the table is zero.  The desc of each GNU build-id note in a PT_NOTE
# is new (elfpmd derives one for a file it changes), of the same length:
# taken into IN's bytes before they are compared.
check_structure () {
	python3 - "$1" "$2" "$3" <("$PHDR_DUMP" "$1") <("$PHDR_DUMP" "$2") <<'EOF_PY'
import struct, sys
inp, out, hook, din, dout = sys.argv[1:]
def parse(f):
    eh, rows = None, []
    for line in open(f):
        w = line.split()
        if w[0] == "ehdr":
            eh = dict(x.split("=", 1) for x in w[1:])
        else:
            rows.append(dict(type=w[1], flags=w[2], off=int(w[3], 16), va=int(w[4], 16),
                             filesz=int(w[5], 16), memsz=int(w[6], 16), align=int(w[7], 16)))
    return eh, rows
e1, p1 = parse(din)
e2, p2 = parse(dout)
errors = []
for k in ("type", "class", "data"):
    if e1[k] != e2[k]:
        errors.append("ehdr %s %s -> %s" % (k, e1[k], e2[k]))
if e1["class"] != "64" or e1["data"] != "LSB":
    sys.exit("only ELF64 LSB is checked here")
loads1 = [p for p in p1 if p["type"] == "LOAD"]
end1 = max(p["va"] + p["memsz"] for p in loads1)
new = [p for p in p2 if p["type"] == "LOAD" and p["va"] >= end1]
if len(new) != 1:
    sys.exit("expected one new PT_LOAD after the old segments, found %d" % len(new))
stub = new[0]
if stub["flags"] != "R-X":
    errors.append("stub PT_LOAD flags %s" % stub["flags"])
if (stub["va"] - stub["off"]) % 4096:
    errors.append("stub PT_LOAD offset %#x not congruent with %#x" % (stub["off"], stub["va"]))
rest = [p for p in p2 if p is not stub]
# Where the table has a PT_NOTE that only repeats PT_GNU_PROPERTY, the new
# PT_LOAD takes its slot and the table stays where it was (GNU strip keeps
# such a file working); otherwise the table grows by one entry and moves
# into the stub's segment.
# The entry given up is a PT_NULL, a PT_NOTE that repeats PT_GNU_PROPERTY, or
# a shared object's PT_PHDR; the new PT_LOAD follows the last PT_LOAD.
reused = len(p2) == len(p1)
grown = len(p2) == len(p1) + 1 and e1["phoff"] == e2["phoff"]
if reused:
    prop = [p for p in p1 if p["type"] == "GNU_PROPERTY"]
    types = [p["type"] for p in rest]
    dropped = [j for j in range(len(p1)) if [p["type"] for p in p1[:j] + p1[j + 1:]] == types
               and (p1[j]["type"] == "NULL"
                    or (p1[j]["type"] == "NOTE" and prop and p1[j]["off"] == prop[0]["off"]
                        and p1[j]["filesz"] == prop[0]["filesz"])
                    or (p1[j]["type"] == "PHDR" and hook == "DT_INIT"))]
    if not dropped:
        errors.append("the stub's PT_LOAD replaced no entry that can go: %s -> %s"
                      % ([p["type"] for p in p1], types))
    else:
        j = dropped[0]
        p1 = p1[:j] + p1[j + 1:]
    last_load = max(i for i, p in enumerate(p2) if p["type"] == "LOAD")
    if p2[last_load] is not stub:
        errors.append("the stub's PT_LOAD is not the last PT_LOAD")
if [p["type"] for p in rest] != [p["type"] for p in p1]:
    errors.append("program header types %s -> %s" % ([p["type"] for p in p1], [p["type"] for p in rest]))
else:
    a, b = open(inp, "rb").read(), open(out, "rb").read()
    def build_ids(buf, off, size, align):
        """(offset in the notes, length) of the GNU build-id descs there."""
        align = 8 if align == 8 else 4
        at = 0
        while at + 12 <= size:
            namesz, descsz, typ = struct.unpack_from("<III", buf, off + at)
            desc = (at + 12 + namesz + align - 1) & ~(align - 1)
            nxt = (desc + descsz + align - 1) & ~(align - 1)
            if desc > size or descsz > size - desc or nxt <= at:
                break
            if typ == 3 and namesz == 4 and buf[off + at + 12:off + at + 16] == b"GNU\0":
                yield desc, descsz
            at = nxt
    a = bytearray(a)
    for old, nw in zip(p1, rest):
        if old["type"] == "NOTE":
            for k, n in list(build_ids(a, old["off"], old["filesz"], old["align"])):
                was, now = a[old["off"] + k:old["off"] + k + n], b[nw["off"] + k:nw["off"] + k + n]
                if was == now:
                    errors.append("the build-id at %#x was kept, not derived" % (old["off"] + k))
                a[old["off"] + k:old["off"] + k + n] = now
    a = bytes(a)
    stub_bytes = b[stub["off"]:stub["off"] + stub["filesz"]]
    def in_stub(p):
        return stub["va"] <= p["va"] and p["va"] + p["memsz"] <= stub["va"] + stub["memsz"]
    # A library's DT_INIT is redirected to the stub, and a moved hash
    # table's DT_HASH or DT_GNU_HASH follows it: their d_val may change.
    init_vals = set()
    hash_tags = (4, 0x6ffffef5) if grown else ()
    for o in p1:
        if o["type"] == "DYNAMIC":
            for i in range(0, o["filesz"] - 15, 16):
                tag = struct.unpack_from("<q", a, o["off"] + i)[0]
                if (tag == 12 and hook == "DT_INIT") or tag in hash_tags:
                    init_vals.add(o["va"] + i + 8)
                if tag == 0:
                    break
    for old, nw in zip(p1, rest):
        if old["type"] == "PHDR":
            if reused:
                if (old["va"], old["off"], old["filesz"]) != (nw["va"], nw["off"], nw["filesz"]):
                    errors.append("PT_PHDR moved although the table kept its size")
            elif grown:
                if (old["va"], old["off"], old["filesz"] + 56) != (nw["va"], nw["off"], nw["filesz"]):
                    errors.append("PT_PHDR does not describe the table grown by one entry")
            elif not in_stub(nw):
                errors.append("PT_PHDR not inside the stub PT_LOAD")
            continue
        if grown and old["type"] in ("INTERP", "NOTE", "GNU_PROPERTY") and old["va"] != nw["va"]:
            if not in_stub(nw) or (nw["va"] - nw["off"]) != (stub["va"] - stub["off"]):
                errors.append("moved %s at %#x is not inside the stub PT_LOAD" % (old["type"], nw["va"]))
            elif a[old["off"]:old["off"] + old["filesz"]] != b[nw["off"]:nw["off"] + nw["filesz"]]:
                errors.append("moved %s at %#x: its bytes changed" % (old["type"], nw["va"]))
            old = dict(old, va=nw["va"])
        for k in ("flags", "va", "filesz", "memsz"):
            if old[k] != nw[k]:
                errors.append("%s at %#x: %s %s -> %s" % (old["type"], old["va"], k, old[k], nw[k]))
        if old["type"] != "LOAD":
            continue
        x = bytearray(a[old["off"]:old["off"] + old["filesz"]])
        y = bytearray(b[nw["off"]:nw["off"] + nw["filesz"]])
        if old["off"] == 0:
            # The ELF header (e_entry, e_phoff, e_shoff, the counts) is
            # checked above and below, not byte for byte.
            x[:64] = y[:64]
        if reused or grown:
            # The program header table, rewritten in place, is compared
            # entry by entry above.
            phoff, size = int(e1["phoff"], 16), 56 * (len(p1) + 1)
            if old["off"] <= phoff and phoff + size <= old["off"] + old["filesz"]:
                k = phoff - old["off"]
                x[k:k + size] = y[k:k + size]
                if grown:
                    # What followed the table: zero now, and found in the
                    # stub's segment.
                    d = [i for i in range(k + size, len(x)) if x[i] != y[i]]
                    if d and (any(y[i] for i in d)
                              or bytes(x[d[0]:d[-1] + 1]) not in stub_bytes):
                        errors.append("bytes after the grown table at +%#x..+%#x changed, "
                                      "not moved into the stub's segment" % (d[0], d[-1]))
                    for i in d:
                        x[i] = y[i]
        for va in init_vals:
            if old["va"] <= va and va + 8 <= old["va"] + old["filesz"]:
                k = va - old["va"]
                x[k:k + 8] = y[k:k + 8]
        if x != y:
            diffs = [i for i in range(min(len(x), len(y))) if x[i] != y[i]]
            errors.append("PT_LOAD at %#x: %d bytes changed (first at +%#x)%s" % (
                old["va"], len(diffs), diffs[0] if diffs else 0,
                "" if len(x) == len(y) else ", size %d -> %d" % (len(x), len(y))))
    if hook == "DT_INIT" and not init_vals:
        errors.append("the library has no DT_INIT to chain (hook %s)" % hook)
entry1, entry2 = int(e1["entry"], 16), int(e2["entry"], 16)
if hook == "e_entry":
    if not (stub["va"] <= entry2 < stub["va"] + stub["filesz"]):
        errors.append("e_entry %#x not in the stub PT_LOAD" % entry2)
elif entry1 != entry2:
    errors.append("e_entry %#x -> %#x for a %s hook" % (entry1, entry2, hook))
if errors:
    sys.exit("; ".join(errors[:6]))
print("stub PT_LOAD %s at %#x (%#x bytes), other segments and their bytes as before" % (
    stub["flags"], stub["va"], stub["filesz"]))
EOF_PY
}

structure () {
	local msg
	mad_rewrite || return
	$have_elflint && lint_before=$(elflint_count "$w/orig/$file")
	check_elflint "$r" "--madvise"
	check_bytemap "$w/orig/$file" "$r" "$hook"
	if msg=$(check_structure "$w/orig/$file" "$r" "$hook" 2>&1); then
		pass "$name: structure: $msg"
	else
		fail "$name: structure: $msg"
	fi
}
for_each_mad_fixture structure
finish
