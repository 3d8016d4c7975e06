#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-malformed-permissions.sh: a file elfpmd may not read and one in a
# directory it may not write to (as nobody, through setpriv, when run as
# root, since root reads everything): exit 1 with one line on stderr, the
# file unchanged, nothing left behind.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

malformed_setup

if [ "$(id -u)" != 0 ]; then
	X=$WORK/special
	mkdir -p "$X"
	cp "$S/bigpie" "$X/unreadable.elf" && chmod 000 "$X/unreadable.elf"
	mal_tool "$WORK/np" "$X/unreadable.elf"
	reasons=""
	mal_expect_exit1 "$X/unreadable.elf"
	chmod 644 "$X/unreadable.elf"
	cmp -s "$S/bigpie" "$X/unreadable.elf" || reasons+="the file was modified"$'\n'
	mal_count unreadable "unreadable file" "$X/unreadable.elf" "$reasons"
	malformed_finish
fi
have setpriv && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ELFPMD" 2>/dev/null \
	|| skip_all "running as root without a working setpriv: permission cases skipped"

# A world-accessible directory, for nobody.
P=$(mktemp -d /tmp/elfpmd-malformed.XXXXXX) && chmod 755 "$P" || hard_error "cannot make a directory in /tmp"
cleanup_on_exit
CLEANUP+=("chmod -R u+rwx '$P'; rm -rf '$P'")
mkdir "$P/rw" "$P/ro" && chmod 777 "$P/rw"
cp "$S/bigpie" "$P/rw/unreadable.elf" && chmod 000 "$P/rw/unreadable.elf"
cp "$S/bigpie" "$P/ro/bigpie.elf" && chmod 644 "$P/ro/bigpie.elf" && chmod 555 "$P/ro"
cp "$S/bigpie" "$P/ref.elf"
for what in unreadable readonly-dir; do
	if [ "$what" = unreadable ]; then f=$P/rw/unreadable.elf; else f=$P/ro/bigpie.elf; fi
	reasons=""
	timeout -k 2 "$TMO" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ELFPMD" "$f" >"$WORK/np.out" 2>"$WORK/np.err"
	RC=$? ERR=
	IFS= read -r -d '' ERR <"$WORK/np.err"
	mal_expect_exit1 "$f"
	cmp -s "$P/ref.elf" "$f" || reasons+="the file was modified"$'\n'
	mal_only_files "$(dirname "$f")" "$(basename "$f")" || reasons+="files left behind: $(ls -A "$(dirname "$f")" | tr '\n' ' ')"$'\n'
	mal_count "as-nobody-$what" "as nobody: $what" "$f" "$reasons"
done
malformed_finish
