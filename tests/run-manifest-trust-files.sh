#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-trust-files.sh: the rule of src/core/trust.c, as root: what
# elfpmd writes beside the files it rewrites is not what another user
# prepared.  A FIFO as the JSON report or the manifest: exit 1 at once,
# nothing rewritten (and reapply of a FIFO manifest); another user's
# originals directory, writable by all: refused; an existing report with
# another hard link: not written through.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root_nobody "the rule of trust.c"
manifest_start
T=$W/trust
mkdir -p "$T" && chmod 755 "$T"
mkfifo "$T/fifo"
cp "$W/orig/prog" "$T/p"
for what in "--json=$T/fifo" "--manifest=$T/fifo"; do
	timeout 10 "$ELFPMD" -q "$what" "$T/p" >/dev/null 2>"$T/err"
	st=$?
	holds "$what: exit 1 at once, nothing rewritten ($(head -1 "$T/err"))" \
		'[ $st -eq 1 ] && cmp -s "$T/p" "$W/orig/prog" && grep -q "not a regular file" "$T/err"'
done
timeout 10 "$ELFPMD" reapply --manifest="$T/fifo" >/dev/null 2>"$T/err"
st=$?
check "reapply --manifest=FIFO: exit 1 at once ($(head -1 "$T/err"))" test $st = 1
mkdir "$T/o" && chown nobody "$T/o" && chmod 777 "$T/o"
"$ELFPMD" -q --manifest="$T/m" --keep-originals="$T/o" "$T/p" 2>"$T/err"
st=$?
holds "--keep-originals= another user's directory: exit 1, nothing rewritten ($(head -1 "$T/err"))" \
	'[ $st -eq 1 ] && cmp -s "$T/p" "$W/orig/prog" && grep -q "belongs to another user" "$T/err"'
echo precious >"$T/target" && ln "$T/target" "$T/report"
"$ELFPMD" -q --json="$T/report" "$T/p" 2>"$T/err"
holds "--json= a file with another hard link: exit 1, untouched ($(head -1 "$T/err"))" \
	'[ "$(cat "$T/target")" = precious ] && grep -q "hard links" "$T/err"'
finish
