#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-rpm-macros-options.sh: what a spec or a build can set in
# dist/rpm/macros.elfpmd (rpm --eval; rpm-lib.sh, rpm_macros_setup): the
# opt-out %__brp_elfpmd %{nil} leaves the platform's %__os_install_post
# alone; %_elfpmd_options and %_elfpmd_paths reach brp-elfpmd's command
# line; and in %__spec_install_post elfpmd comes first, then the debuginfo
# extraction, then the platform's brp scripts (strip), where a debuginfo
# package is made; without one, elfpmd after the brp scripts; and the
# file in %{_rpmmacrodir} (base_path) alone runs elfpmd nowhere.
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
check "%__spec_install_post order: $order" test "$order" = "brp-elfpmd find-debuginfo brp-strip "
rpm --macros "$etc_path" --undefine '__debug_package' --eval '%__spec_install_post' > "$work/spec_install_post" 2>&1
order=$(grep -e 'find-debuginfo' -e 'brp-strip ' -e 'brp-elfpmd' "$work/spec_install_post" \
	| sed 's/.*\(find-debuginfo\|brp-strip\|brp-elfpmd\).*/\1/' | tr '\n' ' ')
check "without a debuginfo package: $order" test "$order" = "brp-strip brp-elfpmd "
# rpmbuild builds several specs in one process: one with a debuginfo
# package, then one without, each gets elfpmd once
order=$(rpm --macros "$etc_path" --define '__debug_package 1' --eval '%__spec_install_post' \
	--undefine __debug_package --eval '%__spec_install_post' 2>&1 \
	| grep -o -e 'find-debuginfo' -e 'brp-strip ' -e 'brp-elfpmd' | tr '\n' ' ')
check "a spec with a debuginfo package, then one without, in one process: $order" \
	test "$order" = "brp-elfpmd find-debuginfo brp-strip  brp-strip  brp-elfpmd "
rpm --macros "$dotd_path" --define '__debug_package 1' --eval '%__spec_install_post' > "$work/spec_install_post" 2>&1
check "the file in %{_rpmmacrodir} alone: no brp-elfpmd in %__spec_install_post" \
	sh -c '! grep -q brp-elfpmd "$1"' - "$work/spec_install_post"
rpm --macros "$dotd_path" --define '__debug_package 1' --define '__os_install_post %{__elfpmd_os_install_post}' \
	--eval '%__spec_install_post' > "$work/spec_install_post" 2>&1
order=$(grep -e 'find-debuginfo' -e 'brp-strip ' -e 'brp-elfpmd' "$work/spec_install_post" \
	| sed 's/.*\(find-debuginfo\|brp-strip\|brp-elfpmd\).*/\1/' | tr '\n' ' ')
check "... and a spec's %define __os_install_post %{__elfpmd_os_install_post}: $order" \
	test "$order" = "brp-elfpmd find-debuginfo brp-strip "
finish
