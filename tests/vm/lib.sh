# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# shellcheck disable=SC2034  # VM_* globals are the interface to the callers
# tests/vm/lib.sh: host side of the VM harness (bash; tests/vm/README):
# fetch Debian's kernel packages through a private apt configuration, pick
# the modules the disks need, build a busybox initramfs and the disk images,
# boot qemu-system-x86_64 and read the guest's results back.
#
# Sourced by tests/run-vm.sh and bench/vm-kernels.sh.  Functions that can
# fail for a reason worth a SKIP line return 1 with the reason in VM_WHY.
#
# Environment:
#   ELFPMD_VM_CACHE   cache directory (default ${XDG_CACHE_HOME:-~/.cache}/elfpmd-vm):
#                     private apt state per suite, the downloaded .deb files
#                     and what is taken from them; never inside the source tree
#   ELFPMD_VM_REFRESH_DAYS  refresh a suite's package lists when older (default 7)
#   ELFPMD_VM_MIRROR, ELFPMD_VM_SECURITY_MIRROR  Debian archive and security
#                     archive URIs, when the machine's apt configuration names
#                     none (default: read from /etc/apt)
#   ELFPMD_VM_ACCEL   kvm or tcg: skip the KVM probe
#   ELFPMD_VM_MEM     guest memory in MiB (default 1024)
#   ELFPMD_VM_SMP     guest CPUs (default 2)
#   ELFPMD_VM_ARCH    the guest's architecture: x86_64 (default), aarch64 or
#                     riscv64 (vm_set_arch; the callers' --arch)

VM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# VM_ARCH (vm_set_arch) chooses the guest architecture; the default is the
# one of ELFPMD_VM_ARCH, else x86_64.
VM_CACHE=${ELFPMD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/elfpmd-vm}
VM_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
VM_WHY=

# vm_set_arch ARCH: the guest architecture, x86_64, aarch64 or riscv64;
# returns 1 (VM_WHY) for any other.  Sets
#   VM_ARCH          ARCH
#   VM_DEB_ARCH      Debian's name of it (amd64, arm64, riscv64): the apt
#                    architecture of the private apt configurations
#   VM_QEMU, VM_QEMU_PKG  qemu-system-ARCH and the Debian package with it
#   VM_CONSOLE       the serial console's device in the guest
#   VM_CROSS         the cross compiler prefix (empty for x86_64: the host's)
#   VM_KERNELS       the kernels vm-kernels.sh boots by default (vm_fetch_kernel)
#   VM_FLAVOUR       the default kernel flavour (linux-image-FLAVOUR)
vm_set_arch () {
	VM_ARCH=$1
	case $1 in
	x86_64)
		VM_DEB_ARCH=amd64 VM_QEMU=qemu-system-x86_64 VM_QEMU_PKG=qemu-system-x86
		VM_CONSOLE=ttyS0 VM_CROSS='' VM_KERNELS="bullseye bookworm trixie" ;;
	aarch64)
		VM_DEB_ARCH=arm64 VM_QEMU=qemu-system-aarch64 VM_QEMU_PKG=qemu-system-arm
		VM_CONSOLE=ttyAMA0 VM_CROSS=aarch64-linux-gnu-
		VM_KERNELS="bookworm trixie trixie:arm64-16k" ;;
	riscv64)
		# Debian's riscv64 is an official architecture from trixie on.
		VM_DEB_ARCH=riscv64 VM_QEMU=qemu-system-riscv64 VM_QEMU_PKG=qemu-system-misc
		VM_CONSOLE=ttyS0 VM_CROSS=riscv64-linux-gnu- VM_KERNELS="trixie" ;;
	*)
		VM_WHY="unknown guest architecture '$1' (x86_64, aarch64 or riscv64)"
		return 1 ;;
	esac
	VM_FLAVOUR=$VM_DEB_ARCH
	return 0
}
vm_set_arch "${ELFPMD_VM_ARCH:-x86_64}" || vm_set_arch x86_64

# vm_series SPEC: the kernel series of a kernel spec (vm_fetch_kernel:
# SUITE or SUITE:FLAVOUR), with the flavour when it is not the default.
vm_series () {
	local s
	case ${1%%:*} in
	bullseye) s=5.10 ;;
	bookworm) s=6.1 ;;
	trixie) s=6.12 ;;
	*) s="?" ;;
	esac
	case $1 in
	*:*) [ "${1#*:}" = "$VM_FLAVOUR" ] || s="$s ${1#*:}" ;;
	esac
	echo "$s"
}

# vm_have_tools: qemu, mkfs.ext4, mkfs.xfs, busybox, cpio, dpkg-deb, xz,
# readelf; else VM_WHY names what is missing (and its Debian package).
vm_have_tools () {
	local t pkg missing=
	for t in "$VM_QEMU:$VM_QEMU_PKG" ${VM_CROSS:+"${VM_CROSS}gcc:gcc-${VM_CROSS%-}"} mkfs.ext4:e2fsprogs mkfs.xfs:xfsprogs \
		cpio:cpio dpkg-deb:dpkg xz:xz-utils readelf:binutils apt-get:apt; do
		pkg=${t#*:}
		t=${t%%:*}
		command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 \
			|| missing="$missing $t ($pkg)"
	done
	# The guest's busybox: the host's for x86_64, else busybox-static of
	# the guest's architecture, fetched with the kernel (vm_fetch_busybox).
	VM_BUSYBOX=
	if [ "$VM_ARCH" = x86_64 ]; then
		for t in /bin/busybox /usr/bin/busybox; do
			[ -x "$t" ] && { VM_BUSYBOX=$t; break; }
		done
		[ -n "$VM_BUSYBOX" ] || missing="$missing busybox (busybox-static)"
	fi
	if [ -n "$missing" ]; then
		VM_WHY="missing:$missing"
		return 1
	fi
	# mkfs.* live in /sbin, which a user's PATH may lack.
	PATH=$PATH:/usr/sbin:/sbin
	return 0
}

# vm_mirrors: set VM_MIRROR (Debian archive) and VM_SECURITY_MIRROR (its
# security archive) from the environment, else from this machine's apt
# configuration: the URIs of the deb822 stanzas (sources.list.d/*.sources)
# or one-line entries (sources.list, sources.list.d/*.list) whose suite is
# this machine's release (VERSION_CODENAME) or its -security suite.
# (VM_APT_ETC and VM_OS_RELEASE replace /etc/apt and /etc/os-release, for
# trying it out.)
vm_mirrors () {
	VM_MIRROR=${ELFPMD_VM_MIRROR:-}
	VM_SECURITY_MIRROR=${ELFPMD_VM_SECURITY_MIRROR:-}
	local codename id etc=${VM_APT_ETC:-/etc/apt} files=() f
	codename=$(sed -n 's/^VERSION_CODENAME=//p' "${VM_OS_RELEASE:-/etc/os-release}" 2>/dev/null | tr -d '"')
	id=$(sed -n 's/^ID=//p' "${VM_OS_RELEASE:-/etc/os-release}" 2>/dev/null | tr -d '"')
	[ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
	for f in "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ -z "$VM_MIRROR" ] && [ "$id" != debian ]; then
		VM_WHY="this machine is not Debian (ID=${id:-unknown}), so its apt configuration names no Debian mirror: set ELFPMD_VM_MIRROR"
		return 1
	fi
	if [ -z "$VM_MIRROR" ] || [ -z "$VM_SECURITY_MIRROR" ]; then
		local found
		found=$(awk -v rel="$codename" '
			# one-line format: deb [options] URI SUITE COMPONENTS...
			FILENAME ~ /\.list$/ {
				if ($1 != "deb") next
				i = 2
				if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				uri = $i; suite = $(i + 1)
				note(uri, suite); next }
			# deb822: stanzas separated by blank lines
			FNR == 1 { flush() }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]*#/ { next }
			tolower($1) == "types:" { types = $0 }
			tolower($1) == "uris:" { uris = $2 }
			tolower($1) == "suites:" { suites = $0 }
			tolower($1) == "enabled:" { enabled = tolower($2) }
			function flush(  n, s, k) {
				if (uris != "" && types ~ /[ \t]deb([ \t]|$)/ && enabled != "no") {
					n = split(suites, s, /[ \t]+/)
					for (k = 2; k <= n; k++) note(uris, s[k])
				}
				uris = ""; types = ""; suites = ""; enabled = "" }
			function note(uri, suite) {
				if (rel == "") return
				if (suite == rel && main == "") main = uri
				if (suite == rel "-security" && sec == "") sec = uri }
			END { flush(); print main; print sec }' "${files[@]}" 2>/dev/null)
		[ -n "$VM_MIRROR" ] || VM_MIRROR=$(printf '%s\n' "$found" | sed -n 1p)
		[ -n "$VM_SECURITY_MIRROR" ] || VM_SECURITY_MIRROR=$(printf '%s\n' "$found" | sed -n 2p)
	fi
	VM_MIRROR=${VM_MIRROR%/}
	VM_SECURITY_MIRROR=${VM_SECURITY_MIRROR%/}
	# A machine without a security entry: the archive's sibling, the
	# layout of Debian's own mirrors.
	if [ -z "$VM_SECURITY_MIRROR" ] && [ "${VM_MIRROR##*/}" = debian ]; then
		VM_SECURITY_MIRROR=$VM_MIRROR-security
	fi
	if [ -z "$VM_MIRROR" ]; then
		VM_WHY="no Debian mirror found in this machine's apt configuration (release '${codename:-unknown}'; set ELFPMD_VM_MIRROR)"
		return 1
	fi
	return 0
}

# vm_aptdir SUITE: the private apt directory of SUITE for the guest's
# architecture: $VM_CACHE/apt/SUITE for amd64 (as before there were others),
# $VM_CACHE/apt/SUITE-DEBARCH else.
vm_aptdir () {
	if [ "$VM_DEB_ARCH" = amd64 ]; then echo "$VM_CACHE/apt/$1"; else echo "$VM_CACHE/apt/$1-$VM_DEB_ARCH"; fi
}

# vm_apt SUITE COMMAND ARG...: apt-get or apt-cache (COMMAND) with the
# private configuration of SUITE (vm_aptdir): its own sources list, lists,
# archive cache and an empty dpkg status, the guest's architecture as the
# only one, the machine's apt.conf otherwise (proxies and all).
vm_apt () {
	local suite=$1 cmd=$2 a
	a=$(vm_aptdir "$1")
	shift 2
	local opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o "Dir::Etc::SourceParts=$a/parts"
		-o "Dir::Etc::Preferences=$a/preferences" -o "Dir::Etc::PreferencesParts=$a/parts"
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o "Dir::State::status=$a/status"
		-o "APT::Architecture=$VM_DEB_ARCH" -o "APT::Architectures::=$VM_DEB_ARCH" -o "Acquire::Languages=none"
		-o "Debug::NoLocking=1")
	# As root, apt would download as _apt, who cannot write here.
	[ "$(id -u)" = 0 ] && opts+=(-o "APT::Sandbox::User=root")
	timeout -k 10 "${VM_APT_TIMEOUT:-600}" "$cmd" "${opts[@]}" "$@"
}

# vm_apt_setup SUITE: write SUITE's private sources list (the suite, its
# -updates and its -security, component main, signed by Debian's archive
# keyring) and refresh its lists when older than ELFPMD_VM_REFRESH_DAYS.
# Returns 1 (VM_WHY) when no lists could be had.
vm_apt_setup () {
	local suite=$1 a days=${ELFPMD_VM_REFRESH_DAYS:-7}
	a=$(vm_aptdir "$1")
	mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial" || { VM_WHY="cannot create $a"; return 1; }
	: >"$a/status"
	[ -f "$a/preferences" ] || : >"$a/preferences"
	if [ ! -r "$VM_KEYRING" ]; then
		VM_WHY="$VM_KEYRING missing (package debian-archive-keyring)"
		return 1
	fi
	vm_mirrors || return 1
	{
		echo "deb [signed-by=$VM_KEYRING] $VM_MIRROR $suite main"
		echo "deb [signed-by=$VM_KEYRING] $VM_MIRROR $suite-updates main"
		[ -n "$VM_SECURITY_MIRROR" ] && echo "deb [signed-by=$VM_KEYRING] $VM_SECURITY_MIRROR $suite-security main"
	} >"$a/sources.list.new"
	if ! cmp -s "$a/sources.list.new" "$a/sources.list"; then
		mv "$a/sources.list.new" "$a/sources.list"
		rm -f "$a/stamp"
	else
		rm -f "$a/sources.list.new"
	fi
	if [ -f "$a/stamp" ] && [ -z "$(find "$a/stamp" -mtime +"$days" 2>/dev/null)" ]; then
		return 0
	fi
	if vm_apt "$suite" apt-get -q update >"$a/update.log" 2>&1 && ! grep -q '^[WE]:' "$a/update.log"; then
		touch "$a/stamp"
		return 0
	fi
	# Offline or partly reachable: use the lists there are (from this
	# update or an earlier one).
	if ls "$a/lists/"*_Packages* >/dev/null 2>&1; then
		echo "note: apt-get update for $suite had errors; using the lists there are ($(grep -m1 '^[WE]:' "$a/update.log"))" >&2
		return 0
	fi
	VM_WHY="cannot fetch the $suite package lists: $(grep -m1 '^[WE]:' "$a/update.log" || tail -1 "$a/update.log")"
	return 1
}

# vm_fetch_kernel SPEC: the kernel of SUITE's linux-image-FLAVOUR (SPEC is
# SUITE or SUITE:FLAVOUR; FLAVOUR defaults to VM_FLAVOUR, e.g. amd64, arm64;
# arm64-16k is trixie's arm64 kernel with 16 KiB pages), fetched
# and unpacked once into $VM_CACHE/kernels/PACKAGE_VERSION/: vmlinuz, config,
# release, package, modules/ (the modules the harness needs, decompressed,
# in load order as listed in modules/order) and builtin (those built in);
# the .deb is deleted once unpacked.  Sets
# VM_KDIR; returns 1 (VM_WHY) on failure.
#
# VM_MODULES must be there; VM_OPT_MODULES (overlay: the guest's overlayfs,
# OVERLAYS in guest.sh) are taken where the kernel has them, noted in
# KDIR/absent where it has not.  A kernel cached before a module of
# VM_NEED_MODULES (set by a caller that needs it: bench/vm-kernels.sh -O
# sets "overlay") was optional lacks it: it is fetched and unpacked again
# (into a new directory that then replaces the old one); when that cannot
# be done the cached one is used (VM_NEED_WHY says what it lacks).
VM_MODULES="crc32c_generic virtio_pci virtio_blk ext4 xfs"
VM_OPT_MODULES="overlay"
VM_NEED_MODULES=${VM_NEED_MODULES:-}
VM_NEED_WHY=
vm_fetch_kernel () {
	local suite=${1%%:*} flavour=$VM_FLAVOUR a pkg ver deb kdir
	case $1 in *:*) flavour=${1#*:} ;; esac
	a=$(vm_aptdir "$suite")
	vm_apt_setup "$suite" || return 1
	pkg=$(vm_apt "$suite" apt-cache show --no-all-versions "linux-image-$flavour" 2>/dev/null \
		| sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -1)
	if [ -z "$pkg" ]; then
		VM_WHY="linux-image-$flavour ($VM_DEB_ARCH) of $suite not found in the package lists"
		return 1
	fi
	ver=$(vm_apt "$suite" apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	kdir=$VM_CACHE/kernels/${pkg}_$ver
	VM_NEED_WHY=
	# shellcheck disable=SC2086  # module names are words
	if [ -f "$kdir/done" ] && vm_kernel_has "$kdir" $VM_NEED_MODULES; then
		VM_KDIR=$kdir
		return 0
	fi
	mkdir -p "$a/debs"
	deb=$(find "$a/debs" -name "${pkg}_*_$VM_DEB_ARCH.deb" | head -1)
	if [ -z "$deb" ] || ! dpkg-deb -I "$deb" >/dev/null 2>&1; then
		rm -f "$a/debs/"*.deb
		if ! (cd "$a/debs" && vm_apt "$suite" apt-get -q download "$pkg") >"$a/download.log" 2>&1; then
			VM_WHY="cannot download $pkg: $(grep -m1 '^E:' "$a/download.log" || tail -1 "$a/download.log")"
			if [ -f "$kdir/done" ]; then
				# cached without a module it now needs: use it
				# shellcheck disable=SC2086  # module names are words
				VM_NEED_WHY="the cached $pkg has no module$(vm_kernel_lacks "$kdir" $VM_NEED_MODULES) ($VM_WHY)"
				VM_KDIR=$kdir
				return 0
			fi
			return 1
		fi
		deb=$(find "$a/debs" -name "${pkg}_*_$VM_DEB_ARCH.deb" | head -1)
		[ -n "$deb" ] || { VM_WHY="apt-get download $pkg left no .deb"; return 1; }
	fi
	# Unpacked beside the cached one (if any), which it replaces once
	# complete: a run using the cached directory meanwhile finds its files.
	vm_unpack_kernel "$deb" "$kdir.new.$$" || { rm -rf "$kdir.new.$$"; return 1; }
	rm -rf "$kdir.old.$$"
	[ -d "$kdir" ] && mv "$kdir" "$kdir.old.$$"
	mv "$kdir.new.$$" "$kdir" || { VM_WHY="cannot rename $kdir.new.$$"; return 1; }
	rm -rf "$kdir.old.$$" "$deb"
	VM_KDIR=$kdir
}

# vm_kernel_has KDIR MODULE...: whether each MODULE is in KDIR's modules
# (modules/order), built in (builtin) or known to be absent from the
# package (absent; VM_OPT_MODULES only).
vm_kernel_has () {
	[ -z "$(vm_kernel_lacks "$@")" ]
}

# vm_kernel_lacks KDIR MODULE...: " NAME" for each MODULE that KDIR has
# not looked for (see vm_kernel_has).
vm_kernel_lacks () {
	local kdir=$1 m
	shift
	for m in "$@"; do
		m=${m//-/_}
		grep -qx "$m.ko" "$kdir/modules/order" 2>/dev/null || grep -qx "$m" "$kdir/builtin" 2>/dev/null \
			|| grep -qx "$m" "$kdir/absent" 2>/dev/null || printf ' %s' "$m"
	done
}

# vm_fetch_busybox SUITE: for a guest of another architecture than the
# host's (VM_CROSS set), busybox-static of SUITE for that architecture,
# fetched with apt-get download through SUITE's private configuration and
# unpacked (dpkg-deb -x, never installed) once into
# $VM_CACHE/busybox/PACKAGE_VERSION_ARCH/busybox; sets VM_BUSYBOX to it.  For
# x86_64 VM_BUSYBOX stays the host's (vm_have_tools).  Returns 1 (VM_WHY)
# on failure.
vm_fetch_busybox () {
	[ -n "$VM_CROSS" ] || return 0
	local suite=$1 a ver dir deb f
	a=$(vm_aptdir "$suite")
	vm_apt_setup "$suite" || return 1
	ver=$(vm_apt "$suite" apt-cache show --no-all-versions busybox-static 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	[ -n "$ver" ] || { VM_WHY="busybox-static ($VM_DEB_ARCH) of $suite not found in the package lists"; return 1; }
	dir=$VM_CACHE/busybox/busybox-static_${ver}_$VM_DEB_ARCH
	if [ ! -x "$dir/busybox" ]; then
		mkdir -p "$a/debs" "$dir"
		rm -f "$a/debs/"busybox-static_*.deb
		if ! (cd "$a/debs" && vm_apt "$suite" apt-get -q download busybox-static) >"$a/download.log" 2>&1; then
			VM_WHY="cannot download busybox-static ($VM_DEB_ARCH): $(grep -m1 '^E:' "$a/download.log" || tail -1 "$a/download.log")"
			return 1
		fi
		deb=$(find "$a/debs" -name "busybox-static_*_$VM_DEB_ARCH.deb" | head -1)
		[ -n "$deb" ] || { VM_WHY="apt-get download busybox-static left no .deb"; return 1; }
		rm -rf "$dir/x"
		# bin/busybox before trixie, usr/bin/busybox from trixie on
		f=
		dpkg-deb -x "$deb" "$dir/x" && f=$(find "$dir/x" -path '*bin/busybox' -type f | head -1)
		if [ -z "$f" ] || ! cp "$f" "$dir/busybox.new" || ! mv "$dir/busybox.new" "$dir/busybox"; then
			VM_WHY="no bin/busybox in $deb"
			return 1
		fi
		rm -rf "$dir/x" "$deb"
	fi
	VM_BUSYBOX=$dir/busybox
}

# vm_unpack_kernel DEB KDIR: vmlinuz, config and the needed modules of the
# kernel package DEB into KDIR (see vm_fetch_kernel).  Modules are resolved
# through the "depends=" field of their .modinfo (what depmod writes into
# modules.dep, which the package does not ship), crc32c_generic first
# because ext4 and libcrc32c ask the crypto API for crc32c.
vm_unpack_kernel () {
	local deb=$1 kdir=$2 tmp rel mdir
	rm -rf "$kdir"
	mkdir -p "$kdir/modules"
	tmp=$kdir/unpack
	mkdir -p "$tmp"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/*' '*/modules/*/modules.builtin' '*/modules/*/kernel/*' 2>"$kdir/tar.log"; then
		VM_WHY="cannot unpack $deb: $(head -1 "$kdir/tar.log")"
		return 1
	fi
	# riscv64's package names its Image /boot/vmlinux-*, the others vmlinuz-*.
	rel=$(find "$tmp/boot" -name 'vmlinu[xz]-*' | sed 's/.*\/vmlinu[xz]-//' | head -1)
	[ -n "$rel" ] || { VM_WHY="no /boot/vmlinuz-* or vmlinux-* in $deb"; return 1; }
	cp "$tmp/boot/vmlinu"[xz]"-$rel" "$kdir/vmlinuz"
	cp "$tmp/boot/config-$rel" "$kdir/config"
	echo "$rel" >"$kdir/release"
	basename "$deb" >"$kdir/package"
	mdir=$tmp/lib/modules/$rel
	[ -d "$mdir" ] || mdir=$tmp/usr/lib/modules/$rel
	[ -d "$mdir" ] || { VM_WHY="no modules directory for $rel in $deb"; return 1; }
	# name -> path (names with - and _ are the same module)
	(cd "$mdir" && find kernel -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz') \
		| awk '{ n = $0; sub(/.*\//, "", n); sub(/\.ko(\.(xz|zst|gz))?$/, "", n); gsub(/-/, "_", n); print n, $0 }' \
		>"$kdir/names"
	sed 's/.*\///; s/\.ko$//; s/-/_/g' "$mdir/modules.builtin" >"$kdir/builtin.all"
	: >"$kdir/modules/order"
	: >"$kdir/builtin"
	local -A seen=()
	vm_add_module () {
		local name=${1//-/_} path file deps d
		[ -n "${seen[$name]:-}" ] && return 0
		seen[$name]=1
		if grep -qx "$name" "$kdir/builtin.all"; then
			echo "$name" >>"$kdir/builtin"
			return 0
		fi
		path=$(awk -v n="$name" '$1 == n { print $2; exit }' "$kdir/names")
		[ -n "$path" ] || { VM_WHY="module $name neither built in nor in $deb"; return 1; }
		file=$kdir/modules/$name.ko
		case $path in
		*.xz) xz -dc "$mdir/$path" >"$file" ;;
		*.zst) zstd -qdc "$mdir/$path" >"$file" ;;
		*.gz) gzip -dc "$mdir/$path" >"$file" ;;
		*) cp "$mdir/$path" "$file" ;;
		esac || { VM_WHY="cannot decompress $path"; return 1; }
		deps=$(tr '\0' '\n' <"$file" | sed -n 's/^depends=//p' | head -1 | tr ',' ' ')
		for d in $deps; do
			vm_add_module "$d" || return 1
		done
		echo "$name.ko" >>"$kdir/modules/order"
	}
	local m
	for m in $VM_MODULES; do
		vm_add_module "$m" || return 1
	done
	# optional ones: where the package has them (their dependencies too)
	: >"$kdir/absent"
	for m in $VM_OPT_MODULES; do
		if grep -qx "${m//-/_}" "$kdir/builtin.all" || awk -v n="${m//-/_}" '$1 == n { f = 1 } END { exit !f }' "$kdir/names"; then
			vm_add_module "$m" || return 1
		else
			echo "${m//-/_}" >>"$kdir/absent"
		fi
	done
	rm -rf "$tmp" "$kdir/names" "$kdir/builtin.all" "$kdir/tar.log"
	touch "$kdir/done"
}

# vm_stub_calls RESULTS: from the R strace lines of RESULTS, one line per
# file system, THP mode and binary other than orig: "fs=L thp=M bin=B
# extra=N calls=NAME,...", the system calls its warm start made beyond the
# original's (the difference of the two sequences, in order: the stub's,
# where the layout changes nothing else).
vm_stub_calls () {
	local line fs thp bin orig
	grep '^R strace ' "$1" | while read -r line; do
		fs=$(vm_field "$line" fs) thp=$(vm_field "$line" thp) bin=$(vm_field "$line" bin)
		[ "$bin" = orig ] && continue
		orig=$(grep "^R strace fs=$fs thp=$thp bin=orig " "$1" | head -n 1)
		[ -n "$orig" ] || continue
		diff <(vm_field "$orig" calls | tr ',' '\n') <(vm_field "$line" calls | tr ',' '\n') |
			sed -n 's/^> //p' | paste -sd, - |
			awk -v h="fs=$fs thp=$thp bin=$bin" '{ n = split($0, a, ","); print h " extra=" n " calls=" $0 }
				END { if (NR == 0) print h " extra=0 calls=" }'
	done
}

# vm_config_line KDIR: the kernel configuration facts the stub depends on,
# one line.
vm_config_line () {
	local o v out=
	# the base page size where the architecture has several (arm64)
	for o in ARM64_4K_PAGES ARM64_16K_PAGES ARM64_64K_PAGES; do
		grep -q "^CONFIG_$o=y" "$1/config" && out=" pages=${o#ARM64_}" && out=${out%_PAGES}
	done
	for o in TRANSPARENT_HUGEPAGE TRANSPARENT_HUGEPAGE_ALWAYS TRANSPARENT_HUGEPAGE_MADVISE \
		READ_ONLY_THP_FOR_FS PT_RECLAIM EXT4_FS XFS_FS; do
		v=$(sed -n "s/^CONFIG_$o=//p" "$1/config")
		[ -n "$v" ] || { grep -q "^# CONFIG_$o is not set" "$1/config" && v=n || v=absent; }
		out="$out $o=$v"
	done
	echo "${out# }"
}

# vm_host_libs FILE...: the shared libraries FILE... need (ldd), one path a
# line, the dynamic loader included.
vm_host_libs () {
	local f
	for f in "$@"; do
		ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | sort -u
}

# vm_conf OUT DISKS STATES: the guest's /etc/vm.conf (guest.sh's header
# says what each line means) into OUT, for mad-pie and mad-empty on the
# disks DISKS ("label:vdX:fstype:mount options" words) in the states
# STATES, with THPS, PAIRS, BATCH and READS as the caller set them, and
# the binaries VM_BINS and the timed ones VM_CMP as vm_payload set them (a
# caller may set VM_CMP to several: "mad copy").  COPY_STATES, when set,
# are the copy binary's states.  With VM_INV (vm_payload), inv-pie's runs
# on the file systems INV_FS (default ext4) in THP mode INV_THP (default
# the last of THPS) and the states INV_STATES (default "cold warm").
# VM_OVERLAYS, when set, are the overlay labels measured after the disks
# (guest.sh OVERLAYS: "LABEL:LOWER[:hidden] ..."; bench/vm-kernels.sh -O).
vm_conf () {
	local last=
	for last in $THPS; do :; done
	cat >"$1" <<EOF
DISKS="$2"
OVERLAYS="${VM_OVERLAYS:-}"
THPS="$THPS"
STATES="$3"
BINS="${VM_BINS:-orig mad}"
CMP="${VM_CMP:-mad}"
PROG=mad-pie
EMPTY=mad-empty
PAIRS=$PAIRS
BATCH=$BATCH
READS=$READS
LOCKS=${VM_LOCKS:-0}
PROBE=yes
HANG_LIMIT=${VM_HANG_LIMIT:-120}
STRACE=${VM_STRACE:-}
NOASLR=${VM_NOASLR:-}
INV=${VM_INV:-}
INV_BINS="orig copy"
INV_FS="${INV_FS:-ext4}"
INV_THP=${INV_THP:-$last}
INV_STATES="${INV_STATES:-cold warm}"
${VM_INV_OFFS:-}
EOF
	[ -z "${COPY_STATES+x}" ] || echo "STATES_copy=\"$COPY_STATES\"" >>"$1"
}

# vm_initramfs KDIR OUT CONF BIN...: a newc cpio at OUT holding busybox,
# /init, /guest.sh, /etc/vm.conf (copied from CONF), KDIR's modules and
# the programs BIN... in /bin with every library they need at its own path.
vm_initramfs () {
	local kdir=$1 out=$2 conf=$3 root lib
	shift 3
	root=$out.d
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/etc" "$root/modules" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/mnt"
	cp "$VM_BUSYBOX" "$root/bin/busybox"
	cp "$VM_HERE/init" "$root/init"
	cp "$VM_HERE/guest.sh" "$root/guest.sh"
	chmod 755 "$root/init" "$root/guest.sh"
	cp "$conf" "$root/etc/vm.conf"
	cp "$kdir/modules/"*.ko "$kdir/modules/order" "$root/modules/" 2>/dev/null
	[ -s "$root/modules/order" ] || : >"$root/modules/order"
	cp "$@" "$root/bin/"
	if [ -z "$VM_CROSS" ]; then
		for lib in $(vm_host_libs "$VM_BUSYBOX" "$@"); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	else
		# The cross C library (the helpers are static; the fixtures on
		# the disks are not): each "SOURCE:DESTINATION" of VM_GUEST_LIBS.
		for lib in "${VM_GUEST_LIBS[@]}"; do
			mkdir -p "$root$(dirname "${lib#*:}")"
			cp -L "${lib%%:*}" "$root${lib#*:}" || { VM_WHY="cannot copy ${lib%%:*}"; return 1; }
		done
	fi
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out" || { VM_WHY="cpio failed"; return 1; }
	rm -rf "$root"
}

# vm_disks DIR STAGE: DIR/ext4.img (mkfs.ext4 -d STAGE) and DIR/xfs.img
# (mkfs.xfs -p, a protofile listing STAGE), sparse files of 256 and 512 MiB,
# or twice the size of STAGE and 64 MiB when larger.
vm_disks () {
	local dir=$1 stage=$2 proto mib
	rm -f "$dir/ext4.img" "$dir/xfs.img"
	# 256 MiB and 512 MiB, or more for a larger stage (a copy of the
	# largest program must fit beside it: the fresh state)
	mib=$(du -sm "$stage" | cut -f 1)
	mib=$((mib * 2 + 64))
	[ "$mib" -ge 256 ] || mib=256
	truncate -s "${mib}M" "$dir/ext4.img"
	mkfs.ext4 -q -F -L elfpmd-vm -d "$stage" "$dir/ext4.img" >"$dir/mkfs.log" 2>&1 \
		|| { VM_WHY="mkfs.ext4 -d failed: $(tail -1 "$dir/mkfs.log")"; return 1; }
	proto=$dir/xfs.proto
	{
		echo elfpmd-vm
		echo "0 0"
		echo "d--755 0 0"
		vm_proto_dir "$stage" "    "
		echo '$'
	} >"$proto"
	[ "$mib" -ge 512 ] || mib=512
	truncate -s "${mib}M" "$dir/xfs.img"
	mkfs.xfs -q -f -L elfpmd-vm -p "$proto" "$dir/xfs.img" >>"$dir/mkfs.log" 2>&1 \
		|| { VM_WHY="mkfs.xfs -p failed: $(tail -1 "$dir/mkfs.log")"; return 1; }
	return 0
}

# vm_proto_dir DIR INDENT: mkfs.xfs protofile lines for DIR's contents
# (directories and regular files only).
vm_proto_dir () {
	local d=$1 ind=$2 e n
	for e in "$d"/*; do
		[ -e "$e" ] || continue
		n=${e##*/}
		if [ -d "$e" ]; then
			echo "$ind$n d--755 0 0"
			vm_proto_dir "$e" "$ind    "
			echo "$ind\$"
		else
			echo "$ind$n ---$(printf '%03o' $((0$(stat -c %a "$e") & 0777))) 0 0 $e"
		fi
	done
}

# vm_qemu ACCEL KDIR INITRD LOG TIMEOUT MODE DISK...: boot KDIR's kernel with
# INITRD and the raw disk images DISK... (virtio, vda first), serial console
# into LOG, elfpmd.mode=MODE; killed (by timeout, which signals its own
# child) after TIMEOUT seconds.  Returns qemu's status (124: timed out).
vm_qemu () {
	local accel=$1 kdir=$2 initrd=$3 log=$4 limit=$5 mode=$6 d
	shift 6
	local args=(-nodefaults -no-reboot -display none -monitor none -serial "file:$log"
		-m "${ELFPMD_VM_MEM:-1024}" -smp "${ELFPMD_VM_SMP:-2}"
		-kernel "$kdir/vmlinuz" -initrd "$initrd"
		-append "console=$VM_CONSOLE quiet loglevel=1 panic=-1 elfpmd.mode=$mode")
	case $VM_ARCH in
	aarch64)
		# -cpu max: the only TCG CPU with 4K, 16K and 64K granules;
		# pauth-impdef: QEMU's cheap pointer authentication, not QARMA
		# (which costs TCG much time).
		# shellcheck disable=SC2054  # one -cpu argument with its options
		args+=(-M virt -cpu max,pauth-impdef=on) ;;
	riscv64)
		# QEMU's own OpenSBI (-bios default) starts the kernel's Image.
		args+=(-M virt -bios default) ;;
	esac
	if [ "$accel" = kvm ]; then
		args+=(-accel kvm -cpu host)
	else
		args+=(-accel tcg)
	fi
	# virtio-blk-pci everywhere (the virt machines' PCIe host is built into
	# Debian's arm64 and riscv64 kernels): vda, vdb, ... in this order.
	local n=0
	for d in "$@"; do
		args+=(-drive "file=$d,if=none,id=d$n,format=raw" -device "virtio-blk-pci,drive=d$n")
		n=$((n + 1))
	done
	rm -f "$log"
	# One guest at a time on this machine: under TCG each vCPU wants a host
	# CPU, and two guests of `make -j check` on two CPUs stalled each
	# other's timed starts and three-at-once runs (ELFPMD_VM_LOCK names the
	# lock file).
	local lock=${ELFPMD_VM_LOCK:-/tmp/elfpmd-tests-vm.lock} t0=$SECONDS status
	if command -v flock >/dev/null 2>&1 && exec 7>>"$lock"; then
		flock -w 3600 7 || echo "      waited an hour for the guest lock $lock; booting anyway"
		[ $((SECONDS - t0)) -lt 1 ] || echo "      waited $((SECONDS - t0)) s for another guest to end ($lock)"
	fi
	timeout -k 10 "$limit" "$VM_QEMU" "${args[@]}" </dev/null >"$log.qemu" 2>&1
	status=$?
	exec 7>&- 2>/dev/null
	return $status
}

# vm_accel KDIR INITRD DIR: VM_ACCEL=kvm when /dev/kvm boots this kernel to
# /init (tried: a probe boot that must print the ALIVE marker within 20 s),
# else tcg; VM_ACCEL_WHY says why.  ELFPMD_VM_ACCEL forces one.  The answer
# is kept for a day in $VM_CACHE/accel/, per host kernel and guest kernel,
# so that a second run on the same machine does not probe again.
vm_accel () {
	VM_ACCEL=${ELFPMD_VM_ACCEL:-}
	VM_ACCEL_WHY="ELFPMD_VM_ACCEL=$VM_ACCEL"
	[ -n "$VM_ACCEL" ] && return 0
	VM_ACCEL=tcg
	if [ "$VM_ARCH" != "$(uname -m)" ]; then
		VM_ACCEL_WHY="a $VM_ARCH guest on a $(uname -m) host"
		return 0
	fi
	VM_ACCEL_WHY="no usable /dev/kvm"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 0
	local memo why
	memo=$VM_CACHE/accel/$(uname -r)_${1##*/}
	if [ -f "$memo" ] && [ -z "$(find "$memo" -mmin +1440 2>/dev/null)" ]; then
		VM_ACCEL=$(sed -n 1p "$memo")
		VM_ACCEL_WHY="$(sed -n 2p "$memo") (probed $(date -r "$memo" '+%F %R'))"
		return 0
	fi
	vm_qemu kvm "$1" "$2" "$3/kvm-probe.log" 20 probe
	if grep -q '@@ELFPMD-VM-ALIVE@@' "$3/kvm-probe.log" 2>/dev/null; then
		VM_ACCEL=kvm
		VM_ACCEL_WHY="KVM boots the guest"
	else
		why=$(grep -v 'terminating on signal' "$3/kvm-probe.log.qemu" 2>/dev/null | grep -m1 .)
		VM_ACCEL_WHY="/dev/kvm does not boot this kernel: ${why:-the guest printed nothing in 20 s}"
	fi
	mkdir -p "$VM_CACHE/accel" && printf '%s\n%s\n' "$VM_ACCEL" "$VM_ACCEL_WHY" >"$memo"
}

# vm_results LOG: the guest's result lines (those starting "R ") between
# the BEGIN and END markers, without carriage returns; returns 1 when the
# END marker is missing (the guest died or timed out).
vm_results () {
	tr -d '\r' <"$1" | sed -n '/@@ELFPMD-VM-BEGIN@@/,/@@ELFPMD-VM-END@@/p' | grep '^R '
	tr -d '\r' <"$1" | grep -q '@@ELFPMD-VM-END@@'
}

# vm_field LINE KEY: the value of KEY=value in LINE (values without spaces).
vm_field () { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

# vm_ideal_kb FILE [PMD]: whole PMD chunks (PMD bytes, default 2 MiB) of
# FILE's executable, non-writable PT_LOADs whose address is congruent with
# their offset, in kB, when the load base is PMD-aligned (ET_EXEC, or the
# largest p_align >= PMD); 0 otherwise.  The same count as ideal_chunks in
# tests/run-madvise-*.sh, from readelf -lW.
vm_ideal_kb () {
	LC_ALL=C readelf -lhW "$1" | awk -v pmd=$((${2:-0x200000})) '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$1 == "Type:" && $2 == "EXEC" { exec = 1 }
		$1 == "LOAD" {
			flags = ""
			for (i = 7; i < NF; i++) flags = flags $i
			align = hex($NF)
			if (align > maxalign) maxalign = align
			if (flags !~ /E/ || flags ~ /W/) next
			off = hex($2); va = hex($3); end = va + hex($5)
			if ((va - off) % pmd != 0) next
			c = int(end / pmd) - int((va + pmd - 1) / pmd)
			if (c > 0) chunks += c }
		END { print ((exec || maxalign >= pmd) ? chunks + 0 : 0) * pmd / 1024 }'
}

# vm_payload O STAGE [BINS]: build what the guest runs and lay out STAGE,
# the disk images' contents, one directory per binary of BINS (default
# "orig mad"), each holding mad-pie (the 17 MiB-text PIE fixture) and
# mad-empty (the same text, a main that returns at once), except self:
#   orig   the fixtures as linked
#   align  their rewrites by $ELFPMD -q (aligned, no stub)
#   mad    their rewrites by $ELFPMD -q --madvise; left out when elfpmd
#          injects no stub for this machine (VM_NA_WHY says why)
#   copy   their rewrites by $ELFPMD -q --madvise=copy (left out with mad);
#          for x86_64 also inv-pie (tests/fixtures/inv.S, invmain.c: mid,
#          exported, in a whole chunk), original in orig/ and rewritten in
#          copy/, and invpatch.so for the guest's /bin (VM_INV=inv-pie;
#          VM_INV_OFFS the "INV_OFF_BIN=.. INV_FOFF_BIN=.." words of
#          vm.conf; when they cannot be built VM_INV is empty and
#          VM_INV_WHY says why)
#   idle   their rewrites by $ELFPMD -q --madvise for twice the PMD size:
#          a stub that runs and returns at once (the price of its presence)
#   self   mad-pie only: the same program linked -static -no-pie with
#          -z max-page-size=0x200000 and tests/vm/selfmad.c, which
#          madvises its own text before main (no elfpmd)
# For x86_64 with the host's compilers (the fixtures Makefile's mad-pie and
# mad-tools into O); for aarch64 and riscv64 with ${VM_CROSS}gcc from
# the fixtures' big.S, bigcall.c and madmain.c, the helpers
# static; there ELFPMD_VM_TEXT_MIB (default 17) sets the size of the text
# and ELFPMD_VM_PMD (bytes, default 2 MiB; 32 MiB for arm64's 16 KiB pages)
# the PMD the binaries are made for: elfpmd --pmd-size (--page-size=16K for
# aarch64's 32 MiB), and self's
# -z max-page-size and text address.  Sets VM_GUEST_BINS (the programs for the initramfs' /bin),
# VM_GUEST_LIBS (cross: the C library, "SOURCE:DESTINATION"), VM_BINS (BINS
# less what is not available) and VM_CMP (the binary timed against orig:
# mad, else align).  Returns 1 (VM_WHY) when something cannot be built, 2
# when elfpmd fails.  The guest's helpers: pagecache, vmtime and thp-off
# (tests/fixtures/thp-off.c: a program under PR_SET_THP_DISABLE), and with
# VM_STRACE=yes (x86-64) the host's strace, for R strace.
vm_payload () {
	local o=$1 stage=$2 bins=${3:-orig mad} src=$VM_HERE/../fixtures t b cc=${VM_CROSS}gcc pmdopt=
	mkdir -p "$o" || return 1
	VM_NA_WHY=
	VM_GUEST_LIBS=()
	if [ -z "$VM_CROSS" ]; then
		for t in mad-pie mad-tools; do
			if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
				make -f "$src/Makefile" SRC="$src" O="$o" "$t" >"$o/$t.log" 2>&1; then
				VM_WHY="cannot build the fixture $t: $(tail -1 "$o/$t.log")"
				return 1
			fi
		done
		printf 'int main (void) { return 0; }\n' >"$o/empty.c"
		if ! ${GCC:-gcc} -O2 -fPIE -pie -o "$o/mad-empty" "$o/empty.c" "$o/gcc-pie/madbig.o" "$o/gcc-pie/bigcall.o" >"$o/mad-empty.log" 2>&1; then
			VM_WHY="cannot link mad-empty: $(tail -1 "$o/mad-empty.log")"
			return 1
		fi
		if ! ${GCC:-gcc} -O2 -Wall -o "$o/vmtime" "$VM_HERE/vmtime.c" -lm >"$o/vmtime.log" 2>&1; then
			VM_WHY="cannot build tests/vm/vmtime.c: $(tail -1 "$o/vmtime.log")"
			return 1
		fi
		case " $bins " in
		*" self "*)
			${GCC:-gcc} -O2 -static -no-pie -Wl,-z,max-page-size=0x200000 -o "$o/self" \
				"$o/gcc-pie/madbig.o" "$o/gcc-pie/bigcall.o" "$o/gcc-pie/madmain.o" "$VM_HERE/selfmad.c" >"$o/self.log" 2>&1 \
				|| { VM_WHY="cannot link self: $(tail -1 "$o/self.log")"; return 1; } ;;
		esac
	else
		local triple=${VM_CROSS%-} interp lib pmd=$((${ELFPMD_VM_PMD:-0x200000}))
		local size=$((${ELFPMD_VM_TEXT_MIB:-17} * 1048576)) at=$((0x400000))
		[ "$pmd" -gt "$at" ] && at=$pmd
		# ld reads -Ttext-segment in hexadecimal, whatever its prefix
		at=$(printf '0x%x' "$at")
		pmd=$(printf '0x%x' "$pmd")
		# arm64's 32 MiB PMD the way a user asks for it: the kernel's page
		# size (the stub acts where the running kernel's PMD is the planned one)
		case $VM_ARCH:$pmd in
		aarch64:0x2000000) pmdopt=--page-size=16K ;;
		*) pmdopt=--pmd-size=$pmd ;;
		esac
		printf 'int main (void) { return 0; }\n' >"$o/empty.c"
		for t in "mad-pie:-fPIE -pie -DBIG_SIZE=$size:$src/big.S $src/bigcall.c $src/madmain.c" \
			"mad-empty:-fPIE -pie -DBIG_SIZE=$size:$src/big.S $src/bigcall.c $o/empty.c" \
			"vmtime:-static -Wall:$VM_HERE/vmtime.c -lm" \
			"pagecache:-static -Wall:$src/pagecache.c" \
			"thp-off:-static -Wall:$src/thp-off.c" \
			"self:-static -no-pie -DBIG_SIZE=$size -Wl,-z,max-page-size=$pmd -Wl,-Ttext-segment=$at:$src/big.S $src/bigcall.c $src/madmain.c $VM_HERE/selfmad.c"; do
			b=${t%%:*}
			t=${t#*:}
			# shellcheck disable=SC2086  # flags and sources are words
			if ! "$cc" -O2 ${t%%:*} -o "$o/$b" ${t#*:} >"$o/$b.log" 2>&1; then
				VM_WHY="cannot build $b with $cc: $(grep -m1 -i error "$o/$b.log" || tail -1 "$o/$b.log")"
				return 1
			fi
		done
		# The C library of the dynamically linked fixtures, from the
		# cross toolchain's: its loader at the PT_INTERP path, libc.so.6
		# in /lib and in the multiarch directory.
		interp=$(LC_ALL=C readelf -lW "$o/mad-pie" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
		VM_GUEST_LIBS=("/usr/$triple/lib/${interp##*/}:$interp")
		for lib in $(LC_ALL=C readelf -dW "$o/mad-pie" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -f "/usr/$triple/lib/$lib" ] || { VM_WHY="/usr/$triple/lib/$lib missing (package libc6-${VM_DEB_ARCH}-cross)"; return 1; }
			VM_GUEST_LIBS+=("/usr/$triple/lib/$lib:/lib/$lib" "/usr/$triple/lib/$lib:/lib/$triple/$lib")
		done
	fi
	VM_INV='' VM_INV_OFFS='' VM_INV_WHY="the inv fixture is x86-64 code (invpatch.c)"
	VM_GUEST_BINS=("$o/pagecache" "$o/vmtime" "$o/thp-off")
	# The host's strace (and, through vm_initramfs, its libraries), for
	# R strace: only for an x86-64 guest, which runs the host's binaries.
	if [ "${VM_STRACE:-}" = yes ] && [ -z "$VM_CROSS" ] && command -v strace >/dev/null; then
		VM_GUEST_BINS+=("$(command -v strace)")
	fi
	case " $bins " in
	*" copy "*)
		[ -z "$VM_CROSS" ] && vm_inv_build "$o" "$src" && VM_GUEST_BINS+=("$o/invpatch.so") ;;
	*) VM_INV_WHY="no copy binary" ;;
	esac
	rm -rf "$stage"
	VM_BINS=
	for b in $bins; do
		mkdir -p "$stage/$b"
		case $b in
		orig)
			cp "$o/mad-pie" "$o/mad-empty" "$stage/orig/" ;;
		align)
			for t in mad-pie mad-empty; do
				"$ELFPMD" -q ${pmdopt:+"$pmdopt"} -o "$stage/align/$t" "$o/$t" >"$o/align-$t.log" 2>&1 \
					|| { VM_WHY="elfpmd -q $t failed: $(head -1 "$o/align-$t.log")"; return 2; }
			done ;;
		mad | copy)
			local how=--madvise
			[ "$b" = copy ] && how=--madvise=copy
			for t in mad-pie mad-empty; do
				if ! "$ELFPMD" --json "$how" ${pmdopt:+"$pmdopt"} -o "$stage/$b/$t" "$o/$t" >"$o/rewrite-$b-$t.log" 2>&1; then
					VM_WHY="elfpmd $how $t failed: $(head -1 "$o/rewrite-$b-$t.log")"
					return 2
				fi
				# elfpmd aligns and reports the stub it could not
				# inject (an architecture without one yet): not a
				# failure, "not available" in the table.
				if ! grep -q '"injected":true' "$o/rewrite-$b-$t.log"; then
					VM_NA_WHY="elfpmd $how injects no stub: $(sed -n 's/.*"stub":{[^}]*"reason":"\([^"]*\)".*/\1/p' "$o/rewrite-$b-$t.log" | head -1)"
					rm -rf "${stage:?}/$b"
					continue 2
				fi
			done
			if [ "$b" = copy ] && [ -n "$VM_INV" ]; then
				mkdir -p "$stage/orig"
				cp "$o/inv-pie" "$stage/orig/inv-pie"
				if ! "$ELFPMD" -q --madvise=copy -o "$stage/copy/inv-pie" "$o/inv-pie" >"$o/rewrite-copy-inv-pie.log" 2>&1; then
					VM_WHY="elfpmd --madvise=copy inv-pie failed: $(head -1 "$o/rewrite-copy-inv-pie.log")"
					return 2
				fi
				VM_INV_OFFS="$(vm_sym_offsets "$stage/orig/inv-pie" mid orig) $(vm_sym_offsets "$stage/copy/inv-pie" mid copy)"
				case "$VM_INV_OFFS " in
				*"= "*)
					VM_INV='' VM_INV_WHY="no dynamic symbol mid in inv-pie (nm -D): $VM_INV_OFFS"
					rm -f "$stage/orig/inv-pie" "$stage/copy/inv-pie" ;;
				esac
			fi ;;
		idle)
			# the stub made for twice the PMD size: it runs, finds the
			# kernel's PMD not the one planned, and returns at once
			for t in mad-pie mad-empty; do
				"$ELFPMD" -q --madvise --pmd-size=$((2 * ${ELFPMD_VM_PMD:-0x200000})) -o "$stage/idle/$t" "$o/$t" >"$o/idle-$t.log" 2>&1 \
					|| { VM_WHY="elfpmd --madvise --pmd-size $t failed: $(head -1 "$o/idle-$t.log")"; return 2; }
			done ;;
		self)
			cp "$o/self" "$stage/self/mad-pie" ;;
		*)
			VM_WHY="unknown binary $b (orig, align, mad, copy, idle, self)"
			return 1 ;;
		esac
		VM_BINS="$VM_BINS $b"
	done
	VM_BINS=${VM_BINS# }
	VM_CMP=
	case " $VM_BINS " in
	*" mad "*) VM_CMP=mad ;;
	*" align "*) VM_CMP=align ;;
	esac
	case " $VM_BINS " in
	*" copy "*) ;;
	*) VM_INV= ;;
	esac
}

# vm_inv_build O SRC: inv-pie and invpatch.so (the fixtures Makefile's)
# into O; sets VM_INV=inv-pie, or returns 1 with VM_INV_WHY.
vm_inv_build () {
	local t
	for t in inv-pie "$1/invpatch.so"; do
		if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
			make -f "$2/Makefile" SRC="$2" O="$1" "$t" >"$1/inv.log" 2>&1; then
			VM_INV_WHY="cannot build ${t##*/}: $(tail -1 "$1/inv.log")"
			return 1
		fi
	done
	VM_INV=inv-pie
}

# vm_sym_offsets FILE SYM BIN: "INV_OFF_BIN=0x.. INV_FOFF_BIN=0x..": the
# dynamic symbol SYM's value in FILE (its offset from the load base of a
# PIE whose first PT_LOAD is at 0) and its file offset (through the
# PT_LOAD that holds it), for vm.conf.
vm_sym_offsets () {
	local va foff
	va=$(LC_ALL=C nm -D --defined-only "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$va" ] || { echo "INV_OFF_$3= INV_FOFF_$3="; return; }
	foff=$(LC_ALL=C readelf -lW "$1" | awk -v va=$((16#$va)) '
		function hex(s,  i, v) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$1 == "LOAD" && va >= hex($3) && va < hex($3) + hex($5) { printf "0x%x\n", va - hex($3) + hex($2); exit }')
	echo "INV_OFF_$3=0x$va INV_FOFF_$3=$foff"
}

# vm_reference PROG: what the guest's reference run must match, made on
# the host: the md5sum of PROG's output with the arguments every guest run
# gets, and its "exit status N" line.
# For another architecture it runs PROG under qemu-ARCH (qemu-user) with the
# cross C library; without qemu-user it prints "none" (the guest's outputs
# are then compared with the original's in the guest only).
vm_reference () {
	if [ -n "$VM_CROSS" ]; then
		command -v "qemu-$VM_ARCH" >/dev/null 2>&1 || { echo none; return 0; }
		{ QEMU_LD_PREFIX=/usr/${VM_CROSS%-} "qemu-$VM_ARCH" "$1" alpha "beta gamma" 2>/dev/null; echo "exit status $?"; } \
			| md5sum | cut -d ' ' -f 1
		return 0
	fi
	{ "$1" alpha "beta gamma" 2>/dev/null; echo "exit status $?"; } | md5sum | cut -d ' ' -f 1
}

# vm_table_header: the header of the markdown table vm_table_rows fills.
vm_table_header () {
	echo "| kernel | fs | THP | cold | warm | order-0 | fresh | 3 at once | outputs identical | warm start rewrite/original | extra MiB read per warm start |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
}

# vm_table_rows KERNEL IDEAL_KB RESULTS: one markdown row per file system
# and THP mode in RESULTS (the guest's R lines): the --madvise rewrite's
# FilePmdMapped in % of IDEAL_KB per state (3 at once: the lowest of the
# three), whether every run of the original and the rewrite printed the
# original's output and exit status (the copy rewrite's and inv-pie's runs
# included), the median warm-start time ratio and the MiB the rewrite read
# from disk per warm start beyond the original's.
vm_table_rows () {
	awk -v kernel="$1" -v ideal="$2" '
		function f(key,  i, kv) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
			return "" }
		$2 == "run" || $2 == "reads" || $2 == "time" || $2 == "ref" {
			k = f("fs") SUBSEP f("thp")
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		}
		$2 == "ref" && f("status") != 42 { bad[k] = 1 }
		$2 == "inv" && f("same") != "yes" { bad[k] = 1 }
		$2 == "run" {
			if (f("same") != "yes" || f("status") != 42) bad[k] = 1
			if (f("bin") != "mad") next
			s = f("state"); pct = ideal > 0 ? int(f("pmd_kb") * 100 / ideal) : 0
			if (f("pmd_kb") == "none") pct = "?"
			if (!((k, s) in cov) || pct < cov[k, s]) cov[k, s] = pct
		}
		$2 == "reads" && f("b") != "copy" { r = f("runs"); extra[k] = sprintf("%.1f", (f("mad_kb") - f("orig_kb")) / r / 1024) }
		$2 == "time" && f("b") != "copy" { ratio[k] = sprintf("%.2fx", f("ratio")) }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, p, SUBSEP)
				line = "| " kernel " | " p[1] " | " p[2]
				ns = split("cold warm order0 fresh concurrent", st, " ")
				for (j = 1; j <= ns; j++)
					line = line " | " (((k, st[j]) in cov) ? cov[k, st[j]] "%" : "-")
				line = line " | " (bad[k] ? "**no**" : "yes")
				line = line " | " ((k in ratio) ? ratio[k] : "-")
				line = line " | " ((k in extra) ? extra[k] : "-") " |"
				print line
			}
		}' "$3"
}

# vm_table_bins_header STATES: the header of the markdown table
# vm_table_bins fills, one column per state of STATES.
vm_table_bins_header () {
	local st line="| kernel | fs | THP | binary" sep="|---|---|---|---"
	for st in $1; do
		case $st in
		order0) line="$line | small folios" ;;
		thpoff) line="$line | THP disabled" ;;
		concurrent) line="$line | 3 at once" ;;
		*) line="$line | $st" ;;
		esac
		sep="$sep|---"
	done
	echo "$line | outputs identical |"
	echo "$sep|---|"
}

# vm_table_bins KERNEL PMD STATES IDEALS RESULTS: one markdown row per file
# system, THP mode and binary in RESULTS (the guest's R lines): per state
# of STATES, the PMD-mapped chunks of the binary's text (FilePmdMapped
# and AnonHugePages of the text --madvise=copy copied, divided by PMD
# bytes; "(N anon)" says how many of them are copies) "of" its ideal
# (IDEALS: "BIN=KB ..." as
# vm_ideal_kb counts with this PMD; 3 at once: the lowest of the three);
# whether every run printed the original's output and exit status.
vm_table_bins () {
	awk -v kernel="$1" -v pmd="$2" -v states="$3" -v ideals="$4" '
		function f(key,  i, kv) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
			return "" }
		BEGIN {
			n = split(ideals, w, " ")
			for (i = 1; i <= n; i++) { split(w[i], kv, "="); ideal[kv[1]] = kv[2] }
		}
		$2 == "ref" && f("status") != 42 { badfs[f("fs"), f("thp")] = 1 }
		$2 == "inv" && f("same") != "yes" { badfs[f("fs"), f("thp")] = 1 }
		$2 == "run" {
			k = f("fs") SUBSEP f("thp") SUBSEP f("bin")
			if (!(k in seen)) { seen[k] = 1; order[++m] = k }
			if (f("same") != "yes" || f("status") != 42) bad[k] = 1
			s = f("state")
			c = f("pmd_kb") == "none" ? "?" : int((f("pmd_kb") + f("anon_kb")) * 1024 / pmd)
			a = f("pmd_kb") == "none" ? 0 : int(f("anon_kb") * 1024 / pmd)
			if (!((k, s) in cov) || c < cov[k, s]) { cov[k, s] = c; anon[k, s] = a }
		}
		END {
			ns = split(states, st, " ")
			for (i = 1; i <= m; i++) {
				k = order[i]; split(k, p, SUBSEP)
				line = "| " kernel " | " p[1] " | " p[2] " | " p[3]
				for (j = 1; j <= ns; j++)
					line = line " | " (((k, st[j]) in cov) ? cov[k, st[j]] " of " int(ideal[p[3]] * 1024 / pmd) \
						(anon[k, st[j]] > 0 ? " (" anon[k, st[j]] " anon)" : "") : "-")
				line = line " | " ((bad[k] || badfs[p[1], p[2]]) ? "**no**" : "yes") " |"
				print line
			}
		}' "$5"
}

# vm_cost_rows KERNEL RESULTS: "| kernel | fs | THP | B | warm start B/orig |
# extra MiB read per warm start |" rows from the guest's time and reads
# lines, one per binary B timed (CMP); the warm start is the median of the
# per-pair ratios with its 95% interval in brackets.
vm_cost_rows () {
	awk -v kernel="$1" '
		function f(key,  i, kv) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
			return "" }
		$2 == "reads" || $2 == "time" {
			k = f("fs") SUBSEP f("thp") SUBSEP f("b")
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			b[k] = f("b")
		}
		$2 == "reads" { extra[k] = sprintf("%.1f", (f("mad_kb") - f("orig_kb")) / f("runs") / 1024) }
		$2 == "time" { ratio[k] = sprintf("%.2fx", f("ratio")) (f("ci_lo") != "" ? sprintf(" (%.2f-%.2f)", f("ci_lo"), f("ci_hi")) : "") }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, p, SUBSEP)
				print "| " kernel " | " p[1] " | " p[2] " | " b[k] " | " ((k in ratio) ? ratio[k] : "-") " | " ((k in extra) ? extra[k] : "-") " |"
			}
		}' "$2"
}

# vm_table_copy_header STATES: the header of the markdown table
# vm_table_copy_rows fills, one column per state of STATES.
vm_table_copy_header () {
	local st line="| kernel | fs | THP" sep="|---|---|---"
	for st in $1; do
		case $st in
		order0) line="$line | order-0" ;;
		concurrent) line="$line | 3 at once" ;;
		thpoff) line="$line | THP disabled" ;;
		*) line="$line | $st" ;;
		esac
		sep="$sep|---"
	done
	echo "$line | outputs identical | warm start copy/original | extra MiB read per warm start |"
	echo "$sep|---|---|---|"
}

# vm_table_copy_rows KERNEL IDEAL_KB STATES RESULTS: one markdown row per
# file system and THP mode in RESULTS (the guest's R lines) for the
# --madvise=copy rewrite: per state of STATES its text on huge pages in %
# of IDEAL_KB, "N% anon" (AnonHugePages of the copied text) and/or "N%
# file" (FilePmdMapped), "0" for neither (3 at once: the lowest of the
# three); whether its runs printed the original's output and exit status;
# its warm-start time ratio and extra MiB read, when the guest timed it.
vm_table_copy_rows () {
	awk -v kernel="$1" -v ideal="$2" -v states="$3" '
		function f(key,  i, kv) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
			return "" }
		function pct(kb) { return ideal > 0 ? int(kb * 100 / ideal) : 0 }
		$2 == "run" && f("bin") == "copy" {
			k = f("fs") SUBSEP f("thp")
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			if (f("same") != "yes" || f("status") != 42) bad[k] = 1
			s = f("state")
			if (f("pmd_kb") == "none") { c = -1; cell = "?" }
			else {
				a = pct(f("anon_kb")); p = pct(f("pmd_kb")); c = a + p
				cell = a > 0 && p > 0 ? a "% anon + " p "% file" : a > 0 ? a "% anon" : p > 0 ? p "% file" : "0"
			}
			if (!((k, s) in cov) || c < cov[k, s]) { cov[k, s] = c; txt[k, s] = cell }
		}
		$2 == "reads" && f("b") == "copy" { extra[f("fs"), f("thp")] = sprintf("%.1f", (f("mad_kb") - f("orig_kb")) / f("runs") / 1024) }
		$2 == "time" && f("b") == "copy" { ratio[f("fs"), f("thp")] = sprintf("%.2fx", f("ratio")) }
		END {
			ns = split(states, st, " ")
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, q, SUBSEP)
				line = "| " kernel " | " q[1] " | " q[2]
				for (j = 1; j <= ns; j++)
					line = line " | " (((k, st[j]) in txt) ? txt[k, st[j]] : "-")
				line = line " | " (bad[k] ? "**no**" : "yes")
				line = line " | " ((k in ratio) ? ratio[k] : "-") " | " ((k in extra) ? extra[k] : "-") " |"
				print line
			}
		}' "$4"
}

# vm_table_inv_header: the header of the markdown table vm_table_inv_rows
# fills.
vm_table_inv_header () {
	echo "| kernel | fs | THP | state | run | mid() original / copy | hits original / copy | copy: AnonHugePages kB | copy: FilePmdMapped kB | same output |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
}

# vm_table_inv_rows KERNEL RESULTS: one markdown row per file system, THP
# mode, state and kind of run of inv-pie in RESULTS (the guest's "R inv"
# lines): what mid() returned last and the breakpoint's or uprobe's hits in
# the original and in the copy rewrite, the copy's AnonHugePages and
# FilePmdMapped, whether it printed what the original printed.
vm_table_inv_rows () {
	awk -v kernel="$1" '
		function f(key,  i, kv) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return substr($i, length(key) + 2) }
			return "" }
		$2 == "inv" {
			k = f("fs") SUBSEP f("thp") SUBSEP f("state") SUBSEP f("how")
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			b = f("bin")
			mid[k, b] = f("mid"); hits[k, b] = f("hits")
			if (b == "copy") { anon[k] = f("anon_kb"); pmd[k] = f("pmd_kb"); same[k] = f("same") }
		}
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, q, SUBSEP)
				print "| " kernel " | " q[1] " | " q[2] " | " q[3] " | " q[4] " | " mid[k, "orig"] " / " mid[k, "copy"] \
					" | " hits[k, "orig"] " / " hits[k, "copy"] " | " anon[k] " | " pmd[k] " | " (same[k] == "yes" ? "yes" : "**no**") " |"
			}
		}' "$2"
}
