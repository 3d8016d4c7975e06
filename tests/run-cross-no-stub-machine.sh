#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cross-no-stub-machine.sh: on machines with PMD rules but no stub
# (ppc64, s390x) elfpmd --madvise names the machine in its refusal.  A copy
# of the tool itself with e_machine changed is enough: the refusal comes
# before anything else.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
for m in "21 ppc64" "22 s390x"; do
	read -r num mname <<<"$m"
	cp "$ELFPMD" "$WORK/as-$mname"
	printf "\\x$(printf %02x "$num")\\x00" | dd of="$WORK/as-$mname" bs=1 seek=18 conv=notrunc status=none
	report=$("$ELFPMD" -n --madvise "$WORK/as-$mname" 2>&1)
	case $report in
	*"startup stub: not injected: no startup stub for $mname yet"*)
		pass "$mname: --madvise refuses, naming the machine: $(printf '%s\n' "$report" | grep -o 'no startup stub for.*')" ;;
	*)
		fail "$mname: --madvise's refusal does not name the machine: $(printf '%s\n' "$report" | grep -i 'stub\|error')" ;;
	esac
done
test_finish
