#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-vm.sh: the rehash cases (lib.sh: ima_cases) where this kernel
# cannot hash (no AF_ALG: CONFIG_CRYPTO_USER_API_HASH unset) run in Debian
# 12's own kernel booted in qemu (the VM harness, tests/vm/lib.sh: its
# kernel package fetched once with af_alg and algif_hash added), on an
# ext4 disk made with the files and their attributes: there elfpmd
# rewrites them and the programs run (the checks of run-ima-rehash.sh,
# ima_rehash_checks); then an IMA policy that appraises every program run
# from that disk (appraise func=BPRM_CHECK fsmagic=0xef53) is loaded and
# they run again: the rewrites must run, and a rewrite carrying the
# original's hash (what copying the attribute made) must be refused by the
# kernel.  The host reads the results from the disk image.
# ELFPMD_IMA_VM=yes runs it also where the host has AF_ALG, =no never.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
want_vm=${ELFPMD_IMA_VM:-auto}
[ "$want_vm" = no ] && skip_all "ELFPMD_IMA_VM=no$($host_afalg || echo ': the rehash cases are not run (no AF_ALG here)')"
[ "$want_vm" = yes ] || ! $host_afalg || skip_all "this kernel hashes with AF_ALG: run-ima-rehash.sh runs the cases here (ELFPMD_IMA_VM=yes: in qemu too)"
ima_orig
ima_cases "$W/cases"

vm_part () {
	local V=$WORK/vm
	# shellcheck source=tests/vm/lib.sh
	. "$TESTS_SRCDIR/vm/lib.sh"
	vm_set_arch x86_64 || return 1
	[ "$(uname -m)" = x86_64 ] || { VM_WHY="the guest is x86-64, this machine $(uname -m)"; return 1; }
	vm_have_tools || return 1
	mkdir -p "$V/stage" "$V/here" || { VM_WHY="cannot create $V"; return 1; }
	# Debian 12's kernel with the crypto API's hash sockets (modules), its
	# package fetched once for them.
	local suite=bookworm pkg ver kdir deb
	vm_apt_setup "$suite" || return 1
	pkg=$(vm_apt "$suite" apt-cache show --no-all-versions "linux-image-$VM_FLAVOUR" 2>/dev/null \
		| sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -1)
	ver=$(vm_apt "$suite" apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	[ -n "$pkg" ] && [ -n "$ver" ] || { VM_WHY="linux-image-$VM_FLAVOUR of $suite not found in the package lists"; return 1; }
	kdir=$VM_CACHE/kernels-ima/${pkg}_$ver
	if [ ! -f "$kdir/done" ]; then
		mkdir -p "$V/debs"
		if ! (cd "$V/debs" && vm_apt "$suite" apt-get -q download "$pkg") >"$V/download.log" 2>&1; then
			VM_WHY="cannot download $pkg: $(grep -m1 '^E:' "$V/download.log" || tail -1 "$V/download.log")"
			return 1
		fi
		deb=$(find "$V/debs" -name "${pkg}_*.deb" | head -1)
		VM_MODULES="crc32c_generic virtio_pci virtio_blk ext4 af_alg algif_hash" vm_unpack_kernel "$deb" "$kdir" || return 1
		rm -rf "$V/debs"
	fi
	# The disk: the cases, a reference, and what copying the attribute made.
	local stage=$V/stage progs="orig stale" name kind fix opts
	: >"$stage/cases"
	while read -r name kind fix opts; do
		ima_stage "$stage" "$name" "$kind" "$fix"
		echo "$name $opts" >>"$stage/cases"
		progs="$progs $name"
	done <"$W/cases"
	cp "$PIE" "$stage/orig"
	ima set "$stage/orig" sha256
	"$ELFPMD" -q -o "$stage/stale" "$PIE" || { VM_WHY="elfpmd -o failed"; return 2; }
	ima copy "$stage/orig" "$stage/stale"
	echo "$progs" >"$stage/progs"
	vm_disks "$V" "$stage" || return 1
	rm -f "$V/xfs.img" "$V/xfs.proto"	# ext4 only
	# /init of the harness, and this guest script.
	cp "$VM_HERE/init" "$V/here/init"
	cat >"$V/here/guest.sh" <<'EOF'
#!/bin/sh
# run-ima-vm.sh's guest: rewrite the cases on the ext4 disk, run the programs,
# load an IMA appraisal policy for that disk, run them again.
mkdir -p /mnt/d
mount -t ext4 /dev/vda /mnt/d || { echo "R error mount"; exit 0; }
cd /mnt/d || exit 0
while read -r name opts; do
	elfpmd -n --json $opts "$name" >"$name.dry.json" 2>"$name.dry.err"
	dry=$?
	elfpmd --json $opts "$name" >"$name.json" 2>"$name.err"
	echo "R elfpmd case=$name dry=$dry status=$?"
done <cases
for p in $(cat progs); do
	./"$p" alpha "beta gamma" >"$p.run" 2>"$p.run.err"
	echo "exit status $?" >>"$p.run"
done
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if echo "appraise func=BPRM_CHECK fsmagic=0xef53" >/sys/kernel/security/ima/policy 2>/tmp/policy.err; then
	echo "R policy loaded=yes"
else
	echo "R policy loaded=no why=$(cat /tmp/policy.err | tr ' ' _)"
fi
for p in $(cat progs); do
	./"$p" alpha "beta gamma" >"$p.enf" 2>"$p.enf.err"
	echo "R exec prog=$p status=$?"
done
cd /
umount /mnt/d
sync
EOF
	: >"$V/vm.conf"
	local here=$VM_HERE
	VM_HERE=$V/here
	vm_initramfs "$kdir" "$V/initrd" "$V/vm.conf" "$ELFPMD"
	local r=$?
	VM_HERE=$here
	[ $r -eq 0 ] || return 1
	vm_accel "$kdir" "$V/initrd" "$V"
	note "VM: $(cat "$kdir/package"), $VM_ACCEL ($VM_ACCEL_WHY)"
	vm_qemu "$VM_ACCEL" "$kdir" "$V/initrd" "$V/console.log" 300 measure "$V/ext4.img"
	if ! vm_results "$V/console.log" >"$V/results"; then
		VM_WHY="the guest did not finish (console: $V/console.log)"
		return 2
	fi
	return 0
}

vm_checks () {
	local V=$WORK/vm R=$WORK/vm/results m=$WORK/vm/mnt line name dry st
	grep -q '^R error' "$R" && fail "VM: $(grep '^R error' "$R" | head -3 | tr '\n' ' ')"
	mkdir -p "$m"
	mount -o loop,ro "$V/ext4.img" "$m" || { fail "cannot mount the guest's disk image"; return; }
	CLEANUP+=("umount '$m'")
	while read -r name kind fix opts; do
		line=$(grep "^R elfpmd case=$name " "$R")
		[ -n "$line" ] || { fail "VM: no result for $name"; continue; }
		dry=$(vm_field "$line" dry)
		st=$(vm_field "$line" status)
		ima_rehash_checks "$m" "$name" "$kind" "$dry" "$st"
	done <"$W/cases"
	holds "VM: the original with its hash runs before the policy" 'cmp -s "$W/orig.out" "$m/orig.run"'
	if grep -q '^R policy loaded=yes' "$R"; then
		pass "VM: IMA policy loaded: appraise func=BPRM_CHECK fsmagic=0xef53"
		local p s
		for p in $(cat "$m/progs"); do
			s=$(vm_field "$(grep "^R exec prog=$p " "$R")" status)
			case $p in
			stale)
				if [ "$s" != 42 ] && grep -qi 'permission denied' "$m/stale.enf.err"; then
					pass "VM: under appraisal a rewrite carrying the original's hash is refused by the kernel (exit $s: $(head -1 "$m/stale.enf.err"))"
				else
					fail "VM: under appraisal the rewrite with the original's hash ran (exit $s): the policy does not appraise"
				fi ;;
			*)
				if [ "$s" = 42 ] && [ "$(cat "$m/$p.enf")" = "$(sed '$d' "$W/orig.out")" ]; then
					pass "VM: under appraisal $p runs and prints what the original prints"
				else
					fail "VM: under appraisal $p: exit ${s:-none}: $(head -1 "$m/$p.enf.err")"
				fi ;;
			esac
		done
	else
		fail "VM: the IMA policy could not be loaded: $(grep '^R policy' "$R")"
	fi
	umount "$m" && unset 'CLEANUP[${#CLEANUP[@]}-1]'
	# What a failure would need to be looked into, and nothing else.
	[ "$n_fail" -eq 0 ] && rm -rf "$V/stage" "$V/ext4.img" "$V/initrd"
}

vm_part
case $? in
0) vm_checks ;;
1) skip "rehash cases in Debian 12's kernel (qemu): $VM_WHY" ;;
*) fail "rehash cases in Debian 12's kernel (qemu): $VM_WHY"; tail -5 "$WORK/vm/console.log" 2>/dev/null | sed 's/^/      /' ;;
esac
test_finish
