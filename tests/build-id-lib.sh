# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# build-id-lib.sh: what the build-id tests (run-build-id-*.sh) share,
# sourced after lib.sh: a work directory, the fixtures, and a file's
# build-ids as readelf reads them (no code of elfpmd's).

# bid_start: stop unless the tools are there; make $W, removed at exit, and
# make sure of $PHDR_DUMP.
bid_start () {
	require_elfpmd
	[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 assembly"
	for t in cc readelf objcopy; do
		have $t || skip_all "needs $t"
	done
	W=$(mktemp -d) || hard_error "cannot make a work directory"
	trap 'rm -rf "$W"' EXIT
	require_phdr_dump "$W/bin"
}

# bid_prog FILE [LDFLAG...]: a PIE with a build-id and 4 MiB of text beside
# main (exits 7), which elfpmd aligns.
bid_prog () {
	local out=$1
	shift
	bigtext_asm "$W/big.S"
	echo 'int main (void) { return 7; }' > "$W/main.c"
	cc -O2 -g -fPIE -pie -Wl,--build-id "$@" -o "$out" "$W/main.c" "$W/big.S" \
		|| hard_error "cannot build the program fixture"
}

# bid_lib FILE: a shared library whose program header table has no free
# slot and is followed by its build-id note and a .gnu.hash of 100 KiB
# (12,000 exported functions): with --madvise both move into the stub's
# segment.
bid_lib () {
	hashlib_asm "$W/lib.S"
	cc -g -shared -nostdlib -Wl,--build-id -Wl,--hash-style=gnu -o "$1" "$W/lib.S" \
		|| hard_error "cannot build the library fixture"
}

# build_ids FILE: FILE's build-ids, one a line, in the order readelf lists
# its notes.
build_ids () { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $NF }'; }
