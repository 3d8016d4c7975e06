#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-macros-body.sh: the hook of dist/rpm/macros.elfpmd puts the
# definition of %__os_install_post back as it was once expanded, also a
# body with more than the hook in it (a backslash, lines after it), which
# then expands the same twice: brp-elfpmd, then the body's own line (rpm
# --eval with the /etc/rpm form; rpm-lib.sh, rpm_macros_setup).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_macros_setup

body_after_expansion () {
	rpm "$@" --eval '%__os_install_post' --eval '@@@' --eval '%{macrobody:__os_install_post}' 2>&1 | sed '1,/^@@@$/d'
}
check "/etc/rpm form: %__os_install_post's definition unchanged by an expansion" \
	test "$(body_after_expansion --macros "$etc_path")" = '%{__elfpmd_os_install_post}'
printf '%s\n' '%__os_install_post %{__elfpmd_os_install_post}\' 'echo "a \\ b"\' '%{nil}' > "$work/spec-like.macros"
got=$(body_after_expansion --macros "$etc_path" --load "$work/spec-like.macros")
check "a body around the hook: definition unchanged by an expansion" \
	test "$got" = "$(rpm --macros "$etc_path" --load "$work/spec-like.macros" --eval '%{macrobody:__os_install_post}')"
got=$(rpm --macros "$etc_path" --load "$work/spec-like.macros" --eval '%__os_install_post' --eval '%__os_install_post' 2>&1 \
	| grep -e brp-elfpmd -e '^echo' | tr -s ' ' | tr '\n' '|')
check "a body around the hook: brp-elfpmd, then the body's own line, twice: $got" \
	test "$got" = "$brp_line|echo \"a \\ b\"|$brp_line|echo \"a \\ b\"|"
finish
