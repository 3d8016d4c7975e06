#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-padding-refuse-phdrs.sh: the program headers in a new PT_LOAD at the
# end of the file (patchelf's layout): a hole before them would break
# AT_PHDR as kernels before 5.18 compute it (the input keeps that rule), so
# elfpmd exits 0, reports "padding refused" for the program headers' place,
# and leaves the file alone.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_elfpmd
work_dir
require_lld_pie
w=$WORK

# Copy the table to a page past every address and offset, point e_phoff and
# PT_PHDR there, and turn PT_NOTE into the PT_LOAD that maps it at address =
# offset, so that first PT_LOAD (0, 0) + e_phoff is still PT_PHDR's address.
python3 - "$O/lld-pie" "$w/phdrs" <<'EOF_PY' || skip_all "refusal by the program headers' place: cannot craft it from lld-pie"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
if b[4] != 2 or b[5] != 1:
    sys.exit(1)
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
tab = bytearray(b[phoff:phoff + phentsize * phnum])
fmt = "<IIQQQQQQ"
ph = [list(struct.unpack_from(fmt, tab, i * phentsize)) for i in range(phnum)]
hi = max([len(b)] + [max(p[3] + p[6], p[2] + p[5]) for p in ph if p[0] == 1])
new = (hi + 0xfff) & ~0xfff
kinds = [p[0] for p in ph]
if 6 not in kinds or 4 not in kinds or [p for p in ph if p[0] == 1][0][2:4] != [0, 0]:
    sys.exit(1)
for i, p in enumerate(ph):
    if p[0] == 6:
        struct.pack_into(fmt, tab, i * phentsize, 6, 4, new, new, new, len(tab), len(tab), 8)
    elif p[0] == 4:
        struct.pack_into(fmt, tab, i * phentsize, 1, 4, new, new, new, len(tab), len(tab), 0x1000)
        break
b += bytes(new - len(b)) + tab
struct.pack_into("<Q", b, 32, new)
open(sys.argv[2], "wb").write(b)
EOF_PY
chmod +x "$w/phdrs"
if "$w/phdrs" "${ARGS[@]}" >/dev/null 2>&1; [ $? -eq 42 ]; then
	pass "phdrs: the crafted file with program headers at the end runs (exit 42)"
else
	note "phdrs: the crafted file does not run here; checking elfpmd's plan only"
fi
check_refusal "$w/phdrs" "program headers away from the first PT_LOAD" no
finish
