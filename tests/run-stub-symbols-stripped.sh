#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols-stripped.sh: the --madvise rewrite of a stripped file
# (lib.sh, bigtext: prog7-stripped, as distributions ship programs) stays
# stripped: it runs as the original, the report counts the stub's symbols
# (those of its MiniDebugInfo), the file has no symbol table of its own,
# file(1) still calls it stripped (lintian would report a symbol table) and
# eu-elflint accepts it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_symbols_start
./rw
check "the rewrite runs as the original (exit 7)" test $? = 7
"$ELFPMD" -n --json --madvise "$BIG/prog7-stripped" >json
check "the report counts the symbols" grep -q '"symbols":[1-9]' json
check "no symbol table in the file itself" test "$(readelf -SW rw | grep -c ' SYMTAB ')" = 0
if have file; then
	check "file(1) still calls it stripped" sh -c "file rw | grep -q ', stripped'"
fi
if have eu-elflint; then
	check "eu-elflint accepts the rewrite" eu-elflint --gnu-ld -q rw
fi
test_finish
