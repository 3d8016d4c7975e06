#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-reapply-bounded.sh: elfpmd reapply's work is bounded.  A
# listed file whose size is not the one elfpmd wrote is not hashed (strace:
# no read of it but the 4 bytes of its magic), and one larger than
# --max-size (default 1 GiB: here a sparse 1 GiB + 4 KiB) is left alone
# before it is read; the sanity arm: with --max-size=0 reapply -n would
# convert it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
have strace || skip_all "strace not found: reapply's reads are not counted"
mkdir -p "$W/bt" && cp "$W/orig/prog" "$W/bt/prog" && "$ELFPMD" -q --madvise --manifest="$W/M5" "$W/bt/prog" \
	|| hard_error "cannot convert $W/bt/prog"
# (LeakSanitizer cannot run under ptrace: off for the traced runs of a
# sanitizer build.)
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
cp "$W/orig/prog-v2" "$W/bt/prog"
ASAN_OPTIONS=$traced_asan strace -qq -y -e trace=read,pread64 -o "$W/size.strace" "$ELFPMD" reapply -n --manifest="$W/M5" >"$W/size.out" 2>&1
reads=$(grep -c "<$W/bt/prog>" "$W/size.strace")
holds "reapply -n, a replaced file of another size: would be converted, read $reads time(s) (the magic only: 1)" \
	'grep -q "bt/prog: would be converted again" "$W/size.out" && [ "$reads" -eq 1 ] && grep -q "pread64([0-9]*<$W/bt/prog>, .*, 4, 0) = 4" "$W/size.strace"'
truncate -s $(((1 << 30) + 4096)) "$W/bt/prog"
ASAN_OPTIONS=$traced_asan strace -qq -y -e trace=read,pread64 -o "$W/big.strace" "$ELFPMD" reapply --manifest="$W/M5" >"$W/big.out" 2>&1
st=$?
reads=$(grep -c "<$W/bt/prog>" "$W/big.strace")
holds "reapply, a listed file of 1 GiB + 4 KiB: exit 0 (got $st), left alone, larger than --max-size, read $reads time(s) ($(head -1 "$W/big.out"))" \
	'[ $st -eq 0 ] && grep -q "bt/prog: left alone: larger than --max-size (1073745920 bytes, 1073741824 at most)" "$W/big.out" && [ "$reads" -le 1 ] && [ "$(wc -l <"$W/M5")" -eq 1 ]'
"$ELFPMD" reapply -n --max-size=0 --manifest="$W/M5" >"$W/big0.out" 2>&1
check "sanity: with --max-size=0, reapply -n would convert it ($(head -1 "$W/big0.out"))" \
	grep -q "bt/prog: would be converted again" "$W/big0.out"
finish
