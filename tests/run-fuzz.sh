#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fuzz.sh -- a short libFuzzer run of tests/fuzz/fuzz_elfpmd (the
# library's per-file pipeline under ASan and UBSan, see the harness's
# header comment for what it asserts) on a seed corpus built here by
# tests/fuzz/make-corpus.sh, then of tests/fuzz/fuzz_stub (the startup
# stub's readers of /proc, /sys and the object's symbols, FUZZ_STUB_SECONDS,
# default 15).  Passes when libFuzzer ends its run without a
# crash, a leak, a timeout or an out-of-memory; the input that failed is
# then kept under $TESTS_BUILDDIR/fuzz-work/artifacts/ and named in the log
# (run it again alone with: fuzz_elfpmd FILE).  Skipped (77) when configure
# found no clang able to build a libFuzzer target.
#
# Run by `make check` with FUZZ_ELFPMD (the target, empty when not built),
# FUZZ_SKIP_REASON, TESTS_SRCDIR and TESTS_BUILDDIR in the environment.
# Knobs: FUZZ_SECONDS (libFuzzer's -max_total_time, default 45; the corpus
# and the run together stay under 90 s), FUZZ_KEEP=1 (keep the work
# directory).  One fuzzing job only: the machine is shared with the other
# tests.  bench/fuzz.sh is the long run.

. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

seconds=${FUZZ_SECONDS:-45}
if [ -z "${FUZZ_ELFPMD:-}" ]; then
	skip_all "libFuzzer target not built: ${FUZZ_SKIP_REASON:-clang with -fsanitize=fuzzer not found by configure}"
fi
[ -x "$FUZZ_ELFPMD" ] || hard_error "FUZZ_ELFPMD=$FUZZ_ELFPMD is not an executable file"

work=$TESTS_BUILDDIR/fuzz-work
rm -rf "$work"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts" "$work/tmp" || hard_error "cannot create $work"

if ! sh "$TESTS_SRCDIR/fuzz/make-corpus.sh" "$work/seeds" > "$work/corpus.log" 2>&1; then
	sed 's/^/      /' "$work/corpus.log"
	skip_all "no seed could be built (tests/fuzz/make-corpus.sh)"
fi
cpu_lock shared
note "$(tail -n 1 "$work/corpus.log")"

# The harness's temporary directory goes under the work directory (TMPDIR).
TMPDIR=$work/tmp "$FUZZ_ELFPMD" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$work/seeds" > "$work/fuzz.log" 2>&1
rc=$?
# libFuzzer's last status line and final statistics.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/fuzz.log" | tail -n 1 | sed 's/^/      /'
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
	"$work/fuzz.log" | sed 's/^/      /'
artifacts=$(ls "$work/artifacts")
if [ "$rc" -eq 0 ] && [ -z "$artifacts" ]; then
	pass "fuzz_elfpmd ran ${seconds}s without a finding"
else
	fail "fuzz_elfpmd exited $rc; kept: ${artifacts:-nothing}"
	grep -E 'CHECK FAILED|fuzz_elfpmd: options|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^SUMMARY|^    #[0-9] ' \
		"$work/fuzz.log" | head -n 30 | sed 's/^/      /'
	for a in $artifacts; do note "reproduce: $FUZZ_ELFPMD $work/artifacts/$a"; done
	FUZZ_KEEP=1
fi
# The stub's readers (tests/fuzz/fuzz_stub.c), seeded with this machine's
# own /proc files behind the two bytes that pick the reader and the size
# of a read.
stub_seconds=${FUZZ_STUB_SECONDS:-15}
if [ -n "${FUZZ_STUB:-}" ] && [ -x "$FUZZ_STUB" ]; then
	mkdir -p "$work/stub-corpus"
	sh "$TESTS_SRCDIR/fuzz/stub-seeds.sh" "$work/stub-seeds" "$FUZZ_STUB"
	"$FUZZ_STUB" -max_total_time="$stub_seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/stub-" \
		"$work/stub-corpus" "$work/stub-seeds" > "$work/fuzz-stub.log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$work/fuzz-stub.log" | sed 's/^/      /'
	stub_artifacts=$(ls "$work/artifacts" | grep '^stub-')
	if [ "$rc" -eq 0 ] && [ -z "$stub_artifacts" ]; then
		pass "fuzz_stub ran ${stub_seconds}s without a finding"
	else
		fail "fuzz_stub exited $rc; kept: ${stub_artifacts:-nothing}"
		grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^SUMMARY|^    #[0-9] ' \
			"$work/fuzz-stub.log" | head -n 30 | sed 's/^/      /'
		FUZZ_KEEP=1
	fi
else
	skip "fuzz_stub not built: ${FUZZ_SKIP_REASON:-no libFuzzer}"
fi
if [ "${FUZZ_KEEP:-0}" != 1 ]; then
	rm -rf "$work"
else
	note "kept $work (fuzz.log: the whole run)"
fi
finish
