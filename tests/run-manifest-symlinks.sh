#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-symlinks.sh: as root, in a directory another user (nobody)
# owns, a symbolic link of that user's at the manifest's, the JSON
# report's or the originals directory's name is not followed: exit 1, the
# file or directory it points to left as it was.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root_nobody "the symbolic-link checks"
manifest_start
mkdir -p "$W/theirs" "$W/tree/bin" && chown nobody "$W/theirs" && chmod 755 "$W"
echo precious >"$W/target" && mkdir -p "$W/target-dir"
for what in "--manifest=$W/theirs/m" "--json=$W/theirs/m" \
	"--manifest=$W/M5 --keep-originals=$W/theirs/m"; do
	rm -f "$W/theirs/m"
	case $what in *keep*) setpriv --reuid=nobody -- ln -s "$W/target-dir" "$W/theirs/m" ;;
	*) setpriv --reuid=nobody -- ln -s "$W/target" "$W/theirs/m" ;; esac
	cp "$W/orig/prog" "$W/tree/bin/prog5"
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" -q --madvise $what "$W/tree/bin/prog5" >/dev/null 2>"$W/link.err"
	st=$?
	holds "another user's symbolic link at $what: exit 1, not followed ($(head -1 "$W/link.err"))" \
		'[ $st -eq 1 ] && [ "$(cat "$W/target")" = precious ] && [ -z "$(ls -A "$W/target-dir")" ]'
done
finish
