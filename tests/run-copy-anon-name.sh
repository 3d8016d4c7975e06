#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-copy-anon-name.sh: the copy is named in smaps.  On ext4 mounted
# data=journal, where mad-pie's --madvise=copy rewrite copies its text
# into anonymous huge pages, smaps names that memory [anon:elfpmd copy of
# PATH].  Skipped where the kernel cannot name anonymous memory
# (PR_SET_VMA_ANON_NAME: CONFIG_ANON_VMA_NAME, probed with python's ctypes).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stub_test_start "drop_caches, loop devices"
python3 - <<'PY' 2>/dev/null || skip_all "this kernel cannot name anonymous memory (PR_SET_VMA_ANON_NAME: no CONFIG_ANON_VMA_NAME): the copy shows as plain anonymous memory"
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_char_p]
a = libc.mmap(None, 4096, 3, 0x22, -1, 0)
sys.exit(0 if libc.prctl(0x53564d41, 0, a, 4096, b"probe") == 0 else 1)
PY
copy_fixture
copy_journal
copy_rewrite "$MADPIE" "$J/copy"

cache_state warm "$J/copy"
copy_run "$J/copy.warm" "$J/copy"
same "$J/orig.out" "$J/copy.warm" "data=journal, copy, warm"
n=$(grep -c '^[0-9a-f]*-[0-9a-f]* r-xp .*\[anon:elfpmd copy of .*/copy\]$' "$J/copy.warm.smaps")
holds "data=journal, copy: smaps names the copy [anon:elfpmd copy of .../copy] ($n)" '[ "$n" -ge 1 ]'
stub_finish
