#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-build-log.sh: the logs of the builds of run-rpm-build.sh:
# brp-elfpmd ran before find-debuginfo (where this rpm makes a debuginfo
# package; else after brp-strip) and brp-strip, with -j 3
# (%_smp_build_ncpus, not this machine's CPU count, which elfpmd would take
# by default), without a macro recursion, and only in the hooked builds;
# with %_elfpmd_options --madvise, it was given --madvise.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
rpm_need
log=$RPM_BUILT/hook.log

if grep -qi 'recursion' "$log"; then fail "macro recursion in the build log"; fi
order=$(grep -E '^\+ .*(find-debuginfo|brp-strip |brp-elfpmd)' "$log" \
	| sed -E 's/.*(find-debuginfo|brp-strip|brp-elfpmd).*/\1/' | tr '\n' ' ')
want="brp-strip brp-elfpmd "
$debuginfo && want="brp-elfpmd find-debuginfo brp-strip "
check "build log: $order" test "$order" = "$want"
check "build log: brp-elfpmd ran elfpmd with -j 3 (%_smp_build_ncpus)" \
	grep -q '^brp-elfpmd: aligning ELF text under .* (-j 3)$' "$log"
check "opt-out build log: brp-elfpmd not run" test "$(grep -c 'brp-elfpmd' "$RPM_BUILT/optout.log")" = 0
check "build log: brp-elfpmd --madvise -- ..." grep -q '^+ .*/brp-elfpmd --madvise -- /usr/bin ' "$RPM_BUILT/madvise.log"
finish
