#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rootsafe-names.sh: names are bytes: "caf\xe9" (Latin-1) and "café"
# (UTF-8) in nobody's tree, in one elfpmd -n --json -r run as root, come
# out as two names, each mapping back to its file's exact bytes.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rootsafe_start
have python3 || skip_all "python3 not found (reads the JSON)"
find_python
rootsafe_fresh
nobody_tree "cp '$ELF' \"\$(printf 'caf\\351')\" && cp '$ELF' 'café'"
"$ELFPMD" -n --json -r "$T" >"$W/names.json" 2>"$W/names.err"
if "$PYTHON" - "$W/names.json" "$T" <<'PY'
import json, os, sys
names = set()
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    if "file" not in r:
        continue
    raw = bytes.fromhex(r["file_hex"]) if "file_hex" in r else r["file"].encode()
    names.add(raw)
want = {os.path.join(os.fsencode(sys.argv[2]), n) for n in os.listdir(os.fsencode(sys.argv[2]))}
sys.exit(0 if names == want and len(names) == 2 else 1)
PY
then
	pass "names: caf\\xe9 and café are two names in the JSON, each its file's exact bytes"
else
	fail "names: the JSON does not map back to the two files: $(cat "$W/names.json")"
fi
finish
