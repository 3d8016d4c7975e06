# shellcheck shell=bash
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

VM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${ELFPMD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/elfpmd-vm}
VM_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
VM_WHY=

# The Debian releases the harness knows: suite and the kernel series.
vm_series () {
	case $1 in
	bullseye) echo 5.10 ;;
	bookworm) echo 6.1 ;;
	trixie) echo 6.12 ;;
	*) echo "?" ;;
	esac
}

# vm_have_tools: qemu, mkfs.ext4, mkfs.xfs, busybox, cpio, dpkg-deb, xz,
# readelf; else VM_WHY names what is missing (and its Debian package).
vm_have_tools () {
	local t pkg missing=
	for t in qemu-system-x86_64:qemu-system-x86 mkfs.ext4:e2fsprogs mkfs.xfs:xfsprogs \
		cpio:cpio dpkg-deb:dpkg xz:xz-utils readelf:binutils apt-get:apt; do
		pkg=${t#*:}
		t=${t%%:*}
		command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 \
			|| missing="$missing $t ($pkg)"
	done
	VM_BUSYBOX=
	for t in /bin/busybox /usr/bin/busybox; do
		[ -x "$t" ] && { VM_BUSYBOX=$t; break; }
	done
	[ -n "$VM_BUSYBOX" ] || missing="$missing busybox (busybox-static)"
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

# vm_apt SUITE COMMAND ARG...: apt-get or apt-cache (COMMAND) with the
# private configuration of SUITE under $VM_CACHE/apt/SUITE: its own sources
# list, lists, archive cache and an empty dpkg status, the machine's apt.conf
# otherwise (proxies and all).
vm_apt () {
	local suite=$1 cmd=$2 a=$VM_CACHE/apt/$1
	shift 2
	local opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o "Dir::Etc::SourceParts=$a/parts"
		-o "Dir::Etc::Preferences=$a/preferences" -o "Dir::Etc::PreferencesParts=$a/parts"
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o "Dir::State::status=$a/status"
		-o "APT::Architecture=amd64" -o "APT::Architectures::=amd64" -o "Acquire::Languages=none"
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
	local suite=$1 a=$VM_CACHE/apt/$1 days=${ELFPMD_VM_REFRESH_DAYS:-7}
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

# vm_fetch_kernel SUITE: the kernel of SUITE's linux-image-amd64, fetched
# and unpacked once into $VM_CACHE/kernels/PACKAGE_VERSION/: vmlinuz, config,
# release, package, modules/ (the modules the harness needs, decompressed,
# in load order as listed in modules/order) and builtin (those built in);
# the .deb is deleted once unpacked.  Sets
# VM_KDIR; returns 1 (VM_WHY) on failure.
VM_MODULES="crc32c_generic virtio_pci virtio_blk ext4 xfs"
vm_fetch_kernel () {
	local suite=$1 a=$VM_CACHE/apt/$1 pkg ver deb kdir
	vm_apt_setup "$suite" || return 1
	pkg=$(vm_apt "$suite" apt-cache show --no-all-versions linux-image-amd64 2>/dev/null \
		| sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -1)
	if [ -z "$pkg" ]; then
		VM_WHY="linux-image-amd64 of $suite not found in the package lists"
		return 1
	fi
	ver=$(vm_apt "$suite" apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	kdir=$VM_CACHE/kernels/${pkg}_$ver
	if [ -f "$kdir/done" ]; then
		VM_KDIR=$kdir
		return 0
	fi
	mkdir -p "$a/debs"
	deb=$(find "$a/debs" -name "${pkg}_*_amd64.deb" | head -1)
	if [ -z "$deb" ] || ! dpkg-deb -I "$deb" >/dev/null 2>&1; then
		rm -f "$a/debs/"*.deb
		if ! (cd "$a/debs" && vm_apt "$suite" apt-get -q download "$pkg") >"$a/download.log" 2>&1; then
			VM_WHY="cannot download $pkg: $(grep -m1 '^E:' "$a/download.log" || tail -1 "$a/download.log")"
			return 1
		fi
		deb=$(find "$a/debs" -name "${pkg}_*_amd64.deb" | head -1)
		[ -n "$deb" ] || { VM_WHY="apt-get download $pkg left no .deb"; return 1; }
	fi
	vm_unpack_kernel "$deb" "$kdir" || return 1
	rm -f "$deb"
	VM_KDIR=$kdir
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
	rel=$(find "$tmp/boot" -name 'vmlinuz-*' | sed 's/.*\/vmlinuz-//' | head -1)
	[ -n "$rel" ] || { VM_WHY="no /boot/vmlinuz-* in $deb"; return 1; }
	cp "$tmp/boot/vmlinuz-$rel" "$kdir/vmlinuz"
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
	rm -rf "$tmp" "$kdir/names" "$kdir/builtin.all" "$kdir/tar.log"
	touch "$kdir/done"
}

# vm_config_line KDIR: the kernel configuration facts the stub depends on,
# one line.
vm_config_line () {
	local o v out=
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
# STATES, with THPS, PAIRS, BATCH and READS as the caller set them.
vm_conf () {
	cat >"$1" <<EOF
DISKS="$2"
THPS="$THPS"
STATES="$3"
PROG=mad-pie
EMPTY=mad-empty
PAIRS=$PAIRS
BATCH=$BATCH
READS=$READS
PROBE=yes
EOF
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
	for lib in $(vm_host_libs "$VM_BUSYBOX" "$@"); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out" || { VM_WHY="cpio failed"; return 1; }
	rm -rf "$root"
}

# vm_disks DIR STAGE: DIR/ext4.img (mkfs.ext4 -d STAGE) and DIR/xfs.img
# (mkfs.xfs -p, a protofile listing STAGE), sparse files.
vm_disks () {
	local dir=$1 stage=$2 proto
	rm -f "$dir/ext4.img" "$dir/xfs.img"
	truncate -s 256M "$dir/ext4.img"
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
	truncate -s 512M "$dir/xfs.img"
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
		-append "console=ttyS0 quiet loglevel=1 panic=-1 elfpmd.mode=$mode")
	if [ "$accel" = kvm ]; then
		args+=(-accel kvm -cpu host)
	else
		args+=(-accel tcg)
	fi
	for d in "$@"; do
		args+=(-drive "file=$d,if=virtio,format=raw")
	done
	rm -f "$log"
	timeout -k 10 "$limit" qemu-system-x86_64 "${args[@]}" </dev/null >"$log.qemu" 2>&1
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

# vm_ideal_kb FILE: whole 2 MiB chunks of FILE's executable, non-writable
# PT_LOADs whose address is congruent with their offset, in kB, when the
# load base is PMD-aligned (ET_EXEC, or the largest p_align >= 2 MiB); 0
# otherwise.  The same count as ideal_chunks in tests/run-madvise.sh, from
# readelf -lW.
vm_ideal_kb () {
	LC_ALL=C readelf -lhW "$1" | awk -v pmd=$((0x200000)) '
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

# vm_payload O STAGE: build what the guest runs, with the host's compilers
# (the fixtures Makefile's mad-pie and mad-tools into O; mad-empty, the same
# 17 MiB of text with a main that returns at once; vmtime), and lay out
# STAGE, the disk images' contents: STAGE/orig/{mad-pie,mad-empty} and
# STAGE/mad/{mad-pie,mad-empty}, their rewrites by $ELFPMD -q --madvise.
# Sets VM_GUEST_BINS (the programs for the initramfs' /bin).
vm_payload () {
	local o=$1 stage=$2 src=$VM_HERE/../fixtures t
	mkdir -p "$o" || return 1
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
	if ! ${GCC:-gcc} -O2 -Wall -o "$o/vmtime" "$VM_HERE/vmtime.c" >"$o/vmtime.log" 2>&1; then
		VM_WHY="cannot build tests/vm/vmtime.c: $(tail -1 "$o/vmtime.log")"
		return 1
	fi
	rm -rf "$stage"
	mkdir -p "$stage/orig" "$stage/mad"
	for t in mad-pie mad-empty; do
		cp "$o/$t" "$stage/orig/$t"
		if ! "$ELFPMD" -q --madvise -o "$stage/mad/$t" "$o/$t" >"$o/rewrite-$t.log" 2>&1; then
			VM_WHY="elfpmd -q --madvise $t failed: $(head -1 "$o/rewrite-$t.log")"
			return 2
		fi
	done
	VM_GUEST_BINS=("$o/pagecache" "$o/vmtime")
}

# vm_reference PROG: what the guest's reference run must match, made on
# the host: the md5sum of PROG's output with the arguments every guest run
# gets, and its "exit status N" line.
vm_reference () {
	{ "$1" alpha "beta gamma" 2>/dev/null; echo "exit status $?"; } | md5sum | cut -d ' ' -f 1
}

# vm_table_header: the header of the markdown table vm_table_rows fills.
vm_table_header () {
	echo "| kernel | fs | THP | cold | warm | order-0 | fresh | 3 at once | outputs identical | warm start rewrite/original | extra MiB read per warm start |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
}

# vm_table_rows KERNEL IDEAL_KB RESULTS: one markdown row per file system
# and THP mode in RESULTS (the guest's R lines): the rewrite's
# FilePmdMapped in % of IDEAL_KB per state (3 at once: the lowest of the
# three), whether every run of the original and the rewrite printed the
# original's output and exit status, the median warm-start time ratio and
# the MiB the rewrite read from disk per warm start beyond the original's.
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
		$2 == "run" {
			if (f("same") != "yes" || f("status") != 42) bad[k] = 1
			if (f("bin") != "mad") next
			s = f("state"); pct = ideal > 0 ? int(f("pmd_kb") * 100 / ideal) : 0
			if (f("pmd_kb") == "none") pct = "?"
			if (!((k, s) in cov) || pct < cov[k, s]) cov[k, s] = pct
		}
		$2 == "reads" { r = f("runs"); extra[k] = sprintf("%.1f", (f("mad_kb") - f("orig_kb")) / r / 1024) }
		$2 == "time" { ratio[k] = sprintf("%.2fx", f("ratio")) }
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
