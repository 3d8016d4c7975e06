#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# vm-kernels.sh -- elfpmd --madvise on the kernels users run: Debian's own
# kernel packages booted unchanged in qemu-system-x86_64 (the long form of
# the VM harness, tests/vm/README; tests/run-vm.sh is the short form that
# 'make check' runs on one kernel).
#
# For each Debian release (default: bullseye 5.10, bookworm 6.1, trixie
# 6.12) it fetches linux-image-amd64's kernel with apt-get download through
# a private apt configuration whose mirror is read from this machine's,
# boots it (KVM where a probe boot through /dev/kvm works, else TCG) with a
# busybox initramfs and two disk images made on the host, ext4 and xfs (and
# with -j an ext4 mounted data=journal), each holding the 17 MiB-text PIE
# fixture mad-pie, its `elfpmd -q --madvise` rewrite and its `elfpmd -q
# --madvise=copy` rewrite (the copy rewrite), and in each THP mode runs
# them in the states cold, warm, order-0 (file cached in 4 KiB folios),
# fresh (first run of a copy just written with dd bs=4k), 3 at once (on an
# order-0 cache) and thpoff (under PR_SET_THP_DISABLE, the file cached);
# on ext4, in THP mode always, cold and warm, inv-pie and its copy rewrite
# run plainly, with a preload that patches mid, under a breakpoint on mid
# and with a uprobe on it (tests/run-vm.sh).  It prints, per kernel, the
# configuration the stub depends on and what the kernel offers it
# (PAGEMAP_SCAN, MADV_POPULATE_READ, MADV_COLLAPSE, tried in the guest), and
# at the end one markdown table, kernel x fs x THP mode:
#   - the rewrite's FilePmdMapped in % of the ideal (whole 2 MiB chunks of
#     its text) per state (3 at once: the lowest of the three);
#   - outputs identical: every run of original and rewrite printed what the
#     original prints on the host and exited 42;
#   - warm start rewrite/original: median of PAIRS interleaved pairs of
#     batches of BATCH warm starts of mad-empty (the same text, a main that
#     returns at once); TCG timing moves by 5-10% between runs;
#   - extra MiB read per warm start: sectors read from the guest's disk
#     during READS warm starts of the rewrite, minus the original's, per
#     start;
# then a table of the copy rewrite, kernel x fs x THP mode: per state its
# text on huge pages in % of the ideal, "N% anon" (AnonHugePages of the
# copied text: anonymous r-x mappings of inode 0) or "N% file"
# (FilePmdMapped: the kernel could map the file, nothing copied), whether
# its outputs are the original's, its warm-start time against the
# original's and the MiB it read more per warm start; and one of inv-pie's
# runs (mid() and the hits in the original and the copy rewrite, the
# copy's AnonHugePages and FilePmdMapped).
#
# With -O it also measures the program on overlayfs (a container's root
# file system): overlays mounted in the guest with lowerdir the ext4 disk's
# mount and the xfs disk's (upperdir and workdir on a tmpfs), labelled
# ovl-ext4 and ovl-xfs, and the same again measured in a mount namespace
# where the lower file system's mount is lazily unmounted, as in a container
# whose /proc/self/mountinfo does not show it ("hidden lower": ovlh-ext4,
# ovlh-xfs); the same states and rows as the disks, disk reads counted on
# the lower disk; per kernel the device /proc/PID/maps shows for the
# overlay's text and what POSIX_FADV_DONTNEED through the overlay's file
# evicts (tests/vm/guest.sh, OVERLAYS).
#
# With --arch aarch64 or riscv64 (or ELFPMD_VM_ARCH) it boots Debian's arm64
# or riscv64 kernels in qemu-system-aarch64 / -riscv64 -M virt (TCG) with
# busybox-static of that architecture (downloaded and unpacked, never
# installed) and the fixture cross-built with ${ARCH}-linux-gnu-gcc
# (tests/fixtures/big.S), and measures by default five binaries (-B): orig,
# align (elfpmd without --madvise), mad (elfpmd --madvise; "not available"
# while elfpmd has no stub for the machine), self (a static program
# that madvises its own aligned text, tests/vm/selfmad.c) and copy (elfpmd
# --madvise=copy), in THP mode always; its table then counts
# PMD-mapped chunks of each binary's text against its ideal (the kernel's
# PMD size: 32 MiB for arm64-16k; "(N anon)": N of them copied), a second
# table gives the cost (warm start and extra reads of mad, else align, and
# of copy, against orig) and a third the copy rewrite as above (no inv-pie:
# its preload is x86-64 code).
#
# Usage: bench/vm-kernels.sh [--arch ARCH] [-s KERNELS] [-t THPS] [-B BINS]
#                            [-S STATES] [-P PMD] [-T MIB] [-n PAIRS] [-b BATCH]
#                            [-r READS] [-j] [-O] [-x] [-R] [-c BINS] [-d WORKDIR] [-k]
#   --arch ARCH, -a ARCH  x86_64 (default), aarch64 or riscv64
#   -s KERNELS Debian releases, space-separated, each SUITE or SUITE:FLAVOUR
#              (linux-image-FLAVOUR; default x86_64 "bullseye bookworm
#              trixie", aarch64 "bookworm trixie trixie:arm64-16k",
#              riscv64 "trixie")
#   -t THPS    THP modes (default "madvise always" for x86_64, else
#              "always"; Debian boots in always)
#   -B BINS    binaries (default "orig mad copy" for x86_64, else
#              "orig align mad self copy"; see tests/vm/lib.sh vm_payload)
#   -S STATES  page cache states (default "cold warm order0 fresh
#              concurrent thpoff")
#   -P PMD     aarch64, riscv64: the PMD size the binaries are made for
#              (elfpmd --pmd-size, or --page-size=16K for aarch64 32M;
#              self's alignment; default 2M; 32M for
#              the arm64-16k kernel)
#   -T MIB     aarch64, riscv64: MiB of text in the fixture (default 17;
#              68 gives two whole 32 MiB chunks)
#   -n PAIRS   timed warm-start pairs per file system (default 20; 10
#              for the other architectures)
#   -b BATCH   warm starts timed together in each half of a pair (default 5;
#              3 for the other architectures)
#   -r READS   warm starts counted for the disk reads (default 3)
#   -L ROUNDS  the wait for another user's lock: ROUNDS starts of mad's
#              mad-empty from a cache in 4 KiB folios (its stub repairs,
#              where the kernel can: xfs) while `vmtime hold` holds the
#              flock of another file (free) or of the file (held) and grows
#              a read lock on it every millisecond (what any reader can
#              do); "R lock" lines, free_us and held_us per round
#              (default 0: none)
#   -j         a third disk: ext4 mounted data=journal
#   -x         x86_64: strace in the guest; per file system, the system
#              calls a warm start of each timed binary makes beyond the
#              original's (the stub's), by name and in order
#   -R         address-space randomisation off in the guest: TCG (QEMU
#              before 8.0 on x86-64) keys translated code by virtual
#              address, so with it every start translates its code anew
#              and a warm start's time counts the code executed, not its
#              cost on a CPU; without it, what is left is closer to that
#   -c BINS    the binaries timed against orig, one after the other
#              (default mad, else align; and copy where it is built), e.g.
#              "align mad" to part the stub's cost from the alignment's
#   -O         overlayfs over ext4 and over xfs, lower mount visible and
#              hidden (ovl-ext4 ovl-xfs ovlh-ext4 ovlh-xfs; the overlay
#              module: a kernel cached without it is fetched again);
#              ELFPMD_VM_OVERLAYS="LABEL:LOWER[:FLAG,...] ..." chooses
#              others (guest.sh OVERLAYS; FLAGs hidden, and same: every
#              layer on the lower disk, as container engines lay them
#              out), e.g. "ovls-ext4:ext4:same ovlsh-ext4:ext4:same,hidden"
#   -d WORKDIR directory to work in (default: mktemp -d under /var/tmp)
#   -k         keep the work directory (console logs, results, images)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
#   ELFPMD_VM_CACHE, ELFPMD_VM_ACCEL, ...: see tests/vm/lib.sh
# Needs no root.  Each guest boot holds the benchmark lock
# ($ELFPMD_BENCH_LOCK, default /tmp/elfpmd-bench.lock) when flock exists.
# About 1 minute per x86-64 kernel under TCG here (2 CPUs), plus the
# downloads the first time (~250 MB) and a 20 s KVM probe per kernel where
# /dev/kvm exists but does not boot it; an aarch64 or riscv64 guest takes
# several minutes (bench/README).

set -u
export LC_ALL=C

ARCH=${ELFPMD_VM_ARCH:-x86_64}
SUITES=
THPS=
BINS=
STATES=
PAIRS=
BATCH=
READS=3
JOURNAL=0
OVERLAY=0
TIMED=
WORK=
KEEP=0
# --arch ARCH (the one long option) is -a ARCH.
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || { echo "--arch wants x86_64, aarch64 or riscv64" >&2; exit 64; }
		args+=(-a "$2"); shift 2 ;;
	--arch=*) args+=(-a "${1#--arch=}"); shift ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"
while getopts 'a:s:t:B:S:P:T:n:b:r:L:jOxRc:d:kh' opt; do
	case $opt in
	a) ARCH=$OPTARG ;;
	s) SUITES=$OPTARG ;;
	t) THPS=$OPTARG ;;
	B) BINS=$OPTARG ;;
	S) STATES=$OPTARG ;;
	P) case $OPTARG in
	   *[Mm]) ELFPMD_VM_PMD=$((${OPTARG%?} * 1048576)) ;;
	   *[!0-9]* | '') echo "-P wants a size (32M)" >&2; exit 64 ;;
	   *) ELFPMD_VM_PMD=$OPTARG ;;
	   esac
	   export ELFPMD_VM_PMD ;;
	T) case $OPTARG in '' | *[!0-9]*) echo "-T wants MiB" >&2; exit 64 ;; esac
	   export ELFPMD_VM_TEXT_MIB=$OPTARG ;;
	n) PAIRS=$OPTARG ;;
	b) BATCH=$OPTARG ;;
	r) READS=$OPTARG ;;
	L) case $OPTARG in '' | *[!0-9]*) echo "-L wants a number of rounds" >&2; exit 64 ;; esac
	   VM_LOCKS=$OPTARG ;;
	j) JOURNAL=1 ;;
	O) OVERLAY=1 ;;
	x) export VM_STRACE=yes ;;
	R) export VM_NOASLR=yes ;;
	c) TIMED=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || { echo "no arguments expected; -h for help" >&2; exit 64; }
if [ "$ARCH" = x86_64 ]; then
	: "${THPS:=madvise always}" "${BINS:=orig mad copy}" "${STATES:=cold warm order0 fresh concurrent thpoff}" "${PAIRS:=20}" "${BATCH:=5}"
else
	: "${THPS:=always}" "${BINS:=orig align mad self copy}" "${STATES:=cold warm order0 fresh concurrent thpoff}" "${PAIRS:=10}" "${BATCH:=3}"
fi
case $PAIRS in '' | *[!0-9]*) echo "-n wants a number" >&2; exit 64 ;; esac
case $READS in '' | *[!0-9]*) echo "-r wants a number" >&2; exit 64 ;; esac
case $BATCH in '' | *[!0-9]*) echo "-b wants a number" >&2; exit 64 ;; esac
[ "$READS" -ge 1 ] || { echo "-r wants at least 1" >&2; exit 64; }

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../tests/vm/lib.sh"
bench_find_elfpmd
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
[ "$(uname -m)" = x86_64 ] || bench_die "needs an x86-64 host"
vm_set_arch "$ARCH" || { echo "$VM_WHY" >&2; exit 64; }
: "${SUITES:=$VM_KERNELS}"
vm_have_tools || bench_die "$VM_WHY"
bench_workdir vm-kernels
started=$SECONDS

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK, cache $VM_CACHE"
echo "host:     $(uname -r), $(nproc) CPUs; guest $VM_ARCH; THP modes $THPS; states $STATES; $PAIRS timing pairs of $BATCH, $READS counted warm starts${VM_NOASLR:+; guest ASLR off}"

vm_payload "$WORK/build" "$WORK/stage" "$BINS" || bench_die "$VM_WHY"
[ -z "$VM_NA_WHY" ] || echo "mad:      not available: $VM_NA_WHY"
# the copy rewrite is timed against orig too
case " $VM_BINS " in *" copy "*) VM_CMP="${VM_CMP:+$VM_CMP }copy" ;; esac
if [ -n "$TIMED" ]; then
	for b in $TIMED; do
		case " $VM_BINS " in *" $b "*) ;; *) bench_die "-c $b: not among the binaries ($VM_BINS)" ;; esac
	done
	VM_CMP=$TIMED
fi
echo "binaries: $VM_BINS (timed against orig: ${VM_CMP:-none})"
case " $BINS " in
*" copy "*) if [ -n "$VM_INV" ]; then echo "inv-pie:  $VM_INV_OFFS"; else echo "inv-pie:  none: $VM_INV_WHY"; fi ;;
esac
# The x86-64 table of the earlier runs (the rewrite's coverage in %) when
# the binaries are orig and mad (and copy, in a table of its own); else one
# row per binary.
old_table=0
case $VM_BINS in "orig mad" | "orig mad copy") old_table=1 ;; esac
ideal=0
[ "$old_table" = 1 ] && ideal=$(vm_ideal_kb "$WORK/stage/mad/mad-pie")
ref=$(vm_reference "$WORK/stage/orig/mad-pie")
for b in $VM_BINS; do
	echo "fixture:  $b/mad-pie, ideal $(vm_ideal_kb "$WORK/stage/$b/mad-pie" "${ELFPMD_VM_PMD:-0x200000}") kB (whole $((${ELFPMD_VM_PMD:-0x200000} / 1048576)) MiB chunks)"
done
disks="ext4:vda:ext4:defaults xfs:vdb:xfs:defaults"
[ "$JOURNAL" = 1 ] && disks="$disks ext4j:vdc:ext4:data=journal"
export VM_LOCKS=${VM_LOCKS:-0}
VM_OVERLAYS=
if [ "$OVERLAY" = 1 ] || [ -n "${ELFPMD_VM_OVERLAYS:-}" ]; then
	VM_OVERLAYS=${ELFPMD_VM_OVERLAYS:-ovl-ext4:ext4 ovl-xfs:xfs ovlh-ext4:ext4:hidden ovlh-xfs:xfs:hidden}
	VM_NEED_MODULES=overlay
	echo "overlays: $VM_OVERLAYS"
fi
vm_conf "$WORK/vm.conf" "$disks" "$STATES"

rows=$WORK/rows
costs=$WORK/costs
copies=$WORK/copies
invs=$WORK/invs
: >"$rows"
: >"$costs"
: >"$copies"
: >"$invs"
for suite in $SUITES; do
	echo
	echo "== $suite ($(vm_series "$suite"))"
	t0=$SECONDS
	if ! vm_fetch_kernel "$suite"; then
		echo "   skipped: $VM_WHY"
		continue
	fi
	kernel=$(cat "$VM_KDIR/release")
	echo "   package: $(cat "$VM_KDIR/package")"
	[ -z "$VM_NEED_WHY" ] || echo "   note:    $VM_NEED_WHY"
	echo "   config:  $(vm_config_line "$VM_KDIR")"
	k=$WORK/${suite//:/-}
	mkdir -p "$k"
	if ! vm_fetch_busybox "${suite%%:*}"; then
		echo "   skipped: $VM_WHY"
		continue
	fi
	vm_initramfs "$VM_KDIR" "$k/initrd" "$WORK/vm.conf" "${VM_GUEST_BINS[@]}" || bench_die "$VM_WHY"
	vm_disks "$k" "$WORK/stage" || bench_die "$VM_WHY"
	images=("$k/ext4.img" "$k/xfs.img")
	if [ "$JOURNAL" = 1 ]; then
		cp --sparse=always "$k/ext4.img" "$k/ext4j.img"
		images+=("$k/ext4j.img")
	fi
	vm_accel "$VM_KDIR" "$k/initrd" "$k"
	echo "   accel:   $VM_ACCEL ($VM_ACCEL_WHY)"
	if command -v flock >/dev/null; then
		exec 9>"$LOCK"
		flock -w 3600 9 || bench_die "could not take the lock $LOCK in an hour"
	fi
	b0=$SECONDS
	vm_qemu "$VM_ACCEL" "$VM_KDIR" "$k/initrd" "$k/console.log" "${ELFPMD_VM_BOOT_LIMIT:-3600}" measure "${images[@]}"
	status=$?
	command -v flock >/dev/null && exec 9>&-
	if ! vm_results "$k/console.log" >"$k/results"; then
		echo "   the guest did not finish (qemu status $status); last console lines:"
		tr -d '\r' <"$k/console.log" | tail -10 | sed 's/^/     /'
		KEEP=1
		continue
	fi
	kline=$(grep -m1 '^R kernel ' "$k/results")
	echo "   guest:   $((SECONDS - b0)) s ($((SECONDS - t0)) s with fetch and set-up); /init reached $(vm_field "$kline" uptime) s after the kernel started"
	thpline=$(grep -m1 '^R thp ' "$k/results")
	pmd=$(vm_field "$thpline" pmd)
	case $pmd in '' | *[!0-9]*) pmd=$((0x200000)) ;; esac
	echo "   thp at boot: $(vm_field "$thpline" default), PMD $((pmd / 1048576)) MiB"
	grep '^R probe ' "$k/results" | sed 's/^R probe /   offers: /'
	grep '^R error' "$k/results" | sed 's/^R /   /'
	grep '^R ref ' "$k/results" | while read -r line; do
		if [ "$(vm_field "$line" status)" != 42 ] || { [ "$ref" != none ] && [ "$(vm_field "$line" md5)" != "$ref" ]; }; then
			echo "   the original's output in the guest differs from the host's: ${line#R ref }"
		fi
	done
	grep -E '^R (run .*same=no|diff )' "$k/results" | head -20 | sed 's/^R /   /'
	grep -E '^R (ovl|maps) ' "$k/results" | sed 's/^R /   /'
	grep '^R reads ' "$k/results" | sed 's/^R /   /'
	grep '^R time ' "$k/results" | sed 's/^R /   /'
	grep '^R rusage ' "$k/results" | sed 's/^R /   /'
	grep -E '^R (calls|callstart) ' "$k/results" | sed 's/^R /   /'
	vm_stub_calls "$k/results" | sed 's/^/   system calls beyond the original'"'"'s: /'
	grep '^R lock ' "$k/results" | sed 's/^R /   /'
	if [ "$old_table" = 1 ]; then
		vm_table_rows "$(vm_series "$suite") ($kernel)" "$ideal" "$k/results" >>"$rows"
	else
		ideals=
		for b in $VM_BINS; do
			ideals="$ideals $b=$(vm_ideal_kb "$WORK/stage/$b/mad-pie" "$pmd")"
		done
		vm_table_bins "$(vm_series "$suite") ($kernel)" "$pmd" "$STATES" "$ideals" "$k/results" >>"$rows"
		vm_cost_rows "$(vm_series "$suite") ($kernel)" "$k/results" >>"$costs"
	fi
	if [ -d "$WORK/stage/copy" ]; then
		vm_table_copy_rows "$(vm_series "$suite") ($kernel)" "$(vm_ideal_kb "$WORK/stage/copy/mad-pie" "$pmd")" \
			"$STATES" "$k/results" >>"$copies"
		vm_table_inv_rows "$(vm_series "$suite") ($kernel)" "$k/results" >>"$invs"
	fi
	rm -f "$k"/*.img
done

echo
if [ "$old_table" = 1 ]; then
	echo "coverage: FilePmdMapped of the rewrite in % of $ideal kB; elfpmd $("$ELFPMD" --version 2>/dev/null | head -n 1)"
	vm_table_header
	cat "$rows"
else
	echo "PMD-mapped chunks of the text of each binary, of the whole PMD chunks it could have; elfpmd $("$ELFPMD" --version 2>/dev/null | head -n 1)${VM_NA_WHY:+; mad not available: $VM_NA_WHY}"
	vm_table_bins_header "$STATES"
	cat "$rows"
	echo
	echo "| kernel | fs | THP | B | warm start B/orig | extra MiB read per warm start |"
	echo "|---|---|---|---|---|---|"
	cat "$costs"
fi
if [ -s "$copies" ]; then
	echo
	echo "the copy rewrite (elfpmd --madvise=copy): its text on huge pages in % of its ideal, AnonHugePages of the copied text (anon) or FilePmdMapped (file)"
	vm_table_copy_header "$STATES"
	cat "$copies"
fi
if [ -s "$invs" ]; then
	echo
	echo "inv-pie and its copy rewrite: plain, with a preload patching mid (mid() = 99), a breakpoint and a uprobe on mid (3 hits)"
	vm_table_inv_header
	cat "$invs"
fi
echo
echo "run time $((SECONDS - started)) s"
