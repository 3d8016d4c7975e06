#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status.sh: elfpmd status, the report of which running programs have
# their text on PMD pages.  Programs with 17 MiB of text
# (tests/fixtures madbig.S, madmain.c with FIXTURE_PAUSE: they stay, text
# mapped, until killed) run paused:
#   orig   mad-pie as linked (not aligned)
#   align  elfpmd's rewrite without the stub
#   mad    elfpmd --madvise's rewrite
#   lib    usemadbig with libmadbig.so rewritten by --madvise
#   gone   a copy of mad deleted while it runs
#   moved  a copy of mad renamed while it runs (to old), and another file
#          given its name
# and elfpmd status --json PID... must say for each of them what an
# independent reading says (a Python parser of /proc/PID/smaps and
# tests/phdr-dump, sharing no code with elfpmd):
#   - whole_chunks: the 2 MiB chunks of the object's executable mappings
#     whose address and file offset are both 2 MiB-aligned;
#   - file_pmd_mapped_kb: the FilePmdMapped of those mappings, summed, and
#     pmd_mapped_chunks that divided by 2 MiB;
#   - aligned, stub, gain_chunks: orig not aligned, gaining what phdr-dump
#     counts in align's file; align aligned without the stub; mad, lib,
#     gone and moved aligned with the stub (gone and moved are read through
#     /proc/PID/map_files, as root);
#   - mad's text on PMD pages (>= 95% of the ideal) where file THP works
#     here (fixtures/pagecache.c probe), so that the sums are not all 0;
#   - touched_chunks: the whole chunks with a page present or swapped in
#     /proc/PID/pagemap (read here), small_chunks those of them not on huge
#     pages, unused_chunks the rest of the whole ones;
#   - jit: a Python process with 8 MiB of anonymous executable memory on
#     huge pages (MADV_HUGEPAGE): counted as anon_exec_huge_kb (JIT code),
#     not as text;
#   - the JSON schema: every process object and the summary with their
#     keys and types; the summary's totals are the sums of the rows;
#   - the text report: a row per object with the same figures, and the
#     summary line;
#   - without PIDs, every paused program is among the processes listed;
#   - as nobody (setpriv): the root-owned processes are counted unreadable
#     and skipped, and named (the paused mad-pie among them), exit 0; a root-owned PID named: exit 1, one line naming
#     it; a PID that does not exist: exit 1; "abc": usage error, 64;
#   - a file named status is still reachable as ./status.
#
# Needs python3; the nobody checks need root and setpriv.  Fixtures are
# built into $TESTS_BUILDDIR/status-build.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=$((0x200000))
pids=()

require_elfpmd
page_cache_lock
have python3 || skip_all "python3 not found (reads smaps and the JSON report)"
[ -r /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ] \
	|| skip_all "kernel without transparent huge pages (elfpmd status has nothing to report)"
[ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)" = "$PMD" ] \
	|| skip_all "this test's fixtures are made for a 2 MiB PMD"

work_dir

# Stop every program this test started, by PID, whatever happens.
cleanup () {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT

built_any=false
for t in mad-pie mad-lib mad-tools; do
	build_or_skip "$t" "$t" && built_any=true
done
stop_unless_built
[ -x "$O/mad-pie" ] || skip_all "mad-pie could not be built"

file_thp=false
if [ -x "$O/pagecache" ]; then
	head -c $((4 << 20)) /dev/urandom >"$WORK/probe.dat"
	if probe=$("$O/pagecache" probe "$WORK/probe.dat" 2>&1); then
		file_thp=true
	fi
	note "file THP probe here: ${probe:-none}"
	rm -f "$WORK/probe.dat"
fi

mkdir -p "$WORK/orig" "$WORK/align" "$WORK/mad" "$WORK/lib" "$WORK/gone" "$WORK/moved"
cp "$O/mad-pie" "$WORK/orig/mad-pie"
"$ELFPMD" -q -o "$WORK/align/mad-pie" "$O/mad-pie" || hard_error "elfpmd fails on mad-pie"
"$ELFPMD" -q --madvise -o "$WORK/mad/mad-pie" "$O/mad-pie" || hard_error "elfpmd --madvise fails on mad-pie"
cp "$WORK/mad/mad-pie" "$WORK/gone/mad-pie"
cp "$WORK/mad/mad-pie" "$WORK/moved/mad-pie"
have_lib=false
if [ -x "$O/usemadbig" ] && "$ELFPMD" -q --madvise -o "$WORK/lib/libmadbig.so" "$O/libmadbig.so"; then
	have_lib=true
fi

start_paused orig "$WORK/orig/mad-pie"
start_paused align "$WORK/align/mad-pie"
start_paused mad "$WORK/mad/mad-pie"
labels="orig align mad"
if $have_lib; then
	start_paused lib "$O/usemadbig" "$WORK/lib"
	labels="$labels lib"
fi
start_paused gone "$WORK/gone/mad-pie"
rm -f "$WORK/gone/mad-pie"
start_paused moved "$WORK/moved/mad-pie"
mv "$WORK/moved/mad-pie" "$WORK/moved/old"
cp "$O/mad-pie" "$WORK/moved/mad-pie"
labels="$labels gone moved"

# jit: anonymous executable memory on huge pages, as a JIT compiler has it
# (QEMU's code buffer): 8 MiB, MADV_HUGEPAGE, written; paused until killed.
have_jit=false
python3 -c '
import mmap, signal, sys
m = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
              prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.madvise(mmap.MADV_HUGEPAGE)
for i in range(0, 8 << 20, 4096):
    m[i] = 0xc3
open(sys.argv[1], "w").write("ready\n")
signal.pause()' "$WORK/jit.ready" >"$WORK/jit.out" 2>&1 &
pid_jit=$!
pids+=("$pid_jit")
n=0
while [ ! -s "$WORK/jit.ready" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
jit_kb=$(awk '/^AnonHugePages:/ { s += $2 } END { print s + 0 }' "/proc/$pid_jit/smaps" 2>/dev/null)
if [ -s "$WORK/jit.ready" ] && [ "${jit_kb:-0}" -gt 0 ]; then
	have_jit=true
else
	note "no anonymous huge pages for the JIT-like process ($(head -1 "$WORK/jit.out")): its checks are skipped"
fi

# ideal: whole chunks of align's file (phdr-dump; what aligning adds to orig).
ideal=$(ideal_chunks "$WORK/align/mad-pie")
ideal_lib=0
$have_lib && ideal_lib=$(ideal_chunks "$WORK/lib/libmadbig.so")
note "whole chunks once aligned: mad-pie $ideal, libmadbig.so $ideal_lib"

# expect LABEL: the object each labelled process is checked on, and what its
# file must say (aligned stub gain).
declare -A object expect
for l in $labels; do object[$l]=mad-pie; done
expect[orig]="false false $ideal"
expect[align]="true false 0"
expect[mad]="true true 0"
expect[lib]="true true 0"
expect[gone]="true true 0"
expect[moved]="true true 0"
object[lib]=libmadbig.so
object[moved]=old

pid_list=()
spec=()
for l in $labels; do
	p=pid_$l
	pid_list+=("${!p}")
	spec+=("$l:${!p}:${object[$l]}:${expect[$l]// /,}")
done

"$ELFPMD" status --json "${pid_list[@]}" >"$WORK/status.json" 2>"$WORK/status.err"
rc=$?
check "status --json of ${#pid_list[@]} processes exits 0 (got $rc)" [ $rc = 0 ]
check "status --json prints nothing on stderr" [ ! -s "$WORK/status.err" ]

# The independent reading, and the comparison: one line per check, PASS or
# FAIL, from Python.
python3 - "$WORK/status.json" "$PMD" "$file_thp" "${spec[@]}" >"$WORK/compare.out" 2>&1 <<'EOF'
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
EOF
while IFS= read -r line; do
	case $line in
	PASS:*) pass "${line#PASS: }" ;;
	FAIL:*) fail "${line#FAIL: }" ;;
	*) note "$line" ;;
	esac
done <"$WORK/compare.out"

# The text report: the same figures, a row per object, the summary line.
"$ELFPMD" status "${pid_list[@]}" >"$WORK/status.txt" 2>&1
rc=$?
check "status (text) exits 0 (got $rc)" [ $rc = 0 ]
row=$(awk -v p="$pid_mad" '$1 == p && $NF ~ /\/mad\/mad-pie$/' "$WORK/status.txt")
json_row=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("pid") == int(sys.argv[2]):
        o = [o for o in d["objects"] if o["path"].endswith("/mad/mad-pie")][0]
        print("%d/%d %d yes yes" % (o["pmd_mapped_chunks"], o["whole_chunks"], o["file_pmd_mapped_kb"]))' \
	"$WORK/status.json" "$pid_mad")
got_row=$(echo "$row" | awk '{ print $4, $5, $7, $8 }')
check "text row of mad says what the JSON says ($json_row; row: $row)" [ "$got_row" = "$json_row" ]
row=$(awk -v p="$pid_orig" '$1 == p && $NF ~ /\/orig\/mad-pie$/' "$WORK/status.txt")
check "text row of orig says not aligned, +$ideal chunks ($row)" [ "$(echo "$row" | awk '{ print $7 }')" = "no,+$ideal" ]
check "text report ends with the summary line" grep -q "^elfpmd status: ${#pid_list[@]} processes, " "$WORK/status.txt"

# The JIT-like process: its anonymous executable huge pages are JIT code,
# not text: anon_exec_huge_kb, and nothing in the summary's text figures.
if $have_jit; then
	"$ELFPMD" status --json "$pid_jit" >"$WORK/jit.json" 2>&1
	python3 - "$WORK/jit.json" "$pid_jit" "$jit_kb" >"$WORK/jit.cmp" 2>&1 <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
pid, kb = int(sys.argv[2]), int(sys.argv[3])
p = [d for d in docs[:-1] if d.get("pid") == pid]
s = docs[-1]["summary"]
ok = (len(p) == 1 and p[0]["anon_exec_huge_kb"] >= kb and p[0]["objects"] == []
      and s["anon_exec_huge_kb"] == p[0]["anon_exec_huge_kb"] and s["anon_text_huge_kb"] == 0
      and s["whole_chunks"] == 0)
print("ok" if ok else "bad: %s" % docs)
PY
	check "JIT memory ($jit_kb kB on huge pages) is anon_exec_huge_kb, not text ($(head -c 200 "$WORK/jit.cmp"))" \
		grep -qx ok "$WORK/jit.cmp"
	"$ELFPMD" status "$pid_jit" >"$WORK/jit.txt" 2>&1
	check "the text report calls it JIT code, not text" grep -q "anonymous executable memory on huge pages (JIT code, not" "$WORK/jit.txt"
	check "and the summary line does not count it as text" \
		sh -c "! tail -1 '$WORK/jit.txt' | grep -q 'anonymous text'"
else
	skip "no anonymous huge pages here: the JIT checks"
fi

# Without PIDs: every process this user can read, ours among them.
"$ELFPMD" status --json >"$WORK/all.json" 2>"$WORK/all.err"
rc=$?
check "status --json of every process exits 0 (got $rc)" [ $rc = 0 ]
missing=
for p in "${pid_list[@]}"; do
	grep -q "^{\"pid\":$p," "$WORK/all.json" || missing="$missing $p"
done
check "status without PIDs lists every paused program${missing:+ (missing:$missing)}" [ -z "$missing" ]
"$ELFPMD" status -q >"$WORK/quiet.txt" 2>&1
check "status -q prints the summary line only" [ "$(wc -l <"$WORK/quiet.txt")" = 1 ]

# Errors.
"$ELFPMD" status 2147483646 >/dev/null 2>"$WORK/nopid.err"
rc=$?
holds "a PID that does not exist: exit 1 (got $rc), one line naming it" \
	'[ $rc = 1 ] && [ "$(cat "$WORK/nopid.err")" = "elfpmd status: 2147483646: no such process" ]'
"$ELFPMD" status abc >/dev/null 2>&1
rc=$?
check "status abc: usage error 64 (got $rc)" [ $rc = 64 ]

# A file named status is still a file: ./status.
cp "$O/mad-pie" "$WORK/status"
(cd "$WORK" && "$ELFPMD" -n ./status) >"$WORK/file-status.out" 2>&1
rc=$?
holds "elfpmd -n ./status reports on the file status (exit $rc)" \
	'[ $rc = 0 ] && grep -q "^\./status: x86-64" "$WORK/file-status.out"'

if [ "$(id -u)" = 0 ] && have setpriv; then
	as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
	"${as_nobody[@]}" "$ELFPMD" status --json >"$WORK/nobody.json" 2>"$WORK/nobody.err"
	rc=$?
	unreadable=$(tail -1 "$WORK/nobody.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["unreadable"])' 2>/dev/null)
	holds "as nobody: exit 0 (got $rc), root's processes counted unreadable (${unreadable:-none})" \
		'[ $rc = 0 ] && [ "${unreadable:-0}" -gt 0 ]'
	check "as nobody: no line on stderr for the unreadable ones" [ ! -s "$WORK/nobody.err" ]
	named=$(tail -1 "$WORK/nobody.json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
u = s["unreadable_processes"]
print(len(u) == s["unreadable"] and any(x["pid"] == int(sys.argv[1]) and x["comm"] == "mad-pie" for x in u))' "$pid_mad" 2>&1)
	check "as nobody: the unreadable processes are named, mad-pie ($pid_mad) among them ($named)" [ "$named" = True ]
	"${as_nobody[@]}" "$ELFPMD" status >"$WORK/nobody.txt" 2>&1
	check "as nobody: the text summary names unreadable processes" \
		grep -Eq "unreadable, skipped: [0-9]+ [^ ]" "$WORK/nobody.txt"
	"$ELFPMD" status "$pid_mad" >/dev/null 2>&1
	"${as_nobody[@]}" "$ELFPMD" status "$pid_mad" >/dev/null 2>"$WORK/nobody1.err"
	rc=$?
	holds "as nobody, root's PID named: exit 1 (got $rc), one line naming it ($(cat "$WORK/nobody1.err"))" \
		'[ $rc = 1 ] && [ "$(wc -l <"$WORK/nobody1.err")" = 1 ] && grep -q "status: $pid_mad: " "$WORK/nobody1.err"'
else
	skip "not root or no setpriv: the unreadable-process checks"
fi

finish
