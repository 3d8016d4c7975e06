#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-invisible-fifo.sh: a FIFO at the mapped object's path neither blocks
# the stub nor gets its calls.  An LD_AUDIT module (tests/fixtures/invfifo.c)
# unlinks the object's file once it is mapped and makes FIFOs at PATH and
# "PATH (deleted)", for inv-pie and for libinv.so (loaded by invdl), each
# rewritten by elfpmd --madvise and cached in order-0 folios: the rewrite
# ends within 20 s with the original's output, and under strace -y no
# fadvise64 or fdatasync touches a descriptor that is not the object's
# inode.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

invisible_start "drop_caches"
inv_fixture pie
inv_fixture lib
stub_fixture inv-tools

# fifo_run SRC DIR OUT [WRAPPER...]: copy SRC into DIR (anew), cache it in
# order-0 folios, run it (a program, or invdl loading the library), under
# WRAPPER... when given, with the LD_AUDIT module, for at most 20 s.  Fails
# when the FIFOs were not made.  (The module is given to the program only,
# through env after WRAPPER: it takes LD_AUDIT out of the environment of
# the process it runs in.)
fifo_run () {
	local src=$1 dir=$2 out=$3 f status
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"
	f=$dir/${src##*/}
	cp -p "$src" "$f"
	cache_order0 "$f"
	set -- "$@" env LD_AUDIT="$O/invfifo.so" INV_FIFO_PATH="$f"
	if [ "${src##*/}" = libinv.so ]; then set -- "$@" "$INVDL" "$f" 1; else set -- "$@" "$f" "${ARGS[@]}"; fi
	{ timeout -k 5 20 "$@" >"$out" 2>"$out.err"; status=$?; } 2>/dev/null
	echo "exit status $status" >>"$out"
	[ -p "$f" ] && [ -p "$f (deleted)" ]
}

CLEANUP+=("rm -rf '$WORK/fifo'")
for kind in program library; do
	if [ $kind = program ]; then o=$P_ORIG m=$P_MAD; else o=$L_ORIG m=$L_MAD; fi
	w=$WORK/fifo.$kind d=$WORK/fifo/$kind
	what="FIFO at the $kind's path, order-0"
	if ! fifo_run "$o" "$d/orig" "$w.orig"; then
		skip "$what: the LD_AUDIT module did not put FIFOs at the original's path ($(head -1 "$w.orig.err"))"
		continue
	fi
	fifo_run "$m" "$d/mad" "$w.mad" || fail "$what: the LD_AUDIT module did not put FIFOs at the rewrite's path"
	case $(tail -1 "$w.mad") in
	"exit status 124" | "exit status 137") fail "$what: the rewrite did not finish within 20 s (killed)"; continue ;;
	esac
	same "$w.orig" "$w.mad" "$what"
	have strace || { skip "$what: strace not found: its calls are not checked"; continue; }
	if ! fifo_run "$m" "$d/mad" "$w.strace.out" strace -f -qq -y -o "$w.strace" -e trace=fadvise64,fdatasync; then
		fail "$what: under strace, the LD_AUDIT module did not put FIFOs at the rewrite's path"
		continue
	fi
	f=$d/mad/${m##*/}
	calls=$(strace_calls "$w.strace" fadvise64 fdatasync)
	# (strace -y shows the unlinked inode as <PATH>(deleted), or <PATH
	# (deleted)> like the FIFO of that name: a call on a FIFO fails with
	# ESPIPE or EINVAL)
	bad=$(echo "$calls" | grep -v '^$' | awk -v ok1="<$f (deleted)>" -v ok2="<$f>(deleted)" '
		(index($0, ok1) == 0 && index($0, ok2) == 0) || / = -1 (ESPIPE|EINVAL|EBADF)/')
	if [ -z "$bad" ]; then
		pass "$what: no fadvise64 or fdatasync on another descriptor than the object's inode ($(echo "$calls" | grep -c .) on it)"
	else
		fail "$what: fadvise64 or fdatasync on a descriptor that is not the object's inode: $(echo "$bad" | head -1 | sed 's/^[0-9]* *//')"
	fi
done
stub_finish
