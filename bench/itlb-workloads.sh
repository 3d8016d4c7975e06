#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# itlb-workloads.sh -- bench/itlb.sh over real workloads with large text:
# one table per workload, every arm and processor model.  A simulation,
# not a measurement: it counts what the modelled TLBs would miss for the
# instruction stream these programs really execute (bench/itlb.sh says
# what each arm means), the same on any machine that runs it.
#
# Workloads (-w names them, comma-separated; default all).  The inputs are
# smaller than bench/workloads.sh's where emulation (about 100 million
# instructions a second here) makes those too long; each table states the
# instructions simulated.
#   gcc-c      cc1 (gcc-12) -O2 of tests/phdr-dump.c, preprocessed (9,880 lines)
#   gcc-cxx    cc1plus (g++-12) -O2 of a C++ unit (bench/inputs.sh: regex, maps,
#              streams, sort, std::function: the standard library's templates)
#   clang-c    clang-14 -O2 -c of the same C (libclang-cpp and libLLVM-14 in
#              the process: cc1 runs in the driver's process)
#   node       node running TypeScript's tsc (lib/tsc.js of Debian's
#              node-typescript source, fetched as bench/workloads.sh does)
#              over a small project (bench/inputs.sh), type-checked, no emit
#   postgres   a PostgreSQL backend (the machine's newest server) running
#              pgbench's TPC-B-like transactions: the database made by
#              pgbench -i -s 2 against the server run natively, then 4000
#              transactions executed by `postgres --single` (the server
#              itself cannot run under qemu-user 7.2: see below)
#   rustc      Debian's rustc -O --emit=obj of a 150-line crate
#              (bench/inputs.sh; librustc_driver and libLLVM in the process)
# bench/counters.sh runs gcc-c, gcc-cxx, clang-c and rustc natively with the
# processor's counters: the inputs and commands are shared (bench/inputs.sh).
#
# Usage: bench/itlb-workloads.sh [-w NAMES] [-c CPUS] [-d DIR] [-k]
#   -w NAMES   only these workloads
#   -c CPUS    processor models (bench/itlb.sh -c list; default all)
#   -d DIR     work directory parent (default /var/tmp)
#   -k         keep the work directory
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Prints a Markdown table per workload (bench/README keeps them) and a
# line per workload with its JSON rows' file.  Needs what bench/itlb.sh
# needs, and each workload its programs (a missing one is skipped with the
# reason); postgres runs as the user postgres (it refuses root).

set -eu
export LC_ALL=C

ONLY=gcc-c,gcc-cxx,clang-c,node,postgres,rustc
CPUS=
WORK=
# shellcheck disable=SC2034 # read by bench_workdir (lib.sh)
KEEP=0
while getopts 'w:c:d:kh' opt; do
	case $opt in
	w) ONLY=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '/^# Usage/,/^# Prints/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64 ;;
	esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
# shellcheck source=bench/inputs.sh
. "$HERE/inputs.sh"
bench_find_elfpmd
export ELFPMD
bench_workdir itlb-workloads
chmod 755 "$WORK"
CACHE=${ELFPMD_ITLB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/elfpmd-itlb}
want () { [[ ,$ONLY, == *,$1,* ]]; }
cpus=()
[ -z "$CPUS" ] || cpus=(-c "$CPUS")

# itlb NAME PROGRAM ARG...: simulate, rows into $WORK/NAME.json.
itlb () {
	local name=$1
	shift
	echo "== $name: $*" >&2
	"$HERE/itlb.sh" "${cpus[@]}" --json -o "$WORK/$name.json" -d "$WORK" -- "$@" \
		>"$WORK/$name.out" 2>&1 || { echo "$name: failed: $(tail -3 "$WORK/$name.out")" >&2; return 1; }
	table "$name"
}

# table NAME: the Markdown table of $WORK/NAME.json.
table () {
	python3 - "$WORK/$1.json" "$1" <<'EOF'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r0 = rows[0]
print("\n### %s\n\n`%s`: %.2f billion instructions simulated in %d process%s.\n" % (
    sys.argv[2], os.path.basename(r0["program"]), r0["insns"] / 1e9, r0["processes"],
    "" if r0["processes"] == 1 else "es"))
cpus = []
for r in rows:
    if r["cpu"] not in cpus:
        cpus.append(r["cpu"])
print("Where the instructions ran, and each arm's 2 MiB chunks there: " + "; ".join(
    "%s %.1f%% (elfpmd %d, kernel %d, glibc %d, remap %d)" % (os.path.basename(o["path"]), 100 * o["share"],
    o["chunks"]["elfpmd"], o["chunks"]["kernel"], o["chunks"]["glibc"], o["chunks"]["remap"])
    for o in r0.get("objects", []) if o["share"] >= 0.005) + ".\n")
print("| arm | " + " | ".join("%s L1 MPKI | %s walk MPKI | %s walk share" % (c, c, c) for c in cpus) + " |")
print("|---|" + "---:|" * (3 * len(cpus)))
for arm in ["orig", "elfpmd", "kernel", "glibc", "remap", "limit"]:
    cells = []
    for c in cpus:
        r = next(x for x in rows if x["arm"] == arm and x["cpu"] == c)
        cells += ["%.3f" % r["l1_mpki"], "%.4f" % r["walk_mpki"], "%.2f%%" % (100 * r["walk_share"])]
        if r["insns_without_layout"] >= 0.001 * r["insns"]:
            cells[-1] += " (%.1f%% without layout)" % (100.0 * r["insns_without_layout"] / r["insns"])
    print("| %s | %s |" % (arm, " | ".join(cells)))
EOF
}

IN=$WORK/in
inputs_make "$IN" "$ONLY"
for w in gcc-c gcc-cxx clang-c; do
	if want "$w"; then
		# shellcheck disable=SC2046 # the command's words
		itlb "$w" $(workload_command "$w" "" "$IN" "$WORK/$w.out.o") || true
	fi
done
if want node; then
	if ! command -v node >/dev/null; then
		echo "node: skipped: node not found" >&2
	else
		src=$CACHE/src/node-typescript
		if [ ! -f "$src/.done" ]; then
			rm -rf "$src"
			mkdir -p "$src"
			(cd "$src" && bench_apt_src "$CACHE" apt-get -q source node-typescript) >"$WORK/node-src.log" 2>&1 \
				|| bench_die "apt-get source node-typescript failed: $(tail -1 "$WORK/node-src.log")"
			touch "$src/.done"
		fi
		tsc=$(find "$src" -mindepth 3 -maxdepth 3 -path '*/lib/tsc.js' | head -n 1)
		[ -n "$tsc" ] || bench_die "no lib/tsc.js in $src"
		itlb node "$(readlink -f "$(command -v node)")" "$tsc" -p "$IN/ts/tsconfig.json" || true
	fi
fi
if want postgres; then
	pgbin=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$pgbin" ] || ! command -v pgbench >/dev/null || ! id postgres >/dev/null 2>&1; then
		echo "postgres: skipped: no PostgreSQL server, pgbench or user postgres" >&2
	else
		# The server cannot run under qemu-user 7.2: QEMU 7.2 delivers a
		# signal to an x86-64 program on a misaligned stack, the postmaster
		# forks its children from its SIGCHLD handler, and the child dies on
		# a movaps.  So the database is made by pgbench against the server
		# run natively, and the backend simulated is the single-user one
		# (postgres --single, no postmaster, no fork) executing pgbench's
		# TPC-B-like transactions, the statements a server backend executes
		# for pgbench's default script; and its SIGALRM timers (the idle
		# statistics flush) are turned off by a preloaded setitimer that
		# does nothing (it spawns nothing; QEMU_SET_ENV gives it to the
		# guest only), or a timer's signal crashes it the same way after a
		# few hundred transactions.
		pg=$WORK/pg
		mkdir -p "$pg/cache"
		cp -r "$CACHE"/qemu-* "$pg/cache/" 2>/dev/null || true
		chown -R postgres: "$pg"
		runuser -u postgres -- "$pgbin/initdb" -D "$pg/data" -A trust -U postgres >"$WORK/initdb.log" 2>&1 \
			|| bench_die "initdb failed: $(tail -2 "$WORK/initdb.log")"
		port=$((54000 + RANDOM % 900))
		runuser -u postgres -- "$pgbin/pg_ctl" -D "$pg/data" -o "-k $pg -p $port -c listen_addresses=" -w start \
			>"$WORK/pg_ctl.log" 2>&1 || bench_die "the server did not start: $(tail -3 "$WORK/pg_ctl.log")"
		pgbench -h "$pg" -p "$port" -U postgres -i -s 2 postgres >"$WORK/pgbench-init.log" 2>&1 \
			|| echo "postgres: pgbench -i failed: $(tail -2 "$WORK/pgbench-init.log")" >&2
		runuser -u postgres -- "$pgbin/pg_ctl" -D "$pg/data" -m fast -w stop >>"$WORK/pg_ctl.log" 2>&1 \
			|| bench_die "the server did not stop: $(tail -3 "$WORK/pg_ctl.log")"
		printf '%s\n' '#include <string.h>' '#include <sys/time.h>' \
			'int setitimer (int which, const struct itimerval *n, struct itimerval *o)' \
			'{ (void) which; (void) n; if (o) memset (o, 0, sizeof *o); return 0; }' >"$pg/noitimer.c"
		cc -O2 -shared -fPIC -o "$pg/noitimer.so" "$pg/noitimer.c" || bench_die "cannot build noitimer.so"
		# pgbench's tpcb-like script at scale 2, 4000 transactions, a fixed seed.
		awk 'BEGIN { srand(1); for (i = 0; i < 4000; i++) {
			aid = int(rand() * 200000) + 1; bid = int(rand() * 2) + 1; tid = int(rand() * 20) + 1
			delta = int(rand() * 10001) - 5000
			print "BEGIN;"
			printf "UPDATE pgbench_accounts SET abalance = abalance + %d WHERE aid = %d;\n", delta, aid
			printf "SELECT abalance FROM pgbench_accounts WHERE aid = %d;\n", aid
			printf "UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %d;\n", delta, tid
			printf "UPDATE pgbench_branches SET bbalance = bbalance + %d WHERE bid = %d;\n", delta, bid
			printf "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%d, %d, %d, %d, CURRENT_TIMESTAMP);\n", tid, bid, aid, delta
			print "END;" } }' >"$pg/tpcb.sql"
		chown postgres: "$pg/tpcb.sql"
		echo "== postgres: $pgbin/postgres --single, 4000 pgbench transactions" >&2
		if runuser -u postgres -- env ELFPMD_ITLB_CACHE="$pg/cache" ELFPMD="$ELFPMD" QEMU_SET_ENV="LD_PRELOAD=$pg/noitimer.so" \
			"$HERE/itlb.sh" "${cpus[@]}" \
			--json -o "$pg/rows.json" -d "$pg" -- "$pgbin/postgres" --single -D "$pg/data" postgres \
			<"$pg/tpcb.sql" >"$WORK/postgres.out" 2>&1; then
			n=$(runuser -u postgres -- "$pgbin/postgres" --single -D "$pg/data" postgres <<<'SELECT count(*) FROM pgbench_history;' 2>/dev/null \
				| sed -n 's/.*count = "\([0-9]*\)".*/\1/p')
			echo "postgres: pgbench_history holds ${n:-?} rows (4000 expected)" >&2
			cp "$pg/rows.json" "$WORK/postgres.json"
			table postgres
		else
			echo "postgres: failed: $(tail -3 "$WORK/postgres.out")" >&2
		fi
	fi
fi
if want rustc; then
	# shellcheck disable=SC2046 # the command's words
	itlb rustc $(workload_command rustc "" "$IN" "$WORK/rustc.out.o") || true
fi
echo >&2
for f in "$WORK"/*.json; do
	[ -f "$f" ] && echo "rows: $f" >&2
done
