#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-cli-drop-behind.sh: a large file rewritten in place is copied into
# the memory its old contents free: the copy drops the input's clean pages
# behind it (fadvise DONTNEED), unless something still needs them: a dirty
# input (dropping would write out a file about to be removed), another name
# of the inode that stays, --manifest (which hashes the input after the
# copy), an output beside the input.  Asked of the kernel with cachestat
# itself (Linux 6.5).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_fixture
if ! have strace || ! have python3 || [ "$(uname -m)" != x86_64 ]; then
	skip_all "large file drop-behind: needs strace, python3 and x86-64"
fi
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
cachestat_dirty () { # FILE: dirty+writeback pages of FILE, or "none" without cachestat
	python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class R(ctypes.Structure): _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]
class S(ctypes.Structure): _fields_ = [(n, ctypes.c_uint64) for n in ("c", "d", "w", "e", "r")]
fd = os.open(sys.argv[1], os.O_RDONLY); r = R(0, 0); s = S()
print(s.d + s.w if libc.syscall(451, fd, ctypes.byref(r), ctypes.byref(s), 0) == 0 else "none")' "$1" 2>/dev/null || echo none
}
dropped () { # ARGS...: whether elfpmd ARGS dropped pages of a file (strace)
	ASAN_OPTIONS=$traced_asan strace -f -e trace=fadvise64 -o "$WORK/trace" \
		"$ELFPMD" -q "$@" || fail "large file: elfpmd $* under strace"
	grep -q 'POSIX_FADV_DONTNEED) = 0' "$WORK/trace"
}
printf '.text\n.globl big\nbig: .fill 0x4800000,1,0xc3\n' > "$WORK/big.S"
cc -O1 -fPIE -pie -Wa,--noexecstack -o "$WORK/in" "$CLI/m.c" "$WORK/big.S" \
	|| { skip "large file: cannot build a 72 MiB program"; test_finish; }
"$ELFPMD" -q -o "$WORK/want" "$WORK/in" || fail "large file: elfpmd -o"
cp "$WORK/in" "$WORK/f"
sync "$WORK/f"
case $(cachestat_dirty "$WORK/f") in
none) skip "large file: no cachestat here, so elfpmd drops nothing" ;;
0)
	check "large file, clean, in place: the input's pages dropped behind the copy" dropped --no-sync "$WORK/f"
	check "large file, dropped behind: the same file as elfpmd -o writes" cmp -s "$WORK/f" "$WORK/want"
	check "large file, dropped behind: it runs" sh -c "'$WORK/f' | grep -qx ok"
	;;
*) skip "large file: still dirty after sync" ;;
esac
# A new file (cp over one, ext4 writes it out at close: auto_da_alloc).
rm -f "$WORK/f"
cp "$WORK/in" "$WORK/f"
d=$(cachestat_dirty "$WORK/f")
if [ "$d" != none ] && [ "$d" -gt 0 ]; then
	# shellcheck disable=SC2016  # holds evaluates it
	holds "large file, dirty: nothing dropped (it would be written out first)" '! dropped --no-sync "$WORK/f"'
	check "large file, dirty: the same file as elfpmd -o writes" cmp -s "$WORK/f" "$WORK/want"
else
	skip "large file: not dirty right after cp ($d)"
fi
for how in link manifest output; do
	cp "$WORK/in" "$WORK/f"
	sync "$WORK/f"
	rm -f "$WORK/l" "$WORK/m" "$WORK/o"
	case $how in
	link) ln "$WORK/f" "$WORK/l"; args=("$WORK/f") ;;
	manifest) args=(--manifest="$WORK/m" "$WORK/f") ;;
	output) args=(-o "$WORK/o" "$WORK/f") ;;
	esac
	# shellcheck disable=SC2016  # holds evaluates it
	holds "large file ($how): nothing dropped" '! dropped "${args[@]}"'
	[ "$how" != link ] || check "large file (link): the other name keeps the old contents" cmp -s "$WORK/l" "$WORK/in"
done
test_finish
