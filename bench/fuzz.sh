#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# fuzz.sh -- the long run of elfpmd's libFuzzer target, tests/fuzz/fuzz_elfpmd
# (what it asserts: the harness's header comment).  tests/run-fuzz.sh runs
# the same target for 45 s in `make check`; this runs it for DURATION
# (default 30 minutes), one job, on a seed corpus built by
# tests/fuzz/make-corpus.sh, and prints at the end libFuzzer's progress
# lines (#N executions, cov: coverage points, ft: features, corp: corpus),
# its final statistics (executions, executions per second, new units, peak
# RSS) and the inputs it kept for a finding.  The run stops at the first
# finding, as libFuzzer does; run the kept input again alone with
# `fuzz_elfpmd FILE`.
#
# Build the target first: `make fuzz` in the build directory (configure
# builds it only where clang links -fsanitize=fuzzer).
#
# Usage: bench/fuzz.sh [-d WORKDIR] [-k] [-t stub] [DURATION] [-- LIBFUZZER_FLAG...]
#   DURATION     seconds, or with a suffix s, m or h (default 30m)
#   -t stub      fuzz tests/fuzz/fuzz_stub instead (the startup stub's
#                readers against the fake kernel, seeded with this
#                machine's /proc files as tests/run-fuzz.sh seeds it;
#                FUZZ_STUB=its path)
#   -d WORKDIR   work directory (default a fresh mktemp -d under /var/tmp,
#                removed at the end unless -k or a finding); a -d directory
#                is kept, and its corpus/ is reused by the next run given
#                the same -d, so long runs can follow each other
#   -k           keep the work directory (corpus/, artifacts/, fuzz.log)
#   LIBFUZZER_FLAG...  passed to libFuzzer as they are (-dict=..., -seed=N)
# Environment: FUZZ_ELFPMD=path of the target (default:
# ../tests/fuzz/fuzz_elfpmd beside this script, for a build in the source
# tree, else _build/tests/fuzz/fuzz_elfpmd of the source tree); ELFPMD=the
# tool, for the seeds made with it (default: src/elfpmd of the target's
# build tree, when there).

set -u
export LC_ALL=C

WORK=
KEEP=0
TARGET=elfpmd
while getopts d:kt: opt; do
	case $opt in
	d) WORK=$OPTARG; KEEP=1 ;;
	k) KEEP=1 ;;
	t) TARGET=$OPTARG ;;
	*) echo "usage: $0 [-d WORKDIR] [-k] [-t stub] [DURATION] [-- LIBFUZZER_FLAG...]" >&2; exit 64 ;;
	esac
done
case $TARGET in elfpmd | stub) ;; *) echo "fuzz.sh: -t elfpmd or -t stub" >&2; exit 64 ;; esac
shift $((OPTIND - 1))
duration=30m
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	duration=$1
	shift
fi
[ "${1:-}" = -- ] && shift

. "$(dirname "$0")/lib.sh"

case $duration in
*h) seconds=$((${duration%h} * 3600)) ;;
*m) seconds=$((${duration%m} * 60)) ;;
*s) seconds=${duration%s} ;;
*) seconds=$duration ;;
esac
case $seconds in
'' | *[!0-9]*) bench_die "bad DURATION '$duration' (seconds, or Ns, Nm, Nh)" ;;
esac
[ "$seconds" -gt 0 ] || bench_die "DURATION must be positive"

here=$(cd "$(dirname "$0")" && pwd)
if [ "$TARGET" = stub ]; then
	# The stub's target goes under FUZZ_ELFPMD's name from here on; its
	# seeds are made below.
	FUZZ_ELFPMD=${FUZZ_STUB:-}
	for f in "$here/../tests/fuzz/fuzz_stub" "$here/../_build/tests/fuzz/fuzz_stub"; do
		if [ -z "$FUZZ_ELFPMD" ] && [ -x "$f" ]; then FUZZ_ELFPMD=$f; fi
	done
	[ -n "$FUZZ_ELFPMD" ] || bench_die "fuzz_stub not found: run 'make fuzz' in the build directory, or set FUZZ_STUB"
fi
if [ -z "${FUZZ_ELFPMD:-}" ]; then
	for f in "$here/../tests/fuzz/fuzz_elfpmd" "$here/../_build/tests/fuzz/fuzz_elfpmd"; do
		if [ -x "$f" ]; then FUZZ_ELFPMD=$f; break; fi
	done
fi
[ -n "${FUZZ_ELFPMD:-}" ] && [ -x "$FUZZ_ELFPMD" ] \
	|| bench_die "fuzz_elfpmd not found: run 'make fuzz' in the build directory, or set FUZZ_ELFPMD"
# The tool beside the target, for the seeds make-corpus.sh makes with it.
if [ -z "${ELFPMD:-}" ] && [ -x "$(dirname "$FUZZ_ELFPMD")/../../src/elfpmd" ]; then
	ELFPMD=$(dirname "$FUZZ_ELFPMD")/../../src/elfpmd
fi
export ELFPMD

if [ -n "$WORK" ] && [ -d "$WORK/corpus" ]; then
	echo "reusing $WORK"
	trap 'echo "kept $WORK"' EXIT
else
	if [ -n "$WORK" ]; then
		mkdir -p "$WORK" || bench_die "cannot create $WORK"
		trap 'echo "kept $WORK"' EXIT
	else
		bench_workdir elfpmd-fuzz
	fi
fi
mkdir -p "$WORK/seeds" "$WORK/corpus" "$WORK/artifacts" "$WORK/tmp" || bench_die "cannot create $WORK"
if [ -z "$(ls "$WORK/seeds")" ] && [ "$TARGET" = stub ]; then
	sh "$here/../tests/fuzz/stub-seeds.sh" "$WORK/seeds" "$FUZZ_ELFPMD"
elif [ -z "$(ls "$WORK/seeds")" ]; then
	sh "$here/../tests/fuzz/make-corpus.sh" "$WORK/seeds" || bench_die "no seed could be built"
fi

echo "target:   $FUZZ_ELFPMD"
echo "duration: ${seconds}s, one job; corpus $(ls "$WORK/corpus" | wc -l) units + $(ls "$WORK/seeds" | wc -l) seeds"
TMPDIR=$WORK/tmp "$FUZZ_ELFPMD" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$@" \
	"$WORK/corpus" "$WORK/seeds" > "$WORK/fuzz.log" 2>&1
rc=$?

echo "== progress (libFuzzer: #executions, cov: coverage points, ft: features)"
grep -E '^#[0-9]+[[:space:]]+(INITED|pulse|DONE)' "$WORK/fuzz.log" | tail -n 6
echo "== last new coverage"
grep -E '^#[0-9]+[[:space:]]+(NEW|REDUCE)' "$WORK/fuzz.log" | tail -n 1
echo "== final statistics"
grep -E '^stat::' "$WORK/fuzz.log"
echo "== corpus: $(ls "$WORK/corpus" | wc -l) units"
artifacts=$(ls "$WORK/artifacts")
if [ "$rc" -ne 0 ] || [ -n "$artifacts" ]; then
	echo "== finding (libFuzzer exit $rc)"
	grep -E 'CHECK FAILED|fuzz_elfpmd: options|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^SUMMARY' \
		"$WORK/fuzz.log" | head -n 20
	for a in $artifacts; do echo "reproduce: $FUZZ_ELFPMD $WORK/artifacts/$a"; done
	KEEP=1
	exit 1
fi
