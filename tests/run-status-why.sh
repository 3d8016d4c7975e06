#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-why.sh: elfpmd status says why nothing is on huge pages, and
# that alignment alone does nothing for a fixed-address program.  Paused
# programs with 17 MiB of text (tests/fixtures mad-nopie, mad-pie):
#   exec    mad-nopie as linked (ET_EXEC, no stub)
#   shm     mad-pie aligned (no stub), run from tmpfs
#   mad     mad-pie with the stub, on the build directory's file system
# For each, elfpmd status --json PID: fixed_address_without_stub is 1 for
# exec only; why_none is null exactly when some chunk is PMD-mapped, and
# otherwise names the cause this machine has (THP off; tmpfs for shm; THP
# 'madvise' without a stub for exec); the text summary says the same.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pids=()

require_elfpmd
have python3 || skip_all "python3 not found (reads the JSON report)"
[ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" = $((0x200000)) ] \
	|| skip_all "no transparent huge pages with a 2 MiB PMD (the fixtures are made for it)"
shm=/dev/shm
[ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] || skip_all "$shm is not tmpfs"

work_dir
shmdir=$(mktemp -d "$shm/elfpmd-status-why.XXXXXX") || hard_error "cannot create a directory in $shm"
cleanup () {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$shmdir"
}
trap cleanup EXIT

built_any=false
for t in mad-pie mad-nopie; do
	build_or_skip "$t" "$t" && built_any=true
done
stop_unless_built
[ -x "$O/mad-pie" ] && [ -x "$O/mad-nopie" ] || skip_all "mad-pie or mad-nopie could not be built"

cp "$O/mad-nopie" "$WORK/exec" \
	&& "$ELFPMD" -q -o "$shmdir/shm" "$O/mad-pie" \
	&& "$ELFPMD" -q --madvise -o "$WORK/mad" "$O/mad-pie" \
	|| hard_error "cannot make the programs"

start_paused exec "$WORK/exec"
start_paused shm "$shmdir/shm"
start_paused mad "$WORK/mad"

thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
note "THP mode here: $thp"
for label in exec shm mad; do
	pid_var=pid_$label
	"$ELFPMD" status --json "${!pid_var}" > "$WORK/$label.json" 2>&1
	"$ELFPMD" status "${!pid_var}" > "$WORK/$label.txt" 2>&1
	verdict=$(python3 - "$WORK/$label.json" "$label" "$thp" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[-1]["summary"]
label, thp = sys.argv[2], sys.argv[3]
fixed = s["fixed_address_without_stub"]
assert fixed == (1 if label == "exec" else 0), ("fixed_address_without_stub", fixed)
why = s["why_none"]
assert s["whole_chunks"] > 0, s
if s["pmd_mapped_chunks"] > 0:
    assert why is None, why
    print("some chunks PMD-mapped, no reason given")
else:
    assert why is not None, "nothing PMD-mapped and no reason"
    if thp == "never":
        want = "transparent huge pages are off"
    elif label == "shm":
        want = "the text is on tmpfs"
    elif label == "exec" and thp == "madvise":
        want = "THP is 'madvise' and no object carries the startup stub"
    else:
        want = ""
    assert why.startswith(want), (why, want)
    print("nothing PMD-mapped: " + why[:60])
EOF
	) && pass "$label: the JSON summary ($verdict)" || fail "$label: the JSON summary: $verdict $(tail -1 "$WORK/$label.json")"
	why=$(python3 -c 'import json,sys; w = json.loads(open(sys.argv[1]).read().splitlines()[-1])["summary"]["why_none"]; print(w or "")' "$WORK/$label.json" 2>/dev/null)
	if [ -n "$why" ]; then
		check "$label: the text summary gives the same reason" grep -qF "(none on huge pages: $why)" "$WORK/$label.txt"
	else
		check "$label: the text summary gives no reason" sh -c "! grep -q 'none on huge pages' '$WORK/$label.txt'"
	fi
done
grep -q "1 fixed-address program (ET_EXEC) without the stub, for which alignment alone has no run-time effect" "$WORK/exec.txt" \
	&& pass "exec: the text summary names the fixed-address program" || fail "exec: $(tail -1 "$WORK/exec.txt")"
check "mad: no such words for a program with the stub" sh -c "! grep -q 'fixed-address' '$WORK/mad.txt'"

finish
