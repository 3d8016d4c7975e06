#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures-attributes.sh: the mode (with the set-user-ID bit), the owner
# and a file capability (security.capability) survive an in-place rewrite,
# which writes the bytes of a plain one.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

attributes () {
	local m=$w/mode/$file c=$w/cap/$file want_owner
	relaxed_rewrite || return
	mkdir -p "$w/mode" "$w/cap"
	cp "$w/orig/$file" "$m"
	want_owner=$(stat -c %u:%g "$m")
	if $am_root; then chown 65534:65534 "$m" && want_owner=65534:65534; fi
	chmod 4755 "$m"
	if rewrite "setuid copy" "$m"; then
		check "$name: mode 4755 kept (got $(stat -c %a "$m"))" test "$(stat -c %a "$m")" = 4755
		check "$name: owner $want_owner kept (got $(stat -c %u:%g "$m"))" \
			test "$(stat -c %u:%g "$m")" = "$want_owner"
		check "$name: setuid copy has the same bytes as the in-place result" cmp -s "$m" "$r"
	fi
	cp "$w/orig/$file" "$c"
	if ! $am_root || ! have setcap || ! have getcap; then
		skip "$name: file capabilities not checked (needs root, setcap and getcap)"
	elif ! setcap cap_net_raw+ep "$c" 2>"$w/setcap.err"; then
		skip "$name: setcap does not work here: $(head -1 "$w/setcap.err")"
	elif rewrite "copy with capability" "$c"; then
		check "$name: file capability cap_net_raw+ep kept (getcap: $(getcap "$c" | sed "s|$c *||"))" \
			has_cap_net_raw "$c"
		check "$name: capability copy has the same bytes as the in-place result" cmp -s "$c" "$r"
	fi
}
for_each_align_fixture attributes
test_finish
