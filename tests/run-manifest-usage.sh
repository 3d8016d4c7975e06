#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-usage.sh: the usage errors of the kept conversion, exit 64:
# --keep-originals without --manifest, --manifest with -n or -o, reapply
# given a file.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

manifest_start
for args in "--keep-originals=$W/K $W/orig/prog" "-n --manifest=$W/M4 $W/orig/prog" \
	"--manifest=$W/M4 -o $W/out $W/orig/prog" "reapply $W/orig/prog"; do
	# shellcheck disable=SC2086  # the arguments are words
	"$ELFPMD" $args >/dev/null 2>&1
	check "usage error: ${args//$W/W}" test $? -eq 64
done
finish
