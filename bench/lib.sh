# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# bench/lib.sh: the preamble the benchmark scripts share.  Sourced by them
# after their options are parsed (". "$(dirname "$0")/lib.sh"").

# bench_die MESSAGE: print "SCRIPT: MESSAGE" on stderr and exit 1.
bench_die () { echo "${0##*/}: $*" >&2; exit 1; }

# bench_find_elfpmd: set ELFPMD, unless the environment gives it, to
# ../src/elfpmd beside the scripts (an in-tree build), else to
# ../_build/src/elfpmd (tools/setup.sh's), else to elfpmd on PATH.
bench_find_elfpmd () {
	local here
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -z "${ELFPMD:-}" ]; then
		if [ -x "$here/../src/elfpmd" ]; then
			ELFPMD=$here/../src/elfpmd
		elif [ -x "$here/../_build/src/elfpmd" ]; then
			ELFPMD=$here/../_build/src/elfpmd
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

# bench_private_dir DIR: create DIR (a cache kept between runs, which root
# may use) unless it is there, and die unless it is a directory of this
# user's that only it can write, not a symbolic link: never one another
# user could have put in its place.
bench_private_dir () {
	[ ! -L "$1" ] || bench_die "$1: a symbolic link"
	mkdir -p "$1" || bench_die "cannot create $1"
	[ ! -L "$1" ] && [ "$(stat -c %u "$1")" = "$(id -u)" ] && [ -z "$(find "$1" -maxdepth 0 -perm /022)" ] \
		|| bench_die "$1: not a directory of this user's that only it can write"
}

# bench_apt_src CACHE COMMAND ARG...: apt-get or apt-cache (COMMAND) through
# a private list of deb-src entries for this machine's release, its -updates
# and its -security suites, on the mirrors this machine's apt configuration
# names (tests/vm/lib.sh's vm_mirrors and vm_apt), kept in CACHE/apt; its
# lists are fetched when the entries change.  Nothing else is downloaded.
bench_apt_src () {
	local cache=$1 here codename a list
	shift
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	# shellcheck source=tests/vm/lib.sh
	. "$here/../tests/vm/lib.sh"
	VM_CACHE=$cache
	VM_DEB_ARCH=$(dpkg --print-architecture)
	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
	[ -n "$codename" ] || bench_die "no VERSION_CODENAME in /etc/os-release"
	a=$(vm_aptdir "$codename-src")
	vm_mirrors || bench_die "no Debian mirror for the sources: $VM_WHY"
	list="deb-src [signed-by=$VM_KEYRING] $VM_MIRROR $codename main
deb-src [signed-by=$VM_KEYRING] $VM_MIRROR $codename-updates main"
	[ -z "$VM_SECURITY_MIRROR" ] || list="$list
deb-src [signed-by=$VM_KEYRING] $VM_SECURITY_MIRROR $codename-security main"
	if [ ! -f "$a/stamp" ] || [ "$(cat "$a/sources.list" 2>/dev/null)" != "$list" ]; then
		mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts" || bench_die "cannot create $a"
		: >"$a/status"
		: >"$a/preferences"
		printf '%s\n' "$list" >"$a/sources.list"
		rm -f "$a/stamp"
		vm_apt "$codename-src" apt-get -q update >"$a/update.log" 2>&1 \
			|| bench_die "apt-get update of the source lists failed: $(tail -1 "$a/update.log")"
		touch "$a/stamp"
	fi
	vm_apt "$codename-src" "$@"
}
