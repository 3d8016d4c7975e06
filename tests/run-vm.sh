#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-vm.sh: elfpmd --madvise on a kernel users run, booted unchanged in
# qemu-system-x86_64 (the short form of the VM harness, tests/vm/README; the
# long form with all kernels is bench/vm-kernels.sh).
#
# run-vm.sh --arch aarch64 (or ELFPMD_VM_ARCH=aarch64; tests/run-vm-aarch64.sh
# in 'make check') does the same with Debian 12's arm64 kernel (6.1) in
# qemu-system-aarch64 -M virt -cpu max (TCG), the fixture cross-built with
# aarch64-linux-gnu-gcc from tests/fixtures/big.S, busybox-static:arm64
# downloaded and unpacked (not installed), in THP mode always only; the
# same assertions except the coverage of 3 at once, which is reported (see
# COVERAGE_STATES), and no inv-pie (its preload is x86-64 code).  33 s
# here idle, 44 s under load (26 s and 33 s without the copy rewrite).
# --arch riscv64 (tests/run-vm-riscv64.sh) boots trixie's riscv64 kernel
# (6.12) the same way in qemu-system-riscv64 -M virt; 33 s idle, 51 s
# under load (26 s, 40 s).
#
# Debian 12's own kernel (bookworm's linux-image-amd64, 6.1), fetched with
# apt-get download through a private apt configuration whose mirror is read
# from this machine's (cached in ${ELFPMD_VM_CACHE:-~/.cache/elfpmd-vm});
# a busybox initramfs; two disk images made on the host, ext4 (mkfs.ext4 -d)
# and xfs (mkfs.xfs -p), holding the 17 MiB-text PIE fixture mad-pie, its
# elfpmd -q --madvise rewrite and its elfpmd --madvise=copy rewrite (the
# copy rewrite), and mad-empty (the same text, a main that returns at once)
# for timing.  In the guest, on each file system and in each THP mode of
# THPS, the original and both rewrites run in the page cache states cold,
# warm, order-0 (cached in 4 KiB folios), fresh (first run of a copy just
# written with dd bs=4k), three at once on an order-0 cache and thpoff
# (under PR_SET_THP_DISABLE, tests/fixtures/thp-off.c, the file cached).
# For x86_64 the ext4 image also holds inv-pie (tests/fixtures/inv.S: mid,
# exported, in a whole chunk) and its copy rewrite, run in THP mode always,
# cold and warm, plainly, with LD_PRELOAD of fixtures/invpatch.c (patches
# mid to return 99; the guest has the host's glibc), under "vmtime break"
# (tests/vm/vmtime.c: a breakpoint on mid written at the execve stop
# through /proc/PID/mem, as gdb writes one; gdb itself, 73 MB of
# libraries, is not in the initramfs: tests/run-copy-gdb.sh runs gdb on the
# host, on ext4 data=journal) and with a uprobe on mid (tracefs in the
# guest).
#
# Hard assertions (FAIL):
#   - every run of the original and of the rewrites prints what the
#     original prints on the host and exits 42;
#   - harmless where the kernel cannot help (HARMLESS_FS: ext4 on 6.1, no
#     large folios): a warm start of the rewrite reads at most
#     MAX_EXTRA_READ_KB more from disk than the original's (sectors read,
#     /sys/block/vdX/stat, over READS warm starts each);
#   - coverage where it can (COVERAGE_FS: xfs on 6.1): the rewrite's
#     FilePmdMapped is at least MIN_COVERAGE % of the ideal (whole 2 MiB
#     chunks of its text) in every state of COVERAGE_STATES;
#   - the copy rewrite where only the copy can work (COPY_FS: ext4, no
#     large folios before 6.16): AnonHugePages of its text (anonymous r-x
#     mappings of inode 0) exactly the ideal in every state of
#     COPY_ANON_STATES; where the file can be PMD-mapped (COVERAGE_FS):
#     AnonHugePages 0 and FilePmdMapped at least MIN_COVERAGE % of the
#     ideal, as the --madvise rewrite; under PR_SET_THP_DISABLE
#     AnonHugePages 0 on every file system;
#   - inv-pie (x86_64, INV_FS, INV_STATES): the copy rewrite prints what the
#     original prints plainly (AnonHugePages of its text = its ideal), with
#     the preload (mid() = 99), under the breakpoint and with the uprobe
#     (3 hits each), and in those three the chunk of mid stays file-backed:
#     AnonHugePages = the ideal less one chunk (SKIP where the original
#     does not show the patch or the hits);
#   - the warm-start time ratio rewrite/original (median of PAIRS
#     interleaved pairs of BATCH warm starts of mad-empty, the same text
#     with a main that returns at once) at most MAX_WARM_RATIO, only when that
#     is set: under TCG the figure moves by 10-20% from run to run, so by
#     default it is reported, not asserted.
# Reported (notes): the kernel's configuration (THP, READ_ONLY_THP_FOR_FS,
# PT_RECLAIM, ext4, xfs), what it offers the stub (PAGEMAP_SCAN,
# MADV_POPULATE_READ, MADV_COLLAPSE), the coverage and cost table.
#
# 6.1 has no PAGEMAP_SCAN: the coverage of xfs in the order-0, fresh and
# 3-at-once states there holds only because the stub finds and repairs the
# chunks without it (smaps and mincore); a stub that needs PAGEMAP_SCAN
# gets 0 in those states, and those assertions fail.
#
# Skipped (77) when the host is not x86-64, when qemu-system-ARCH (or for
# another architecture its cross compiler), mkfs.xfs, busybox, cpio,
# dpkg-deb or readelf are missing, when elfpmd --madvise injects no stub for
# the architecture, when the kernel
# package cannot be fetched (no network, no Debian mirror in the apt
# configuration) or the fixtures cannot be built.  Needs no root and no KVM:
# KVM is used when a probe boot through /dev/kvm works, else TCG.
#
# Run time (TCG, 2 CPUs, kernel cached): about 124 s with the machine
# idle (the guest 118 s, of which each run's watchdog, guest.sh's start,
# about 10 s), 290 s with both CPUs loaded; plus 20 s for the KVM probe where /dev/kvm exists but does not
# boot the kernel (once a day: the answer is cached; ELFPMD_VM_ACCEL=tcg
# skips it), plus ~10 s for the first download.
# Work files in $TESTS_BUILDDIR/vm-work, kept when something failed or
# ELFPMD_VM_KEEP is set (console.log holds the guest's console, results
# its result lines).
#
# Run by 'make check', or by hand from the source tree after building:
# bash tests/run-vm.sh (see tests/lib.sh for the defaults).

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$TESTS_SRCDIR/vm/lib.sh"
require_slow "Debian's kernels in qemu-system"

arch=${ELFPMD_VM_ARCH:-x86_64}
# (lib.sh, cpu_lock: the x86-64 guests assert coverage with three programs
# started at once; the other machines' guests are bursts like the others)
if [ "$arch" = x86_64 ]; then cpu_lock exclusive; else cpu_lock shared; fi
case ${1:-} in
--arch) arch=${2:-} ;;
--arch=*) arch=${1#--arch=} ;;
'') ;;
*) hard_error "usage: run-vm.sh [--arch x86_64|aarch64|riscv64]" ;;
esac
vm_set_arch "$arch" || hard_error "$VM_WHY"

# --- parameters (each can be overridden by ELFPMD_VM_<NAME> in the environment)
case $VM_ARCH in
riscv64) suite=trixie ;;	# Debian's riscv64 is official from trixie on
*) suite=bookworm ;;
esac
SUITE=${ELFPMD_VM_SUITE:-$suite}		# the Debian release whose kernel boots
thps="madvise always"
[ "$VM_ARCH" = x86_64 ] || thps=always		# TCG time: the mode Debian boots in
THPS=${ELFPMD_VM_THPS:-$thps}			# THP modes (Debian's kernels boot in always)
STATES="cold warm order0 fresh concurrent thpoff"
HARMLESS_FS=${ELFPMD_VM_HARMLESS_FS:-ext4}	# no PMD folios for file text on this kernel
MAX_EXTRA_READ_KB=${ELFPMD_VM_MAX_EXTRA_READ_KB:-0}	# per warm start, rewrite minus original
MAX_WARM_RATIO=${ELFPMD_VM_MAX_WARM_RATIO-}	# e.g. 1.05; empty: reported only
# large folios, so PMD-mapped text is possible: xfs from 5.18 (not bullseye's 5.10)
case $SUITE in bullseye) xfs_folios= ;; *) xfs_folios=xfs ;; esac
COVERAGE_FS=${ELFPMD_VM_COVERAGE_FS-$xfs_folios}	# empty: no coverage assertion
# Another architecture's guest runs slower under TCG and stalls whenever the
# host is busy; the stub waits for the file's lock at most 15 ms without
# the holder finishing one of its chunks and then repairs without it
# (stub/lock.c, LOCK_WAIT_MS), so 3 at once is reported
# there, not asserted (25-62% once in five runs here, during an apt-get on
# the host, with the earlier wait; 100% otherwise).
cov_states="cold warm order0 fresh concurrent"
[ "$VM_ARCH" = x86_64 ] || cov_states="cold warm order0 fresh"
COVERAGE_STATES=${ELFPMD_VM_COVERAGE_STATES:-$cov_states}
MIN_COVERAGE=${ELFPMD_VM_MIN_COVERAGE:-95}	# % of the ideal, every run of those states
COPY_FS=${ELFPMD_VM_COPY_FS-ext4}		# the copy rewrite copies all its text here
COPY_ANON_STATES=${ELFPMD_VM_COPY_ANON_STATES:-cold warm order0 fresh concurrent}	# ... in these states
INV_FS=${ELFPMD_VM_INV_FS:-ext4}		# inv-pie: preload, breakpoint, uprobe (x86_64)
INV_STATES=${ELFPMD_VM_INV_STATES:-cold warm}
pairs=20
[ "$VM_ARCH" = x86_64 ] || pairs=10
PAIRS=${ELFPMD_VM_PAIRS:-$pairs}		# timed warm-start pairs (mad-empty)
BATCH=${ELFPMD_VM_BATCH:-3}			# warm starts timed together in each half of a pair
READS=${ELFPMD_VM_READS:-3}			# warm starts counted for the disk reads
BOOT_LIMIT=${ELFPMD_VM_BOOT_LIMIT:-900}		# seconds before the guest is killed
# ---------------------------------------------------------------------------

W=$TESTS_BUILDDIR/vm-work
[ "$VM_ARCH" = x86_64 ] || W=$W-$VM_ARCH
started=$SECONDS

require_elfpmd
[ "$(uname -m)" = x86_64 ] || skip_all "the harness boots Debian kernels with programs built on an x86-64 host (host: $(uname -m))"
vm_have_tools || skip_all "$VM_WHY"
rm -rf "$W"
mkdir -p "$W" || hard_error "cannot create $W"

vm_fetch_kernel "$SUITE" || skip_all "cannot fetch Debian $SUITE's $VM_DEB_ARCH kernel: $VM_WHY"
vm_fetch_busybox "$SUITE" || skip_all "cannot fetch Debian $SUITE's busybox-static:$VM_DEB_ARCH: $VM_WHY"
kernel=$(cat "$VM_KDIR/release")
note "kernel: $(cat "$VM_KDIR/package") (cache $VM_CACHE)"
note "config: $(vm_config_line "$VM_KDIR")"

vm_payload "$W/build" "$W/stage" "orig mad copy"
case $? in
0) ;;
1) skip_all "$VM_WHY" ;;
*) fail "$VM_WHY"; finish ;;
esac
case " $VM_BINS " in
*" mad "*) ;;
*) skip_all "$VM_NA_WHY" ;;
esac
pass "fixtures built ($VM_ARCH), elfpmd --madvise and --madvise=copy rewrote mad-pie and mad-empty with the stub"
ideal=$(vm_ideal_kb "$W/stage/mad/mad-pie")
check "the rewrite has whole 2 MiB chunks of text to map ($ideal kB)" test "$ideal" -gt 0
copy_ideal=$(vm_ideal_kb "$W/stage/copy/mad-pie")
check "the copy rewrite has as many ($copy_ideal kB)" test "$copy_ideal" = "$ideal"
if [ -n "$VM_INV" ]; then
	inv_ideal=$(vm_ideal_kb "$W/stage/copy/inv-pie")
	inv_rest=$((inv_ideal - 2048))		# all but mid's chunk
	note "inv-pie: $inv_ideal kB of whole chunks, mid at $VM_INV_OFFS"
else
	note "no preload, breakpoint or uprobe runs in the guest: $VM_INV_WHY"
fi
ref=$(vm_reference "$W/stage/orig/mad-pie")
[ "$ref" != none ] || note "no qemu-$VM_ARCH (qemu-user): the guest's outputs are compared with the original's in the guest only"

vm_disks "$W" "$W/stage" || hard_error "$VM_WHY"
vm_conf "$W/vm.conf" "ext4:vda:ext4:defaults xfs:vdb:xfs:defaults" "$STATES"
vm_initramfs "$VM_KDIR" "$W/initrd" "$W/vm.conf" "${VM_GUEST_BINS[@]}" || hard_error "$VM_WHY"

vm_accel "$VM_KDIR" "$W/initrd" "$W"
note "accelerator: $VM_ACCEL ($VM_ACCEL_WHY)"
boot_started=$SECONDS
vm_qemu "$VM_ACCEL" "$VM_KDIR" "$W/initrd" "$W/console.log" "$BOOT_LIMIT" measure "$W/ext4.img" "$W/xfs.img"
status=$?
note "guest: $((SECONDS - boot_started)) s, qemu exit status $status"
if ! vm_results "$W/console.log" >"$W/results"; then
	fail "the guest did not finish (qemu status $status$([ $status = 124 ] && echo ", killed after $BOOT_LIMIT s")); last lines of $W/console.log:"
	tr -d '\r' <"$W/console.log" | tail -15 | sed 's/^/      /'
	finish
fi

# --- evaluation ------------------------------------------------------------
while read -r line; do
	fail "guest: ${line#R error }"
done < <(grep '^R error' "$W/results")
# what a stuck run's processes and the kernel were doing (guest.sh, hang_report)
grep '^R hang' "$W/results" | sed 's/^R hang /      /'
probe=$(grep -m1 "^R probe fs=xfs " "$W/results")
note "kernel $kernel offers: ${probe#R probe fs=xfs }; THP at boot: $(vm_field "$(grep -m1 '^R thp ' "$W/results")" default)"

for mode in $THPS; do
	for fs in ext4 xfs; do
		tag="$kernel $fs THP $mode"
		refline=$(grep -m1 "^R ref fs=$fs thp=$mode " "$W/results")
		if [ -z "$refline" ]; then
			fail "$tag: no result (file system not mounted?)"
			continue
		fi
		if [ "$(vm_field "$refline" status)" = 42 ] && { [ "$ref" = none ] || [ "$(vm_field "$refline" md5)" = "$ref" ]; }; then
			pass "$tag: the original prints in the guest what it prints on the host$([ "$ref" = none ] || [ -z "$VM_CROSS" ] || echo " under qemu-$VM_ARCH"), exits 42"
		else
			fail "$tag: the original's output in the guest differs from the host's (status $(vm_field "$refline" status))"
		fi
		for state in $STATES; do
			runs=$(grep "^R run fs=$fs thp=$mode bin=[a-z]* state=$state " "$W/results")
			bad=$(printf '%s\n' "$runs" | grep -v 'same=yes status=42 ' | grep -c .)
			if [ -z "$runs" ]; then
				fail "$tag $state: no runs reported"
			elif [ "$bad" -eq 0 ]; then
				pass "$tag $state: original and rewrites print the same and exit 42"
			else
				fail "$tag $state: $bad run(s) differ from the original's output or status"
				printf '%s\n' "$runs" | grep -v 'same=yes status=42 ' | sed 's/^R run /      /'
				grep -A8 "^R run fs=$fs thp=$mode bin=[a-z]* state=$state .*same=no" "$W/results" \
					| grep '^R diff' | head -8 | sed 's/^R diff /      /'
			fi
		done

		reads=$(grep "^R reads fs=$fs thp=$mode " "$W/results" | grep -m1 " b=$VM_CMP\$")
		time=$(grep "^R time fs=$fs thp=$mode " "$W/results" | grep -m1 " b=$VM_CMP\$")
		ratio=$(vm_field "$time" ratio)
		o_kb=$(( $(vm_field "$reads" orig_kb) / READS ))
		m_kb=$(( $(vm_field "$reads" mad_kb) / READS ))
		cost="warm start: rewrite/original time $ratio (median of $PAIRS pairs of $BATCH, range $(vm_field "$time" min_ratio)-$(vm_field "$time" max_ratio)), read per start: original $o_kb kB, rewrite $m_kb kB"
		if [ "$fs" = "$HARMLESS_FS" ]; then
			if [ -z "$reads" ]; then
				fail "$tag: no disk-read figures"
			elif [ $((m_kb - o_kb)) -le "$MAX_EXTRA_READ_KB" ]; then
				pass "$tag: harmless: a warm start of the rewrite reads $((m_kb - o_kb)) kB more than the original's (at most $MAX_EXTRA_READ_KB)"
			else
				fail "$tag: a warm start of the rewrite reads $((m_kb - o_kb)) kB more from disk than the original's (at most $MAX_EXTRA_READ_KB): $((m_kb / 1024)) MiB per start"
			fi
			if [ -n "$MAX_WARM_RATIO" ]; then
				if awk -v r="$ratio" -v m="$MAX_WARM_RATIO" 'BEGIN { exit !(r != "" && r <= m) }'; then
					pass "$tag: warm start ratio $ratio <= $MAX_WARM_RATIO"
				else
					fail "$tag: warm start ratio ${ratio:-missing} > $MAX_WARM_RATIO"
				fi
			fi
		fi
		note "$tag: $cost"

		if [ "$fs" = "$COVERAGE_FS" ]; then
			for state in $COVERAGE_STATES; do
				while read -r line; do
					[ -n "$line" ] || continue
					kb=$(vm_field "$line" pmd_kb)
					if [ "$kb" = none ]; then
						fail "$tag $state: the program wrote no smaps copy"
					elif [ $((kb * 100)) -ge $((ideal * MIN_COVERAGE)) ]; then
						pass "$tag $state: FilePmdMapped $kb kB of $ideal kB ideal: $((kb * 100 / ideal))%"
					else
						fail "$tag $state: FilePmdMapped $kb kB of $ideal kB ideal: $((kb * 100 / ideal))% < $MIN_COVERAGE%"
					fi
				done < <(grep "^R run fs=$fs thp=$mode bin=mad state=$state " "$W/results")
			done
		fi
		orig_pmd=$(grep "^R run fs=$fs thp=$mode bin=orig " "$W/results" | grep -vc ' pmd_kb=0 ')
		[ "$orig_pmd" -eq 0 ] || note "$tag: $orig_pmd run(s) of the original got PMD mappings"

		# The copy rewrite: all its text copied where the kernel cannot
		# give the file PMD folios, nothing copied where it can (the
		# --madvise way then, as the plain rewrite), nothing under
		# PR_SET_THP_DISABLE.
		for state in $STATES; do
			while read -r line; do
				[ -n "$line" ] || continue
				anon=$(vm_field "$line" anon_kb)
				kb=$(vm_field "$line" pmd_kb)
				what="AnonHugePages of the text $anon kB, FilePmdMapped $kb kB"
				if [ "$anon" = none ]; then
					fail "$tag $state: the copy rewrite wrote no smaps copy"
				elif [ "$state" = thpoff ]; then
					check "$tag under PR_SET_THP_DISABLE: the copy rewrite copies nothing ($what)" test "$anon" = 0
				elif [ "$fs" = "$COPY_FS" ]; then
					case " $COPY_ANON_STATES " in
					*" $state "*)
						check "$tag $state: the copy rewrite copied its text into huge pages: $what, ideal $copy_ideal kB" \
							test "$anon" = "$copy_ideal" ;;
					*) note "$tag $state: the copy rewrite: $what" ;;
					esac
				elif [ "$fs" = "$COVERAGE_FS" ] && [[ " $COVERAGE_STATES " = *" $state "* ]]; then
					holds "$tag $state: the copy rewrite copies nothing where the file can be PMD-mapped and gets >= $MIN_COVERAGE% ($what, ideal $copy_ideal kB)" \
						"[ \"$anon\" = 0 ] && [ $((kb * 100)) -ge $((copy_ideal * MIN_COVERAGE)) ]"
				else
					note "$tag $state: the copy rewrite: $what"
				fi
			done < <(grep "^R run fs=$fs thp=$mode bin=copy state=$state " "$W/results")
		done

		# inv-pie: a preload's patch, a breakpoint set at the execve and
		# a uprobe registered before the start survive the copy (mid's
		# chunk stays file-backed, the others are copied).
		if [ -z "$VM_INV" ] || [[ " $INV_FS " != *" $fs "* ]]; then continue; fi
		[ "$(grep -c "^R inv fs=$fs thp=$mode " "$W/results")" -gt 0 ] || continue
		for state in $INV_STATES; do
			for how in plain preload break uprobe; do
				o=$(grep -m1 "^R inv fs=$fs thp=$mode bin=orig state=$state how=$how " "$W/results")
				c=$(grep -m1 "^R inv fs=$fs thp=$mode bin=copy state=$state how=$how " "$W/results")
				[ -n "$o$c" ] || continue
				t="$tag $state inv-pie $how"
				if [ -z "$c" ] || [ -z "$o" ]; then
					fail "$t: no result for the original or the copy rewrite"
					continue
				fi
				want_mid=42 want_hits=- want_anon=$inv_rest
				case $how in
				plain) want_anon=$inv_ideal ;;
				preload) want_mid=99 ;;
				*) want_hits=3 ;;
				esac
				if [ "$(vm_field "$o" mid)" != "$want_mid" ] || [ "$(vm_field "$o" hits)" != "$want_hits" ]; then
					skip "$t: the original does not show it here (mid() $(vm_field "$o" mid), hits $(vm_field "$o" hits))"
					continue
				fi
				mid=$(vm_field "$c" mid) hits=$(vm_field "$c" hits) anon=$(vm_field "$c" anon_kb)
				if [ "$(vm_field "$c" same)" = yes ] && [ "$mid" = "$want_mid" ] && [ "$hits" = "$want_hits" ]; then
					pass "$t: the copy rewrite prints what the original prints (mid() = $mid, hits $hits)"
				else
					fail "$t: the copy rewrite: same output $(vm_field "$c" same), mid() = $mid (want $want_mid), hits $hits (want $want_hits)"
				fi
				check "$t: the copy rewrite's AnonHugePages of the text $anon kB = $want_anon kB ($([ "$how" = plain ] && echo "all of it" || echo "all but mid's chunk"))" \
					test "$anon" = "$want_anon"
			done
		done
	done
done

echo "# coverage (% of $ideal kB) and cost, $SUITE's $VM_DEB_ARCH kernel:"
{ vm_table_header; vm_table_rows "$kernel" "$ideal" "$W/results"; } | sed 's/^/#   /'
echo "# the copy rewrite (elfpmd --madvise=copy): text on huge pages, % of $copy_ideal kB:"
{ vm_table_copy_header "$STATES"; vm_table_copy_rows "$kernel" "$copy_ideal" "$STATES" "$W/results"; } | sed 's/^/#   /'
if [ -n "$VM_INV" ]; then
	echo "# inv-pie ($inv_ideal kB of whole chunks) with a preload's patch, a breakpoint, a uprobe:"
	{ vm_table_inv_header; vm_table_inv_rows "$kernel" "$W/results"; } | sed 's/^/#   /'
fi
echo "# run time $((SECONDS - started)) s"
# ELFPMD_VM_KEEP=1 keeps the work files of a run that passed too.
if [ "$n_fail" -eq 0 ] && [ -z "${ELFPMD_VM_KEEP:-}" ]; then rm -rf "$W"; else rm -f "$W/ext4.img" "$W/xfs.img"; fi
finish
