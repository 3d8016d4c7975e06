#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-mutations.sh: a few thousand malformed, truncated and
# byte-swapped inputs made by tests/mutate from real programs and libraries
# (lib.sh: malformed_seeds, malformed_cases); for each, elfpmd in place,
# -n --json and -o must exit 0 or 1, never crash, hang or trip a
# sanitizer, say why in one line, leave a refused file and no temporary
# file behind, change only what the rule allows (mal_case), and print valid
# JSON.  Every sixth case also runs with --no-pad, --madvise (the stub's
# planner and writer), --rule=kernel, --pmd-size=64K or --pmd-size=4M, and
# every case of the mad* seeds with --madvise.  As root, the copies
# rewritten in place belong to nobody (mode 0750): the rewrite must keep
# owner and mode.
#
# Knobs: MALFORMED_PERCENT (scales the cases), MALFORMED_JOBS (parallel
# workers, default the CPUs, at most 4), MALFORMED_STRICT=0 (check magic
# only where only p_align may change), MALFORMED_SYNC_EVERY (every Nth
# in-place run takes the default fsync path, the others --no-sync; 8),
# MALFORMED_LIST_ONLY=1 (print the number of cases per seed and mode).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup
STRICT=${MALFORMED_STRICT:-1}
SYNC_EVERY=${MALFORMED_SYNC_EVERY:-8}
JOBS=${MALFORMED_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=2
[ "$JOBS" -le 4 ] || JOBS=4
LIST=$WORK/cases.list
malformed_cases "$LIST"
if [ "${MALFORMED_LIST_ONLY:-0}" = 1 ]; then
	awk '{ n[$2 " " $3]++ } END { for (k in n) print n[k], k }' "$LIST" | sort -k2
	exit 0
fi
[ "$(id -u)" = 0 ] && export MUTATE_CHOWN=65534:65534
START=$SECONDS

# worker K: the cases of every JOBS-th line from the K-th; counts into
# $WORK/count.K ("passed failed not-applicable"), failures into fails.K.
worker () {
	local k=$1 id seed mode mseed arg desc wd=$WORK/w$1 line=0 passed=0 failed=0 na=0
	FAILS=$WORK/fails.$k RCS=$WORK/rcs.$k
	mkdir -p "$wd/c"
	: >"$FAILS"
	: >"$RCS"
	while read -r id seed mode mseed arg; do
		line=$((line + 1))
		[ $(( (line - 1) % JOBS )) -eq "$k" ] || continue
		MUTATE_ALSO=$wd/c/in-place.elf:$wd/c/dry.elf make_case "$seed" "$mode" "$mseed" "$arg" "$wd/case.elf" >"$wd/desc"
		case $? in
		0) ;;
		3) na=$((na + 1)); continue ;;
		*) failed=$((failed + 1))
		   mal_record "$id" "$seed $mode $mseed $arg" "$S/$seed" "mutate itself failed"
		   continue ;;
		esac
		read -r desc <"$wd/desc"
		# other rules and PMD sizes take other paths through the tool
		case $((id % 6)) in
		0) XOPTS=--no-pad ;; 2) XOPTS=--madvise ;; 3) XOPTS=--rule=kernel ;;
		4) XOPTS=--pmd-size=64K ;; 5) XOPTS=--pmd-size=4M ;; *) XOPTS= ;;
		esac
		case $seed in mad*) XOPTS=--madvise ;; esac
		CHECKMODE=loose
		if [ "$STRICT" = 1 ]; then
			case $XOPTS in --no-pad | --rule=kernel) CHECKMODE=strict ;; esac
		fi
		local syncflag=--no-sync
		[ $((id % SYNC_EVERY)) -eq 0 ] && syncflag=
		if mal_case "$id" "$seed $mode $mseed ${arg#-}: $desc${XOPTS:+ [$XOPTS]}" "$wd/case.elf" "$wd/c" "$syncflag" prepared; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done <"$LIST"
	echo "$passed $failed $na" >"$WORK/count.$k"
}

for ((k = 0; k < JOBS; k++)); do worker "$k" & done
wait
passed=0 failed=0 na=0
for ((k = 0; k < JOBS; k++)); do
	if [ -f "$WORK/count.$k" ]; then
		read -r p f s <"$WORK/count.$k"
		passed=$((passed + p)) failed=$((failed + f)) na=$((na + s))
	else
		fail "worker $k died"
	fi
done
cat "$WORK"/fails.[0-9]* 2>/dev/null | sed 's/^/FAIL /; s/^FAIL   /      /'
echo "mutated cases: $passed passed, $failed failed, $na not applicable ($((SECONDS - START)) s)"
# Each case is one check.
n_pass=$((n_pass + passed)) n_fail=$((n_fail + failed))
mal_check_json
malformed_finish
