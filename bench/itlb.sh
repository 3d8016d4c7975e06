#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# itlb.sh -- a simulated instruction TLB over a real execution of any
# program, for every layout its text could have.
#
# PROGRAM runs once under qemu-user (qemu-x86_64) with the plugin of
# bench/itlb (plugin.c: what each arm means; tlb.c: the processor models
# and their sources).  Every executed block's instruction pages go to each
# processor's model once per arm:
#   orig    all 4 KiB pages
#   elfpmd  the program and its libraries as `elfpmd --madvise` rewrites them
#           (an object elfpmd puts no stub in keeps 4 KiB pages: nothing
#           asks for huge pages there)
#   kernel  the program as Linux patch 001 loads it (`elfpmd --rule=kernel`)
#   glibc   glibc.elf.thp (libraries whose segments are 2 MiB-aligned already)
#   remap   an anonymous huge-page copy of the main program's text (iodlr)
#   limit   all text on 2 MiB pages
# The rewrites are made here, in a temporary directory, of PROGRAM and the
# libraries ldd lists (a library opened with dlopen has no copy: the
# "without layout" column says how many instructions ran in such objects).
# One row per arm and processor: instructions simulated, first-level misses
# and page walks per thousand instructions (MPKI), and the walk share: the
# walks' cycles at the stated latency (-W; 30 by default) over those plus one
# cycle per instruction (a round figure for the rest of the core's work).
# A forking program (a server) gives a file per process; the rows add them.
#
# The plugin needs QEMU's plugin header: it comes from Debian's qemu source
# package of the installed qemu-user's version, fetched once with apt-get
# source --download-only through a private sources list (bench/lib.sh's
# bench_apt_src) into CACHE (default ~/.cache/elfpmd-itlb;
# ELFPMD_ITLB_CACHE), never from anywhere else and never committed.
#
# Usage: bench/itlb.sh [-c CPU,...] [-e OPTS] [-W CYCLES] [--json] [-o FILE]
#                      [-d DIR] [-k] -- PROGRAM [ARG...]
#   -c CPUS    processor models (default all: see -c list)
#   -e OPTS    more elfpmd options for the elfpmd arm's rewrites (e.g.
#              --move-table where the stub finds no room otherwise)
#   -W CYCLES  cycles charged per page walk for the walk share (default:
#              the model's, 30 for each: bench/itlb/tlb.c)
#   --json     JSON lines instead of the table
#   -o FILE    the rows to FILE instead of standard output
#   -d DIR     work directory parent (default /var/tmp)
#   -k         keep the work directory (copies, layout, raw results)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# PROGRAM's standard input, output and error are its own; its exit status
# other than 0 makes this exit 1 after the rows.  x86-64 programs only.
# Exit status: 0, 1 (an error, or PROGRAM failed), 64 (usage), 77 (this
# machine cannot run it: no qemu-user, no compiler, no header).

set -eu
export LC_ALL=C

CPUS=
ELFPMD_OPTS=
WALK=
JSON=0
OUT=
WORK=
# shellcheck disable=SC2034 # read by bench_workdir (lib.sh)
KEEP=0
CACHE=${ELFPMD_ITLB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/elfpmd-itlb}
usage () { sed -n '/^# Usage/,/^# PROGRAM/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64; }
while [ $# -gt 0 ]; do
	case $1 in
	-c) [ $# -ge 2 ] || usage; CPUS=$2; shift 2 ;;
	-c*) CPUS=${1#-c}; shift ;;
	-W) [ $# -ge 2 ] || usage; WALK=$2; shift 2 ;;
	-e) [ $# -ge 2 ] || usage; ELFPMD_OPTS=$2; shift 2 ;;
	--json) JSON=1; shift ;;
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	-d) [ $# -ge 2 ] || usage; WORK=$2; shift 2 ;;
	-k) KEEP=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
[ -z "$WALK" ] || [[ $WALK =~ ^[0-9]+$ ]] || { echo "${0##*/}: -W: a number of cycles" >&2; exit 64; }

skip () { echo "${0##*/}: cannot run here: $*" >&2; exit 77; }
command -v qemu-x86_64 >/dev/null || skip "qemu-x86_64 not found (Debian: package qemu-user)"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC)"
command -v python3 >/dev/null || skip "python3 not found"

# itlb_plugin DIR: build the plugin into DIR/itlb.so (the header fetched
# into the cache first); skips (77) when the header cannot be had.
itlb_plugin () {
	local dir=$1 version hdr tarball
	version=$(dpkg-query -W -f '${source:Version}' qemu-user 2>/dev/null) \
		|| skip "qemu-user is not installed as a Debian package: no source package to take the plugin header from"
	hdr=$CACHE/qemu-$version/qemu-plugin.h
	if [ ! -f "$hdr" ]; then
		command -v dpkg-source >/dev/null || skip "apt-get source needs dpkg-dev"
		rm -rf "$CACHE/qemu-$version.tmp"
		mkdir -p "$CACHE/qemu-$version.tmp"
		(cd "$CACHE/qemu-$version.tmp" && bench_apt_src "$CACHE" apt-get -q source --download-only "qemu=$version") \
			>"$CACHE/qemu-$version.log" 2>&1 \
			|| skip "apt-get source --download-only qemu=$version failed: $(tail -1 "$CACHE/qemu-$version.log")"
		tarball=$(find "$CACHE/qemu-$version.tmp" -name 'qemu_*.orig.tar.*' | head -n 1)
		[ -n "$tarball" ] || bench_die "no qemu orig tarball in $CACHE/qemu-$version.tmp"
		tar -xf "$tarball" -C "$CACHE/qemu-$version.tmp" --wildcards '*/include/qemu/qemu-plugin.h' \
			|| bench_die "no include/qemu/qemu-plugin.h in $tarball"
		mkdir -p "$CACHE/qemu-$version"
		mv "$(find "$CACHE/qemu-$version.tmp" -name qemu-plugin.h | head -n 1)" "$hdr"
		rm -rf "$CACHE/qemu-$version.tmp"
	fi
	"$CC" -O2 -g -Wall -fPIC -shared -I"$(dirname "$hdr")" -I"$HERE/itlb" -o "$dir/itlb.so" \
		"$HERE/itlb/plugin.c" "$HERE/itlb/tlb.c" -lpthread 2>"$dir/plugin.log" \
		|| bench_die "the plugin does not build: $(head -3 "$dir/plugin.log")"
}

bench_private_dir "$CACHE"

if [ "$CPUS" = list ]; then
	sed -n 's/^  { "\([a-z0-9]*\)", "\([^"]*\)",$/\1\t\2/p' "$HERE/itlb/tlb.c"
	exit 0
fi
[ $# -ge 1 ] || usage
PROG=$(command -v "$1") || bench_die "$1: not found"
PROG=$(readlink -f "$PROG")
shift
# An x86-64 ELF program (qemu-x86_64 runs nothing else: not a script).
[ "$(od -An -tx1 -j0 -N4 "$PROG" 2>/dev/null | tr -d ' ')" = 7f454c46 ] \
	&& [ "$(od -An -tu2 -j18 -N2 "$PROG" | tr -d ' ')" = 62 ] \
	|| bench_die "$PROG: not an x86-64 ELF program (a script runs under its interpreter: give that)"
bench_find_elfpmd

bench_workdir itlb
itlb_plugin "$WORK"
mkdir -p "$WORK/out" "$WORK/elfpmd" "$WORK/kernel"

# The copies: PROGRAM and its libraries for elfpmd, PROGRAM for kernel.
objs=$PROG
while read -r lib; do
	objs="$objs
$lib"
done < <(ldd "$PROG" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' \
	| while read -r l; do readlink -f "$l"; done | sort -u)
: >"$WORK/layout"
i=0
while read -r obj; do
	[ -n "$obj" ] || continue
	i=$((i + 1))
	# shellcheck disable=SC2086 # the extra options' words
	if "$ELFPMD" --json --no-sync --madvise $ELFPMD_OPTS -o "$WORK/elfpmd/$i" "$obj" >"$WORK/elfpmd/$i.json" 2>>"$WORK/elfpmd.log"; then
		# The stub's chunks, or "-" when elfpmd put no stub in (then
		# nothing asks for huge pages: the arm keeps 4 KiB pages there).
		stub=$(python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline()).get("stub") or {}
print(d.get("chunks", 0) if d.get("injected") else "-")' "$WORK/elfpmd/$i.json" 2>/dev/null || echo -)
		if [ "$stub" = - ]; then
			printf 'elfpmd\t%s\t-\t0\n' "$obj" >>"$WORK/layout"
		else
			printf 'elfpmd\t%s\t%s\t%s\n' "$obj" "$WORK/elfpmd/$i" "$stub" >>"$WORK/layout"
		fi
	fi
done <<<"$objs"
if "$ELFPMD" -q --no-sync --rule=kernel -o "$WORK/kernel/prog" "$PROG" 2>>"$WORK/elfpmd.log"; then
	printf 'kernel\t%s\t%s\t0\n' "$PROG" "$WORK/kernel/prog" >>"$WORK/layout"
fi

plugin_args="out=$WORK/out,layout=$WORK/layout"
[ -z "$CPUS" ] || plugin_args="$plugin_args,cpus=${CPUS//,/:}"
st=0
qemu-x86_64 -plugin "$WORK/itlb.so,$plugin_args" "$PROG" "$@" || st=$?
ls "$WORK"/out/itlb.*.json >/dev/null 2>&1 || bench_die "no results: the plugin wrote nothing (exit status $st)"

python3 - "$WORK/out" "${WALK:-0}" "$JSON" "$PROG" >"${OUT:-/dev/stdout}" <<'EOF'
import glob, json, os, sys
out, walk_opt, as_json, prog = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
ARMS = ["orig", "elfpmd", "kernel", "glibc", "remap", "limit"]
insns, rows, procs, objs = 0, {}, 0, {}
cpus = []
for f in sorted(glob.glob(os.path.join(out, "itlb.*.json"))):
    d = json.load(open(f))
    procs += 1
    insns += d["insns"]
    for c in d["cpus"]:
        if c not in cpus:
            cpus.append(c)
    geometry = d["geometry"]
    walk_cycles = d["walk_cycles"]
    for r in d["results"]:
        k = (r["arm"], r["cpu"])
        t = rows.setdefault(k, [0, 0, 0])
        t[0] += r["l1_misses"]; t[1] += r["walks"]; t[2] += r["insns_without_layout"]
    for o in d["objects"]:
        e = objs.setdefault(o["path"], {"insns": 0, "huge": o["huge"], "stub_chunks": o.get("stub_chunks")})
        e["insns"] += o["insns"]
if insns == 0:
    sys.exit("itlb.sh: no instructions were simulated")
for p, e in objs.items():
    if e["stub_chunks"] is not None and e["huge"]["elfpmd"] > e["stub_chunks"]:
        print("itlb.sh: warning: %s: %d text chunks on 2 MiB pages in the elfpmd arm, but elfpmd's stub maps %d"
              % (p, e["huge"]["elfpmd"], e["stub_chunks"]), file=sys.stderr)
top = sorted(objs.items(), key=lambda kv: -kv[1]["insns"])[:4]
def line(arm, cpu):
    l1, walks, nolayout = rows[(arm, cpu)]
    walk = walk_opt or walk_cycles[cpu]
    share = walks * walk / (insns + walks * walk)
    return {"program": prog, "arm": arm, "cpu": cpu, "insns": insns, "processes": procs,
            "l1_mpki": 1000.0 * l1 / insns, "walk_mpki": 1000.0 * walks / insns,
            "walk_share": share, "walk_cycles": walk, "l1_misses": l1, "walks": walks,
            "insns_without_layout": nolayout, "geometry": geometry[cpu],
            "objects": [{"path": p, "share": e["insns"] / insns, "chunks": e["huge"]} for p, e in top]}
if as_json:
    for arm in ARMS:
        for cpu in cpus:
            print(json.dumps(line(arm, cpu)))
    sys.exit(0)
print("%s: %d instructions simulated in %d process%s" % (prog, insns, procs, "" if procs == 1 else "es"))
print("  where: " + ", ".join("%s %.1f%% (2 MiB chunks: elfpmd %d, kernel %d, glibc %d, remap %d)" % (
    os.path.basename(p), 100.0 * e["insns"] / insns, e["huge"]["elfpmd"], e["huge"]["kernel"],
    e["huge"]["glibc"], e["huge"]["remap"]) for p, e in top))
print("%-7s %-11s %10s %10s %12s  %s" % ("arm", "cpu", "L1 MPKI", "walk MPKI", "walk share", "without layout"))
for cpu in cpus:
    for arm in ARMS:
        r = line(arm, cpu)
        print("%-7s %-11s %10.3f %10.4f %11.2f%%  %s" % (arm, cpu, r["l1_mpki"], r["walk_mpki"],
              100.0 * r["walk_share"], "%.1f%%" % (100.0 * r["insns_without_layout"] / insns)
              if r["insns_without_layout"] else "-"))
wc = sorted(set(walk_opt or walk_cycles[c] for c in cpus))
print("(walk share at %s cycles a walk, 1 cycle an instruction otherwise)" % (
      wc[0] if len(wc) == 1 else ", ".join("%s %d" % (c, walk_cycles[c]) for c in cpus)))
EOF
if [ "$st" -ne 0 ]; then
	echo "${0##*/}: $PROG exited with status $st" >&2
	exit 1
fi
