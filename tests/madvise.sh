#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# madvise.sh: the body of the run-madvise-*.sh tests, one per fixture and
# one for xfs (MADVISE_PARTS below).  elfpmd --madvise, the startup stub that gets the aligned
# text onto PMD (2 MiB) pages at run time (DESIGN.md sections 3, 5 and 6).
# For programs and a shared library with 17 MiB of text (tests/fixtures
# madbig.S; gcc PIE, gcc -no-pie, gcc -static-pie, a gcc shared library used
# by a gcc PIE, an lld PIE that needs padding):
#   - -n --json --madvise reports "stub":{"injected":true,...} with the hook
#     (e_entry, DT_INIT for the library) and as many chunks as the rewritten
#     file's program headers allow (counted here from tests/phdr-dump);
#   - the rewritten copy prints what the original prints and exits 42;
#   - eu-elflint --gnu-ld complains no more than about the original;
#   - phdr-dump --bytemap (an independent reader) proves that the rewritten
#     file is the original with the stub injected and nothing else changed:
#     every byte of the original where the map puts it, the stub's PT_LOAD,
#     the moved objects, patched entries and symbols, the hook and the stub's
#     target, the added sections, each checked for what it must be; and the
#     file is checked structurally as well: the same segments, their bytes
#     unchanged (but DT_INIT's value for a library), one new R-X PT_LOAD
#     after them;
#   - a second elfpmd --madvise leaves the file byte for byte as it was;
#   - coverage: FilePmdMapped of the object's VMAs, summed, in
#     /proc/PID/smaps while the program runs (the fixture copies its smaps to
#     $FIXTURE_SMAPS), must be >= 95% of the ideal (whole 2 MiB chunks of the
#     text) in three page cache states: cold (sync; drop_caches), warm (the
#     second of two runs) and order-0 (caches dropped, then the whole file
#     read through a MADV_RANDOM mapping, so that it is cached in 4 KiB
#     folios);
#   - the same coverage for the first run of a copy just written (dirty
#     order-0 pages), for three runs started at once on an order-0 cache,
#     and for a
#     rewrite with --populate-max=0 (the stub samples the range; cold, warm
#     and order-0);
#   - with PR_SET_THP_DISABLE (fixtures/thp-off.c) the program prints the
#     same and gets no PMD mapping;
#   - under valgrind and gdb, and with the stub's system calls failing
#     (strace fault injection), it prints the same;
#   - strip and eu-strip of the rewritten file keep the stub working;
#   - on an xfs image (loop mount; skipped without mkfs.xfs or loop
#     devices) with read_ahead_kb 128, the PIE's coverage cold, warm,
#     order-0, fresh and three at once, and the disk reads of a cold start
#     that runs none of the text (FIXTURE_NO_TEXT): at most 3 chunks more
#     than the original's, since the stub leaves the chunks the program
#     never reaches unread.
#
# Needs root (drop_caches, /proc/kpageflags), THP not [never], and file THP
# working on the file system of $TESTS_BUILDDIR (probed with
# fixtures/pagecache.c, independently of elfpmd); skipped (77) otherwise.
# Fixtures are built into $TESTS_BUILDDIR/madvise-build; the work files of a
# failed fixture are kept there.
#
# Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and TESTS_BUILDDIR
# set, or by hand from the source tree: bash tests/madvise.sh, all parts, or
# MADVISE_PARTS="lib xfs" bash tests/madvise.sh (see tests/lib.sh for the
# defaults).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=$((0x200000))
MIN_PERCENT=95		# coverage required in every cache state
ARGS=(alpha "beta gamma")	# arguments of every fixture run
O=$TESTS_BUILDDIR/madvise-build
# MADVISE_PARTS: the fixtures (pie nopie static-pie lib lld-pie) and xfs,
# each a test of its own (run-madvise-PART.sh) working in work-PART.
MADVISE_PARTS=${MADVISE_PARTS:-pie nopie static-pie lib lld-pie xfs}
want_part () { case " $MADVISE_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
WORK=$O/work-${MADVISE_PARTS// /-}
started=$SECONDS

require_elfpmd
require_root_thp "drop_caches for the cold and order-0 cache states, /proc/kpageflags"
page_cache_lock
have python3 || skip_all "python3 not found (reads the JSON report and the files' bytes)"

rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"
require_phdr_dump "$WORK/tools"

build_fixture mad-tools || skip_all "cannot build the helpers (fixtures/pagecache.c, thp-off.c): $(tail -1 "$O/mad-tools.log")"
PAGECACHE=$O/pagecache
THP_OFF=$O/thp-off

# Does file THP work here at all (elfpmd plays no part in this)?
require_file_thp "$WORK"

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
have_valgrind=false
if have valgrind; then have_valgrind=true; else skip "valgrind not found: valgrind runs skipped"; fi
have_gdb=false
if have gdb; then have_gdb=true; else skip "gdb not found: debugger runs skipped"; fi
have_strace=false
if have strace; then have_strace=true; else skip "strace not found: runs with failing system calls skipped"; fi

# The fixtures, one per line:
#   NAME  TARGET  FILE  PROGRAM  HOOK
# TARGET is the tests/fixtures/Makefile target; FILE the file rewritten;
# PROGRAM what runs (FILE itself, or a program that loads the library FILE
# from LD_LIBRARY_PATH); HOOK how the stub must be hooked (the start of the
# report's "hook").
FIXTURES='
pie         mad-pie         mad-pie         mad-pie         e_entry
nopie       mad-nopie       mad-nopie       mad-nopie       e_entry
static-pie  mad-static-pie  mad-static-pie  mad-static-pie  e_entry
lib         mad-lib         libmadbig.so    usemadbig       DT_INIT
lld-pie     mad-lld-pie     mad-lld-pie     mad-lld-pie     e_entry
'

# run_as DIR OUT [WRAPPER...]: run the current fixture with the file in DIR,
# under WRAPPER... when given; stdout and "exit status N" into OUT, stderr
# into OUT.err.  The library is found through LD_LIBRARY_PATH=DIR.  Reads
# prog, file, ARGS, O.
run_as () {
	local dir=$1 out=$2 exe status
	shift 2
	if [ "$prog" = "$file" ]; then exe=$dir/$file; else exe=$O/$prog; fi
	# (the group's 2>/dev/null keeps bash's "Segmentation fault" notice off
	# the log; the status says it)
	{ LD_LIBRARY_PATH=$dir timeout 60 "$@" "$exe" "${ARGS[@]}" >"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
}

# same_output OUT WHAT: OUT is what the original printed; PASS or FAIL.
same_output () {
	if cmp -s "$w/orig.out" "$1"; then
		pass "$name: $2: prints the same and exits 42"
		return 0
	fi
	fail "$name: $2: prints something else than the original"
	diff "$w/orig.out" "$1" | head -10 | sed 's/^/      /'
	sed 's/^/      stderr: /' "$1.err" | head -5
	return 1
}

# coverage STATE DIR OBJECT [WRAPPER...]: run the fixture with the file in
# DIR (under WRAPPER...), taking its smaps copy; then check_coverage.
coverage () {
	local state=$1 dir=$2 object=$3
	shift 3
	rm -f "$w/smaps.$state"
	FIXTURE_SMAPS=$w/smaps.$state run_as "$dir" "$w/$state.out" "$@"
	check_coverage "$state" "$object"
}

# check_coverage STATE OBJECT: the run STATE (its output $w/STATE.out, its
# smaps copy $w/smaps.STATE) printed what the original prints, and
# FilePmdMapped of OBJECT is at least MIN_PERCENT of the ideal.
check_coverage () {
	local state=$1 object=$2 smaps=$w/smaps.$1 kb want ideal
	same_output "$w/$state.out" "$state run" || return 0
	if [ ! -s "$smaps" ]; then fail "$name: $state: the program wrote no smaps copy"; return 0; fi
	ideal=$(ideal_chunks "$object")
	want=$((ideal * PMD / 1024))
	kb=$(pmd_kb "$smaps" "$object")
	cov_line="$cov_line $state $kb/$want"
	if [ "$want" -eq 0 ]; then
		fail "$name: $state: no whole PMD chunk in the text to measure"
	elif [ $((kb * 100)) -ge $((want * MIN_PERCENT)) ]; then
		pass "$name: $state: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))%"
	else
		fail "$name: $state: FilePmdMapped $kb kB of $want kB ideal ($ideal chunks): $((kb * 100 / want))% < $MIN_PERCENT%"
		awk -v ino="$(stat -c %i "$object")" '/^[0-9a-f]+-[0-9a-f]+ / { cur = $5 == ino; if (cur) hdr = $0; next }
			cur && $1 == "FilePmdMapped:" { print "      " hdr "  FilePmdMapped " $2 " kB" }' "$smaps"
	fi
}

# coverage_concurrent N DIR OBJECT: N runs of the fixture started at once
# (states concurrent1 to concurrentN), each checked by check_coverage.
# When one falls short, the order-0 state is made again and the N runs
# repeated once, and only that second round counts, the first one noted
# (never when a run printed something else than the original):
# on a loaded machine (make -j2 check beside run-malformed's workers) a
# start that repairs can be preempted past the 15 ms the others wait for
# it to finish one more chunk (elfpmd-stub(7), SECURITY), and the three then
# repair at once (seen in one of five runs on 2026-12-02, before the
# waiters followed the repairer's work and a chunk read back in small
# folios was read again: 2 of 14 MiB each); twice in a row is a failure.
coverage_concurrent () {
	local count=$1 dir=$2 object=$3 k round short
	for round in 1 2; do
		local pids=()
		for ((k = 1; k <= count; k++)); do
			rm -f "$w/smaps.concurrent$k"
			FIXTURE_SMAPS=$w/smaps.concurrent$k run_as "$dir" "$w/concurrent$k.out" &
			pids+=($!)
		done
		wait "${pids[@]}"
		short=
		# A run that printed something else is never run again: it fails.
		for ((k = 1; k <= count; k++)); do
			cmp -s "$w/orig.out" "$w/concurrent$k.out" || break 2
		done
		for ((k = 1; k <= count; k++)); do
			local kb want
			want=$(($(ideal_chunks "$object") * PMD / 1024))
			kb=$(pmd_kb "$w/smaps.concurrent$k" "$object" 2>/dev/null)
			[ $((${kb:-0} * 100)) -ge $((want * MIN_PERCENT)) ] || short="$short concurrent$k:${kb:-0}/$want"
		done
		[ -z "$short" ] && break
		[ "$round" = 1 ] || break
		note "$name: $count at once, first round short ($short kB): made the order-0 state again, once more"
		drop_caches
		"$PAGECACHE" order0 "$object" >/dev/null 2>&1
	done
	for ((k = 1; k <= count; k++)); do
		check_coverage "concurrent$k" "$object"
	done
}

# coverage_small_folios DIR FRESH: the states the stub repairs, for the
# current fixture's file in DIR ($r): cached in order-0 folios (the note
# says whether the state was reached); a copy just written into FRESH in
# 4 KiB writes, as a package manager may write it (its pages are dirty
# order-0 folios, which cannot be dropped before they are written back);
# three copies of the program started at once on an order-0 cache (each
# must get its text PMD-mapped, not keep the others' small folios alive).
coverage_small_folios () {
	local dir=$1 fresh=$2 o0
	drop_caches
	o0=$("$PAGECACHE" order0 "$r" 2>&1)
	note "$name: $o0"
	case $o0 in *" 0 in large folios") ;; *) note "$name: order-0 state not reached: some pages are in large folios" ;; esac
	coverage order-0 "$dir" "$r"
	mkdir -p "$fresh"
	dd if="$r" of="$fresh/$file" bs=4k status=none
	chmod 755 "$fresh/$file"
	coverage fresh "$fresh" "$fresh/$file"
	drop_caches
	"$PAGECACHE" order0 "$r" >/dev/null 2>&1
	coverage_concurrent 3 "$dir" "$r"
}

# check_report JSON HOOK IDEAL: the dry run's "stub" object: injected, hooked
# as HOOK says, IDEAL chunks.
check_report () {
	python3 - "$@" <<'EOF'
import json, sys
path, hook, ideal = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path).read().splitlines()
if len(lines) != 1:
    sys.exit("expected one line of JSON, got %d" % len(lines))
try:
    r = json.loads(lines[0])
except ValueError as e:
    sys.exit("not JSON: %s" % e)
s = r.get("stub")
if not isinstance(s, dict):
    sys.exit("no \"stub\" object")
errors = []
if s.get("injected") is not True:
    errors.append("injected is %r (%s)" % (s.get("injected"), s.get("reason")))
if not str(s.get("hook", "")).startswith(hook):
    errors.append("hook %r, expected %s" % (s.get("hook"), hook))
if s.get("chunks") != ideal:
    errors.append("chunks %r, the program headers allow %d" % (s.get("chunks"), ideal))
if not isinstance(s.get("ranges"), int) or s.get("ranges") < 1:
    errors.append("ranges %r" % s.get("ranges"))
if errors:
    sys.exit("; ".join(errors))
print("hook %r, %d range(s), %d chunks, stub of %s bytes at offset %#x" % (
    s["hook"], s["ranges"], s["chunks"], s.get("size"), s.get("segment_offset", 0)))
EOF
}

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
	python3 - "$1" "$2" "$3" <("$PHDR_DUMP" "$1") <("$PHDR_DUMP" "$2") <<'EOF'
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
EOF
}

# check_bytemap IN OUT HOOK: phdr-dump --bytemap accepts OUT as IN with the
# stub injected, hooked as HOOK says (e_entry or DT_INIT); a refusal, for
# whatever reason, is a failure.
check_bytemap () {
	local msg first
	if ! msg=$("$PHDR_DUMP" --bytemap "$1" "$2" 2>&1); then
		fail "$name: phdr-dump --bytemap: the rewritten file is not the original with the stub injected"
		printf '%s\n' "$msg" | head -10 | sed 's/^/      /'
		return
	fi
	first=$(printf '%s\n' "$msg" | grep -m1 '^bytemap ok')
	case $first in
	*"; stub: "*", hook $3"*) pass "$name: phdr-dump --bytemap: $first" ;;
	*"; stub: "*) fail "$name: phdr-dump --bytemap: the stub is not hooked through $3: $first" ;;
	*) fail "$name: phdr-dump --bytemap finds no stub in the rewritten file: $first" ;;
	esac
}

# The stub's system calls that the loader and libc do not make while a
# fixture starts, so that strace can make them fail for the stub alone.
# (openat, read, pread64, close, fstat and mmap are the loader's too: the
# seccomp cases of invisible.sh cover them.)
STUB_ONLY_CALLS=prctl,uname,statfs,fstatfs,madvise,ioctl,mincore,fadvise64,sync_file_range,flock,clock_nanosleep

# strace_case LABEL CALLS [DIR FILE]: run under strace with CALLS (comma
# list) made to fail with ENOSYS, after $r was cached in order-0 folios (or
# with DIR/FILE as it is), so that the stub goes down its repair path: the
# output must be the original's, and the stub must have made at least one
# of them (strace marks them INJECTED).  Reads w, name, r, dir.
strace_case () {
	local label=$1 calls=$2 sdir=${3:-$dir} sfile=${4:-$r} log
	log=$w/strace.$label.log
	if [ $# -lt 3 ]; then
		drop_caches
		"$PAGECACHE" order0 "$sfile" >/dev/null 2>&1
	fi
	rm -f "$w/smaps.strace-$label"
	FIXTURE_SMAPS=$w/smaps.strace-$label run_as "$sdir" "$w/strace-$label.out" strace -f -qq -o "$log" \
		-e trace="$STUB_ONLY_CALLS" -e inject="$calls:error=ENOSYS"
	same_output "$w/strace-$label.out" "$calls failing (strace)"
	local injected
	injected=$(grep -c 'INJECTED' "$log" 2>/dev/null)
	if [ "${injected:-0}" -gt 0 ]; then
		pass "$name: $calls failing: the stub made $injected failing call(s) ($(grep 'INJECTED' "$log" | sed 's/^[0-9]* *//; s/(.*//' | sort -u | tr '\n' ' '| sed 's/ $//'))"
	else
		fail "$name: $calls failing: strace saw none of the stub's $calls calls fail"
		head -5 "$log" | sed 's/^/      /'
	fi
}

COVERAGE=()
built_any=false
while read -r name target file prog hook <&3; do
	[ -n "$name" ] && want_part "$name" || continue
	echo "# fixture $name"
	# (why_unbuildable knows the toolchain needs of the classic targets that
	# the mad-* ones mirror)
	if ! build_fixture "$target"; then
		skip "$name: cannot build it here: $(why_unbuildable "${target#mad-}") (log: $O/$target.log)"
		tail -3 "$O/$target.log" | sed 's/^/      /'
		continue
	fi
	built_any=true
	w=$WORK/$name
	dir=$w/rewritten
	r=$dir/$file
	mkdir -p "$w/orig" "$dir"
	cp -p "$O/$file" "$w/orig/$file"
	fails_before=$n_fail
	cov_line="$name:"

	check_original
	$can_run || continue
	$have_elflint && lint_before=$(elflint_count "$w/orig/$file")

	# The dry run of the original announces the stub.
	"$ELFPMD" -n --json --madvise "$w/orig/$file" >"$w/report.json" 2>"$w/report.err"
	check "$name: -n --json --madvise exits 0" test $? -eq 0
	check "$name: -n --json --madvise leaves the file alone" cmp -s "$O/$file" "$w/orig/$file"

	# Rewrite a copy.
	cp -p "$w/orig/$file" "$r"
	if ! "$ELFPMD" -q --madvise "$r" >"$w/rewrite.log" 2>&1; then
		fail "$name: elfpmd -q --madvise failed: $(head -3 "$w/rewrite.log")"
		continue
	fi
	pass "$name: elfpmd -q --madvise exits 0"
	if [ -s "$w/rewrite.log" ]; then
		fail "$name: elfpmd -q --madvise printed something: $(head -3 "$w/rewrite.log")"
	fi
	ideal=$(ideal_chunks "$r")
	if msg=$(check_report "$w/report.json" "$hook" "$ideal" 2>&1); then
		pass "$name: -n --json --madvise: stub injected: $msg"
	else
		fail "$name: -n --json --madvise: $msg"
		grep -o '"stub":.*' "$w/report.json" | head -c 400 | sed 's/^/      /'; echo
	fi
	run_as "$dir" "$w/rewritten.out"
	same_output "$w/rewritten.out" "rewritten with --madvise"
	check_elflint "$r" "--madvise"
	check_bytemap "$w/orig/$file" "$r" "$hook"
	if msg=$(check_structure "$w/orig/$file" "$r" "$hook" 2>&1); then
		pass "$name: structure: $msg"
	else
		fail "$name: structure: $msg"
	fi

	# A second run finds the stub and leaves the file alone.
	cp -p "$r" "$w/once"
	sig=$(file_signature "$r")
	if "$ELFPMD" -q --madvise "$r" >"$w/second.log" 2>&1; then
		check "$name: second --madvise run leaves the bytes as they were" cmp -s "$w/once" "$r"
		check "$name: second --madvise run leaves inode and times alone" test "$sig" = "$(file_signature "$r")"
		rm -f "$w/once"
	else
		fail "$name: second elfpmd --madvise run failed: $(head -3 "$w/second.log")"
	fi
	"$ELFPMD" -n --json --madvise "$r" >"$w/second.json" 2>&1
	check "$name: -n --json --madvise of the rewritten file reports the stub present" \
		grep -q '"stub":{"injected":false,"present":true' "$w/second.json"

	# Coverage in the three page cache states.
	drop_caches
	coverage cold "$dir" "$r"
	run_as "$dir" "$w/warm0.out"
	coverage warm "$dir" "$r"
	# A warm start has nothing to repair: the stub neither opens the
	# object's file nor locks it.
	if $have_strace; then
		run_as "$dir" "$w/warm-strace.out" strace -f -qq -o "$w/warm.strace" \
			-e trace=flock,fdatasync,fadvise64,sync_file_range,clock_nanosleep,nanosleep,mmap
		if grep -Eq 'flock|fdatasync|fadvise64|sync_file_range|nanosleep|PROT_READ\|PROT_EXEC, MAP_PRIVATE\|MAP_FIXED, ' "$w/warm.strace"; then
			fail "$name: warm start: the stub went down its repair path: $(grep -Em1 'flock|fdatasync|fadvise64|sync_file_range|nanosleep' "$w/warm.strace")"
		else
			pass "$name: warm start: no eviction, write-back, wait or remapping from the stub"
		fi
	fi

	# PR_SET_THP_DISABLE: the same output, no PMD mapping even with the PMD
	# folios of the warm runs in the cache.
	FIXTURE_SMAPS=$w/smaps.thp-off run_as "$dir" "$w/thp-off.out" "$THP_OFF"
	if same_output "$w/thp-off.out" "PR_SET_THP_DISABLE"; then
		kb=$(pmd_kb "$w/smaps.thp-off" "$r")
		check "$name: PR_SET_THP_DISABLE: FilePmdMapped $kb kB (must be 0)" test "$kb" -eq 0
	fi

	# Cached in 4 KiB folios, a fresh copy, three at once.
	coverage_small_folios "$dir" "$w/fresh"

	# A stub that samples (--populate-max=0: every range larger than the
	# sample is sampled): with a warm cache it leaves the chunks it did not
	# sample to the program's own faults; in the other states it finds small
	# folios and populates everything.
	mkdir -p "$w/sampled"
	if "$ELFPMD" -q --madvise --populate-max=0 -o "$w/sampled/$file" "$w/orig/$file" >"$w/sampled.log" 2>&1; then
		drop_caches
		coverage sampled-cold "$w/sampled" "$w/sampled/$file"
		coverage sampled-warm "$w/sampled" "$w/sampled/$file"
		drop_caches
		"$PAGECACHE" order0 "$w/sampled/$file" >/dev/null 2>&1
		coverage sampled-order-0 "$w/sampled" "$w/sampled/$file"
	else
		fail "$name: elfpmd --madvise --populate-max=0 failed: $(head -3 "$w/sampled.log")"
	fi

	# Runs with the stub's system calls failing, each from an order-0
	# cache.  Without PAGEMAP_SCAN (ioctl: the path of kernels before 6.7,
	# smaps and mincore), without the kernel's version (uname) or the file
	# system's type (statfs of a program, fstatfs of a library's file), or
	# without the lock (flock) the stub still
	# repairs the cache; without mincore, POSIX_FADV_DONTNEED, madvise, or
	# all of them, it gives up and the program runs as before.
	if $have_strace; then
		for calls in ioctl uname statfs,fstatfs flock; do
			strace_case "$calls" "$calls"
			check_coverage "strace-$calls" "$r"
		done
		strace_case mincore mincore
		strace_case madvise madvise
		# Pages that cannot be evicted: the stub writes the range back
		# once, takes the file's lock, waits for the pages 1 ms at a time,
		# at most 8 ms in all, and unlocks before it closes the file.
		strace_case fadvise64 fadvise64
		log=$w/strace.fadvise64.log
		syncs=$(grep -c 'sync_file_range(' "$log")
		sleeps=$(grep -c 'nanosleep(' "$log")
		if [ "$syncs" -eq 1 ] && [ "$sleeps" -ge 1 ] && [ "$sleeps" -le 8 ] && grep -Eq 'flock\([0-9]+, LOCK_EX\|LOCK_NB\) +=  *0' "$log" \
		   && grep -Eq 'flock\([0-9]+, LOCK_UN\) += 0' "$log"; then
			pass "$name: pages that stay cached: one write-back, $sleeps waits of 1 ms (at most 8), the lock taken and released"
		else
			fail "$name: pages that stay cached: $syncs write-backs, $sleeps sleeps, lock: $(grep -Eo 'flock\([^)]*\) += [0-9-]+' "$log" | tr '\n' ' ')"
		fi
		strace_case all "$STUB_ONLY_CALLS"
	fi

	# valgrind: only where it runs the original cleanly (it reports errors
	# in glibc's own start-up code of a static PIE).
	if $have_valgrind; then
		run_as "$w/orig" "$w/valgrind-orig.out" valgrind -q --error-exitcode=99
		if ! cmp -s "$w/orig.out" "$w/valgrind-orig.out"; then
			skip "$name: valgrind does not run the original cleanly either ($(tail -1 "$w/valgrind-orig.out"): $(grep -m1 -v '^==[0-9]*== *$' "$w/valgrind-orig.out.err" | sed 's/^==[0-9]*== //'))"
		else
			run_as "$dir" "$w/valgrind.out" valgrind -q --error-exitcode=99
			same_output "$w/valgrind.out" "under valgrind"
		fi
	fi

	if $have_gdb; then
		if [ "$prog" = "$file" ]; then exe=$r; else exe=$O/$prog; fi
		LD_LIBRARY_PATH=$dir timeout 60 gdb -batch -nx -ex 'break main' -ex run -ex bt \
			--args "$exe" "${ARGS[@]}" >"$w/gdb.out" 2>&1 </dev/null
		if grep -Eq '^#0 .*\<main \(' "$w/gdb.out"; then
			pass "$name: gdb stops in main ($(grep -E '^#0 ' "$w/gdb.out" | head -1 | sed 's/  */ /g'))"
		else
			fail "$name: gdb does not show main in the backtrace"
			tail -5 "$w/gdb.out" | sed 's/^/      /'
		fi
	fi

	# strip and eu-strip keep the stub, which still works.
	for stripper in strip eu-strip; do
		if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
		if [ "$stripper" = strip ] && grep -q '"table_moved":true' "$w/report.json" 2>/dev/null; then
			skip "$name: strip: elfpmd reports that the program header table moved (no free slot, nothing after it could move), which GNU strip cannot rewrite (a known limit, documented)"
			continue
		fi
		sd=$w/$stripper
		mkdir -p "$sd"
		cp -p "$r" "$sd/$file"
		if ! $stripper "$sd/$file" 2>"$w/strip.err"; then
			fail "$name: $stripper fails on the rewritten file: $(head -1 "$w/strip.err")"
			continue
		fi
		"$ELFPMD" -n --json --madvise "$sd/$file" >"$w/strip.json" 2>&1
		check "$name: after $stripper, elfpmd still finds the stub" \
			grep -q '"stub":{"injected":false,"present":true' "$w/strip.json"
		"$PAGECACHE" evict "$sd/$file" >/dev/null 2>&1
		coverage "$stripper" "$sd" "$sd/$file"
	done

	COVERAGE+=("$cov_line")
	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
done 3<<<"$FIXTURES" </dev/null

if [ "$MADVISE_PARTS" != xfs ]; then
	stop_unless_built
fi

# The same on xfs (large folios since Linux 5.18, so file THP wherever the
# stub runs on a current kernel), in a loop-mounted image, for the PIE: cold,
# warm, order-0, a fresh copy, three at once.  Skipped where mkfs.xfs or
# loop mounts are missing.
XFS_MNT= XFS_DEV=
xfs_cleanup () {
	[ -n "$XFS_MNT" ] && umount "$XFS_MNT" && XFS_MNT=
	[ -n "$XFS_DEV" ] && [ -z "$XFS_MNT" ] && losetup -d "$XFS_DEV" && XFS_DEV=
}
trap xfs_cleanup EXIT
xfs_setup () {
	local img=$WORK/xfs.img
	have mkfs.xfs && have losetup || { echo "mkfs.xfs or losetup not found"; return 1; }
	truncate -s 300M "$img" && mkfs.xfs -q "$img" >"$img.log" 2>&1 || { echo "mkfs.xfs failed: $(tail -1 "$img.log")"; return 1; }
	XFS_DEV=$(losetup --find --show "$img" 2>"$img.log") || { XFS_DEV=; echo "no loop device: $(tail -1 "$img.log")"; return 1; }
	mkdir -p "$WORK/xfs.mnt"
	mount "$XFS_DEV" "$WORK/xfs.mnt" 2>"$img.log" || { echo "mount failed: $(tail -1 "$img.log")"; return 1; }
	XFS_MNT=$WORK/xfs.mnt
	# Linux's default read-ahead (this test's own loop device): the stub
	# then leaves the chunks away from the text's ends to the program.
	echo 128 >"/sys/block/${XFS_DEV##*/}/queue/read_ahead_kb" 2>/dev/null || :
}
# loop_kib: KiB read from XFS_DEV so far.
loop_kib () { awk '{ print int($3 / 2) }' "/sys/block/${XFS_DEV##*/}/stat"; }
name=pie file=mad-pie prog=mad-pie
want_part xfs && echo "# xfs"
if ! want_part xfs; then
	:
elif ! build_fixture mad-pie || [ ! -x "$O/mad-pie" ]; then
	skip "xfs: no mad-pie fixture"
elif ! xfs_setup >"$WORK/xfs.why" 2>&1; then
	skip "xfs: $(tail -1 "$WORK/xfs.why")"
else
	w=$WORK/xfs
	dir=$XFS_MNT/rewritten
	mkdir -p "$w/orig" "$dir"
	cp -p "$O/$file" "$w/orig/$file"
	run_as "$w/orig" "$w/orig.out"
	if "$ELFPMD" -q --madvise -o "$dir/$file" "$O/$file" >"$w/rewrite.log" 2>&1; then
		cov_line="pie on xfs:"
		r=$dir/$file
		drop_caches
		coverage cold "$dir" "$r"
		coverage warm "$dir" "$r"
		coverage_small_folios "$dir" "$XFS_MNT/fresh"
		COVERAGE+=("$cov_line")
		# A cold start of a program that runs none of its big text
		# (FIXTURE_NO_TEXT) reads the chunks near the text's ends, those
		# the program's other faults read around, and leaves the others:
		# at most 3 chunks more than the original, not the 7 of the text.
		mkdir -p "$XFS_MNT/orig"
		cp -p "$O/$file" "$XFS_MNT/orig/$file"
		ra=$(cat "/sys/block/${XFS_DEV##*/}/queue/read_ahead_kb")
		extra=0 runs=3
		for ((k = 1; k <= runs; k++)); do
			drop_caches
			b0=$(loop_kib)
			FIXTURE_NO_TEXT=1 "$XFS_MNT/orig/$file" >/dev/null 2>&1
			b1=$(loop_kib)
			drop_caches
			b2=$(loop_kib)
			FIXTURE_NO_TEXT=1 "$r" >/dev/null 2>&1
			b3=$(loop_kib)
			extra=$((extra + (b3 - b2) - (b1 - b0)))
		done
		extra=$((extra / runs))
		if [ "$ra" != 128 ]; then
			skip "xfs: read_ahead_kb of the loop device is $ra, not 128: the lazy cold start is not measured"
		elif [ "$extra" -le $((3 * 2048)) ]; then
			pass "xfs: a cold start that runs none of the text reads $extra KiB more than the original's (at most 3 chunks; the text has 7)"
		else
			fail "xfs: a cold start that runs none of the text reads $extra KiB more than the original's (more than 3 chunks: the stub read chunks the program never reached)"
		fi
	else
		fail "xfs: elfpmd -q --madvise failed: $(head -3 "$w/rewrite.log")"
	fi
fi
xfs_cleanup

echo "# coverage (FilePmdMapped kB / ideal kB):"
for line in "${COVERAGE[@]}"; do echo "#   $line"; done
echo "# run time $((SECONDS - started)) s"
finish
