#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# tools/libdwarf-trixie.sh: Debian 13's libdwarf (trixie's libdwarf-dev and
# the library package it depends on: libdwarf 0.11), as Debian ships it, to
# build elfpmd against libdwarf's 0.x API on a machine whose own libdwarf is
# another (tools/setup.sh check, on Debian 12; tests/run-map-libdwarf.sh).
#
# The packages are fetched with apt-get download through a private apt
# configuration on this machine's own Debian mirror (tests/vm/lib.sh:
# vm_apt_setup, vm_apt) and unpacked with dpkg-deb -x, never installed, once
# into CACHE/PACKAGE_VERSION/; CACHE is ELFPMD_LIBDWARF_CACHE, by default
# ${XDG_CACHE_HOME:-~/.cache}/elfpmd-libdwarf, never the source tree.
# Trixie's binary packages are taken rather than a build from its sources:
# they are what Debian 13 runs, they take seconds, and libdwarf.so needs
# nothing newer than Debian 12 has (glibc symbols up to 2.14, libzstd1,
# zlib1g), which is checked here against this machine's glibc.
#
# Prints configure's two variables for it, one per line:
#   LIBDWARF_CFLAGS=-I.../usr/include/libdwarf
#   LIBDWARF_LIBS=-L.../usr/lib/MULTIARCH -Wl,-rpath,.../usr/lib/MULTIARCH -ldwarf
# Exit status: 0; 77 (the reason on stderr) when the mirror cannot be
# reached and nothing is cached; 1 on any other failure.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=trixie
# shellcheck source=tests/vm/lib.sh
. "$here/../tests/vm/lib.sh"
VM_CACHE=${ELFPMD_LIBDWARF_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/elfpmd-libdwarf}
VM_DEB_ARCH=$(dpkg --print-architecture 2>/dev/null) || { echo "libdwarf-trixie: no dpkg: not Debian" >&2; exit 77; }

die () { echo "libdwarf-trixie: $*" >&2; exit 1; }

# fetch: set DIR to the unpacked libdwarf of SUITE, downloaded and unpacked
# unless cached; return 1 with the reason in WHY when the mirror cannot be
# reached.
fetch () {
	local a show ver lib deb
	vm_apt_setup "$suite" || { WHY=$VM_WHY; return 1; }
	a=$(vm_aptdir "$suite")
	show=$(vm_apt "$suite" apt-cache show --no-all-versions libdwarf-dev 2>/dev/null)
	ver=$(printf '%s\n' "$show" | sed -n 's/^Version: //p' | head -1)
	if [ -z "$ver" ]; then
		# The lists kept after a failed update may be another mirror's.
		WHY=$(grep -m1 '^[WE]:' "$a/update.log" 2>/dev/null) && return 1
		die "libdwarf-dev ($VM_DEB_ARCH) not found in $suite's package lists"
	fi
	# The library package it depends on (= its version): libdwarf1 in trixie.
	lib=$(printf '%s\n' "$show" | sed -n 's/^Depends: .*\(libdwarf[0-9a-z.-]*\) (= .*/\1/p' | head -1)
	[ -n "$lib" ] || die "libdwarf-dev $ver of $suite depends on no libdwarf library package"
	DIR=$VM_CACHE/libdwarf-dev_${ver#*:}_$VM_DEB_ARCH
	[ -f "$DIR/done" ] && return 0
	mkdir -p "$a/debs" || die "cannot create $a/debs"
	rm -f "$a/debs/"*.deb
	if ! (cd "$a/debs" && vm_apt "$suite" apt-get -q download libdwarf-dev "$lib") >"$a/download.log" 2>&1; then
		WHY="cannot download libdwarf-dev $ver: $(grep -m1 '^E:' "$a/download.log" || tail -1 "$a/download.log")"
		return 1
	fi
	rm -rf "$DIR.new.$$"
	for deb in "$a/debs/"*.deb; do
		dpkg-deb -x "$deb" "$DIR.new.$$" || die "cannot unpack $deb"
	done
	rm -f "$a/debs/"*.deb
	touch "$DIR.new.$$/done"
	rm -rf "$DIR"
	mv "$DIR.new.$$" "$DIR" || die "cannot rename $DIR.new.$$"
}

DIR='' WHY=''
if ! fetch; then
	# Offline: the newest one cached, if any.
	DIR=$(find "$VM_CACHE" -mindepth 2 -maxdepth 2 -name 'done' -path '*/libdwarf-dev_*' 2>/dev/null | sort -V | tail -1)
	[ -n "$DIR" ] || { echo "libdwarf-trixie: $suite's mirror cannot be reached: $WHY" >&2; exit 77; }
	DIR=${DIR%/done}
	echo "libdwarf-trixie: $suite's mirror cannot be reached ($WHY); using the cached ${DIR##*/}" >&2
fi

so=$(find "$DIR/usr/lib" -name libdwarf.so -print -quit)
header=$(find "$DIR/usr/include" -name libdwarf.h -print -quit)
if [ -z "$so" ] || [ -z "$header" ]; then die "no libdwarf.so or libdwarf.h in $DIR"; fi
# Runs here only if it needs no newer glibc than this machine's.
need=$(objdump -T "$so" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
if [ -n "$need" ] && [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -1)" != "$have" ]; then
	die "$so needs glibc $need, this machine has $have"
fi
libdir=$(dirname "$so")
echo "LIBDWARF_CFLAGS=-I$(dirname "$header")"
echo "LIBDWARF_LIBS=-L$libdir -Wl,-rpath,$libdir -ldwarf"
