#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-manifest-trust-manifest.sh: as root, elfpmd reapply refuses, with the
# reason, a manifest another user owns, one its group can write, and one
# with an option elfpmd never records (--json=FILE: reapply would write
# where the manifest's author chose).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root_nobody "the rule of trust.c for manifests"
manifest_start
T=$W/trust
mkdir -p "$T" && chmod 755 "$T"
cp "$W/orig/prog" "$T/p"
"$ELFPMD" -q --manifest="$T/m" --keep-originals="$T/k" "$T/p" || hard_error "cannot convert $T/p"
cp "$T/m" "$T/m-nobody"; chown nobody "$T/m-nobody"
cp "$T/m" "$T/m-g"; chgrp nogroup "$T/m-g" 2>/dev/null || chgrp nobody "$T/m-g"; chmod 664 "$T/m-g"
# (valid JSON whether the list was empty or not: the reader refuses a
# trailing comma before it looks at the options)
sed -e 's|"options":\[\]|"options":["--json=/etc/elfpmd-test"]|' -e t \
	-e 's|"options":\["|"options":["--json=/etc/elfpmd-test","|' "$T/m" >"$T/m-opt"
for m in m-nobody m-g m-opt; do
	"$ELFPMD" reapply -q --manifest="$T/$m" >/dev/null 2>"$T/err"
	st=$?
	holds "reapply of $m: exit 1, the reason said ($(head -1 "$T/err"))" \
		'[ $st -eq 1 ] && grep -Eq "belongs to another user|writable by its group|line 1: the option" "$T/err" && [ ! -e /etc/elfpmd-test ]'
done
finish
