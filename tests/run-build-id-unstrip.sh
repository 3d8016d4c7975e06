#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-build-id-unstrip.sh: a library rewritten with --madvise (its
# build-id note and .gnu.hash moved into the stub's segment) and the debug
# file split from it, by objcopy --only-keep-debug and strip, or by
# eu-strip -f, carry one build-id, and eu-unstrip joins them into a file
# eu-elflint --gnu-ld accepts; the original's debug file, which eu-unstrip
# cannot join with the rewritten library, has another build-id.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/build-id-lib.sh"

bid_start
for t in strip eu-strip eu-unstrip eu-elflint; do
	have $t || skip_all "needs $t (Debian: binutils, elfutils)"
done
bid_lib "$W/lib.so"
"$ELFPMD" -v --madvise -o "$W/new.so" "$W/lib.so" > "$W/new.txt" || fail "elfpmd --madvise failed"
check "the build-id note moved into the stub's segment" grep -q 'moved into the stub.s segment: PT_NOTE' "$W/new.txt"
id=$(build_ids "$W/new.so")

objcopy --only-keep-debug "$W/new.so" "$W/a.debug" && strip -g -o "$W/a.so" "$W/new.so" \
	|| fail "objcopy --only-keep-debug, strip -g"
eu-strip -f "$W/b.debug" -o "$W/b.so" "$W/new.so" || fail "eu-strip -f"
for k in a b; do
	what=$([ $k = a ] && echo "objcopy --only-keep-debug" || echo "eu-strip -f")
	kid=$(build_ids "$W/$k.debug")
	holds "$what: the debug file has the rewritten library's build-id" '[ "$kid" = "$id" ]'
	check "$what: eu-unstrip joins the pair" eu-unstrip -o "$W/$k.joined" "$W/$k.so" "$W/$k.debug"
	lint=$(elflint_count "$W/$k.joined")
	holds "$what: eu-elflint --gnu-ld accepts the joined file" '[ "$lint" -eq 0 ]'
done

objcopy --only-keep-debug "$W/lib.so" "$W/orig.debug" || fail "objcopy --only-keep-debug of the original"
oid=$(build_ids "$W/orig.debug")
holds "the original's debug file has another build-id ($oid, not $id)" '[ "$oid" != "$id" ]'
eu-unstrip -o "$W/mixed" "$W/a.so" "$W/orig.debug" 2> "$W/mixed.err"
holds "(eu-unstrip cannot join it with the rewritten library: the layouts differ)" \
	'[ -s "$W/mixed.err" ] && ! [ -s "$W/mixed" ]'
finish
