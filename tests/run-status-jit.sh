#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-status-jit.sh: a Python process with 8 MiB of anonymous executable
# memory on huge pages (MADV_HUGEPAGE), as a JIT compiler has it (QEMU's code
# buffer), paused until killed: elfpmd status counts it as anon_exec_huge_kb
# (JIT code), not as text, in the JSON and in the text report.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status_require
python3 -c '
import mmap, signal, sys
m = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
              prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.madvise(mmap.MADV_HUGEPAGE)
for i in range(0, 8 << 20, 4096):
    m[i] = 0xc3
open(sys.argv[1], "w").write("ready\n")
signal.pause()' "$WORK/jit.ready" >"$WORK/jit.out" 2>&1 &
pid_jit=$!
pids+=("$pid_jit")
n=0
while [ ! -s "$WORK/jit.ready" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
jit_kb=$(awk '/^AnonHugePages:/ { s += $2 } END { print s + 0 }' "/proc/$pid_jit/smaps" 2>/dev/null)
if [ ! -s "$WORK/jit.ready" ] || [ "${jit_kb:-0}" -eq 0 ]; then
	note "no anonymous huge pages for the JIT-like process ($(head -1 "$WORK/jit.out"))"
	skip "no anonymous huge pages here: the JIT checks"
	test_finish
fi
"$ELFPMD" status --json "$pid_jit" >"$WORK/jit.json" 2>&1
python3 - "$WORK/jit.json" "$pid_jit" "$jit_kb" >"$WORK/jit.cmp" 2>&1 <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
pid, kb = int(sys.argv[2]), int(sys.argv[3])
p = [d for d in docs[:-1] if d.get("pid") == pid]
s = docs[-1]["summary"]
ok = (len(p) == 1 and p[0]["anon_exec_huge_kb"] >= kb and p[0]["objects"] == []
      and s["anon_exec_huge_kb"] == p[0]["anon_exec_huge_kb"] and s["anon_text_huge_kb"] == 0
      and s["whole_chunks"] == 0)
print("ok" if ok else "bad: %s" % docs)
PY
check "JIT memory ($jit_kb kB on huge pages) is anon_exec_huge_kb, not text ($(head -c 200 "$WORK/jit.cmp"))" \
	grep -qx ok "$WORK/jit.cmp"
"$ELFPMD" status "$pid_jit" >"$WORK/jit.txt" 2>&1
check "the text report calls it JIT code, not text" grep -q "anonymous executable memory on huge pages (JIT code, not" "$WORK/jit.txt"
check "and the summary line does not count it as text" \
	sh -c "! tail -1 '$WORK/jit.txt' | grep -q 'anonymous text'"
test_finish
