#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-stub-symbols-unstripped.sh: a file with a symbol table of its own
# (prog7, not stripped) gets no MiniDebugInfo from --madvise: gdb reads its
# symbol table, which the rewrite keeps, one.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_symbols_start
"$ELFPMD" -q --madvise -o rw.full "$BIG/prog7" || hard_error "elfpmd --madvise failed on the unstripped fixture"
./rw.full
check "the unstripped rewrite runs (exit 7)" test $? = 7
check "it gets no .gnu_debugdata, and keeps its one symbol table" \
	test "$(readelf -SW rw.full | grep -c '\.gnu_debugdata')" = 0 -a \
	"$(readelf -SW rw.full | grep -c ' SYMTAB ')" = 1
test_finish
