#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-macros-options.sh: what a spec or a build can set in
# dist/rpm/macros.elfpmd (rpm --eval; rpm-lib.sh, rpm_macros_setup): the
# opt-out %__brp_elfpmd %{nil} leaves the platform's %__os_install_post
# alone; %_elfpmd_options and %_elfpmd_paths reach brp-elfpmd's command
# line; and in %__spec_install_post the debuginfo extraction comes first,
# then the platform's brp scripts (strip), then elfpmd.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/rpm-lib.sh"
rpm_require
scratch_dir
rpm_macros_setup

check "opt-out (%__brp_elfpmd %{nil}): the platform's alone" plain_again --macros "$etc_path" --define '__brp_elfpmd %{nil}'
got=$(rpm --macros "$base_path" --load "$macros" --define "__elfpmd_brp_script $brp" --define "_elfpmd_options --madvise -p" --define '_elfpmd_paths /opt/x' --eval '%__brp_elfpmd')
check "%_elfpmd_options and %_elfpmd_paths reach the script's command line ($got)" \
	test "$got" = "$rpm_dist/brp-elfpmd --madvise -p -- /opt/x"
rpm --macros "$etc_path" --define '__debug_package 1' --eval '%__spec_install_post' > "$work/spec_install_post" 2>&1
order=$(grep -n -e '__find_debuginfo\|find-debuginfo' -e 'brp-strip ' -e 'brp-elfpmd' "$work/spec_install_post" \
	| sed 's/^\([0-9]*\):.*\(find-debuginfo\|brp-strip\|brp-elfpmd\).*/\2/' | tr '\n' ' ')
check "%__spec_install_post order: $order" test "$order" = "find-debuginfo brp-strip brp-elfpmd "
finish
