#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# fixture-report.py REPORT FILE TYPE MUST PMD OLD NEW EHDR: the elfpmd -n
# --json report REPORT of FILE is one JSON object that agrees with
# phdr-dump's view of the file (tests/run-fixtures-json.sh): TYPE the
# "type" it must give, MUST "yes" when it must change, OLD and NEW the
# PT_LOADs' alignments in the file and as predicted for the relaxed rule
# (index and p_align a line), EHDR phdr-dump's first line.  Prints a
# summary, or exits non-zero with what disagrees.
import json, sys
report, path, want_type, must, pmd, old_f, new_f, ehdr_f = sys.argv[1:]
pmd = int(pmd, 0)
want_type = want_type.replace("_", " ")
errors = []
lines = open(report).read().splitlines()
if len(lines) != 1:
    sys.exit("expected exactly one line of output, got %d" % len(lines))
try:
    r = json.loads(lines[0])
except ValueError as e:
    sys.exit("not JSON: %s" % e)
if not isinstance(r, dict):
    sys.exit("not a JSON object")
for key in ("file", "machine", "class", "byte_order", "type", "pmd_size", "changed",
            "segments", "pmd_chunks_before", "pmd_chunks_after", "aslr_bits_lost"):
    if key not in r:
        errors.append("key %r missing" % key)
if errors:
    sys.exit("; ".join(errors))
old = {int(i): int(a, 16) for i, a in (l.split() for l in open(old_f))}
new = {int(i): int(a, 16) for i, a in (l.split() for l in open(new_f))}
exec_type = "type=EXEC" in open(ehdr_f).read()
would_change = any(new[i] != old[i] for i in old)
if r["file"] != path:
    errors.append("file is %r, not %r" % (r["file"], path))
if r["type"] != want_type:
    errors.append("type is %r, not %r" % (r["type"], want_type))
if r["pmd_size"] != pmd:
    errors.append("pmd_size is %r, not %d" % (r["pmd_size"], pmd))
if r["changed"] is not would_change:
    errors.append("changed is %r, phdr-dump predicts %r" % (r["changed"], would_change))
if must == "yes" and r["changed"] is not True:
    errors.append("changed must be true for this fixture")
seen = set()
for s in r["segments"] if isinstance(r["segments"], list) else []:
    i = s.get("index")
    if i in new:
        seen.add(i)
        if s.get("align") != old[i]:
            errors.append("segment %d: align %r, file says %#x" % (i, s.get("align"), old[i]))
        if s.get("new_align") != new[i]:
            errors.append("segment %d: new_align %r, predicted %#x" % (i, s.get("new_align"), new[i]))
if seen != set(new):
    errors.append("segments lists PT_LOADs %s, the file has %s" % (sorted(seen), sorted(new)))
b, a = r["pmd_chunks_before"], r["pmd_chunks_after"]
if not (isinstance(b, int) and isinstance(a, int) and 0 <= b <= a):
    errors.append("pmd_chunks_before %r, pmd_chunks_after %r" % (b, a))
if would_change and not a > 0:
    errors.append("pmd_chunks_after is %r although a segment gets aligned" % a)
# A PIE or shared object's load base is aligned to its largest p_align.
bits = 0
if not exec_type:
    before, after = max(old.values()), max(new.values())
    while before and after > before:
        before *= 2
        bits += 1
if r["aslr_bits_lost"] != bits:
    errors.append("aslr_bits_lost %r, expected %d" % (r["aslr_bits_lost"], bits))
if errors:
    sys.exit("; ".join(errors))
print("changed=%s type=%r chunks %d -> %d, aslr_bits_lost %d" % (r["changed"], r["type"], b, a, bits))
