#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-usage.sh: the usage errors of --madvise=copy and --copy-max:
# --copy-max without --madvise=copy (with plain --madvise, or alone),
# --copy-max=0, --madvise=other and --madvise given twice each exit 64
# with a message.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start
copy_fixture

for bad in "--madvise --copy-max=2M" "--madvise=copy --copy-max=0" "--madvise=other" \
	"--madvise --madvise=copy" "--copy-max=2M"; do
	# shellcheck disable=SC2086  # the options are words
	"$ELFPMD" -n $bad "$MADPIE" >"$WORK/usage.out" 2>&1
	st=$?
	holds "elfpmd $bad: usage error (exit $st): $(head -1 "$WORK/usage.out")" '[ $st -eq 64 ]'
done
stub_finish
