#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-map-bad-dwarf.sh: hostile DWARF, exec-g with its .debug_abbrev
# overwritten with 0xff bytes: elfpmd map exits 0 with names from .symtab
# and one line on stderr, never a crash.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

map_start
"$PYTHON" - <<'PY' || hard_error "cannot damage the DWARF of exec-g"
import subprocess
for l in subprocess.run(["readelf", "-SW", "exec-g"], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".debug_abbrev":
        off, size = int(f[4], 16), int(f[5], 16)
b = bytearray(open("exec-g", "rb").read())
b[off:off + size] = b"\xff" * size
open("exec-baddwarf", "wb").write(b)
PY
chmod +x exec-baddwarf
"$ELFPMD" map --json exec-baddwarf >baddwarf.json 2>baddwarf.err
st=$?
map_expect baddwarf exec-baddwarf symtab exec-baddwarf
if [ $st = 0 ] && map_compare baddwarf; then pass "bad DWARF: exit 0, names from .symtab"; else fail "bad DWARF: exit $st, $(head -3 baddwarf.diff) $(head -2 baddwarf.err)"; fi
check "bad DWARF: one line on stderr says the names come from the symbol table" \
	test "$(wc -l <baddwarf.err)" = 1 -a "$(grep -c '^elfpmd map: exec-baddwarf: exec-baddwarf: .*: names from the symbol table$' baddwarf.err)" = 1
test_finish
