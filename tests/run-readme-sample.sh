#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-readme-sample.sh: README.md's sample dry run (elfpmd -n sample) is
# the real output for the same fixture, a PIE with 4 MiB of text: every
# line the README shows ("..." elides) is a real line, in order, numbers
# differing in their digits but not in their widths; the table's header
# byte for byte.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_elfpmd

readme=$TESTS_SRCDIR/../README.md
have cc || skip_all "no C compiler"
find_python
work_dir
work=$WORK
printf '\t.text\n\t.globl big\nbig:\n\t.fill 0x400000,1,0xc3\n\t.section .note.GNU-stack,"",@progbits\n' > "$work/sample.S"
printf 'extern char big[];\nint main (void) { ((void (*) (void)) big) (); return 0; }\n' > "$work/main.c"
cc -O2 -fPIE -pie -o "$work/sample" "$work/main.c" "$work/sample.S" || hard_error "cannot build the fixture"

"$PYTHON" - "$readme" > "$work/sample.readme" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("    $ elfpmd -n sample")
for l in lines[i + 1:]:
    if not l.startswith("    "):
        break
    print(l[4:])
EOF
(cd "$work" && "$ELFPMD" -n sample) > "$work/sample.real" 2>&1
# same_shape: every README line ("..." elides) is a real line, in order,
# each hexadecimal digit run compared by its length only.
"$PYTHON" - "$work/sample.readme" "$work/sample.real" > "$work/sample.check" 2>&1 <<'EOF'
import re, sys
shape = lambda l: re.sub(r"0x[0-9a-f]+|\b\d+\b", lambda m: "N" * len(m.group(0)), l)
want = [l for l in open(sys.argv[1]).read().split("\n") if l]
real = [shape(l) for l in open(sys.argv[2]).read().split("\n") if l]
k = 0
for w in want:
    if w == "...":
        continue
    while k < len(real) and real[k] != shape(w):
        k += 1
    if k == len(real):
        print("not in the real output (in this order): " + w)
        sys.exit(1)
    k += 1
print("%d lines" % len([w for w in want if w != "..."]))
EOF
check "the README's sample dry run is the real one's lines, as wide ($(tail -1 "$work/sample.check"))" \
	grep -q "^[0-9]* lines$" "$work/sample.check"
grep -qx "$(sed -n 3p "$work/sample.readme")" "$work/sample.real" \
	&& pass "the sample's table header is the real one, byte for byte" || fail "the sample's table header differs: $(sed -n 3p "$work/sample.real")"

test_finish
