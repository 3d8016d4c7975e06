# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# bench/lib.sh: the preamble the benchmark scripts share.  Sourced by them
# after their options are parsed (". "$(dirname "$0")/lib.sh"").

# bench_die MESSAGE: print "SCRIPT: MESSAGE" on stderr and exit 1.
bench_die () { echo "${0##*/}: $*" >&2; exit 1; }

# bench_find_elfpmd: set ELFPMD, unless the environment gives it, to
# ../src/elfpmd beside the scripts, else to elfpmd on PATH.
bench_find_elfpmd () {
	local here
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -z "${ELFPMD:-}" ]; then
		if [ -x "$here/../src/elfpmd" ]; then
			ELFPMD=$here/../src/elfpmd
		else
			ELFPMD=$(command -v elfpmd) || bench_die "elfpmd not found: set ELFPMD"
		fi
	fi
}

# bench_require_root_thp: root, a writable drop_caches, and transparent huge
# pages not [never]; sets thp to the THP mode file.
bench_require_root_thp () {
	[ "$(id -u)" = 0 ] || bench_die "needs root (drop_caches)"
	[ -w /proc/sys/vm/drop_caches ] || bench_die "/proc/sys/vm/drop_caches is not writable"
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -r "$thp" ] || bench_die "$thp missing: kernel without transparent huge pages"
	! grep -q '\[never\]' "$thp" || bench_die "transparent huge pages are disabled ($thp)"
}

# bench_workdir NAME: WORK becomes a new directory NAME.XXXXXX under $WORK
# (created when missing) or, when WORK is empty, under /var/tmp; it is
# removed at exit unless KEEP is 1.
bench_workdir () {
	if [ -n "$WORK" ]; then
		mkdir -p "$WORK"
		WORK=$(mktemp -d "$WORK/$1.XXXXXX")
	else
		WORK=$(mktemp -d "/var/tmp/$1.XXXXXX")
	fi
	trap 'if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
}
